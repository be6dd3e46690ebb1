"""A shop whose tools cover the SDK features skill chat carries: strict and non-strict tools,
capped and compacted results, lazy tools found on demand, voice flags and approval."""

from typing import Annotated

from pydantic import BaseModel, Field
from skillc import Skill, ToolFlag, tool


class Order(BaseModel):
    order_id: str = Field(pattern=r"^A\d{4}$", description="The order id, like A1001.")
    note: str = ""


@tool(strict=True)
def lookup_order(order_id: Annotated[str, Field(pattern=r"^A\d{4}$")]) -> dict[str, str]:
    """Look an order up by its id.

    Args:
        order_id: The order id, like A1001.
    """
    return {"order_id": order_id, "status": "shipped"}


@tool
def add_note(order_id: str, note: str = "") -> str:
    """Add a note to an order.

    Args:
        order_id: The order id.
        note: What to note.
    """
    return f"noted on {order_id}: {note}"


@tool(needs_approval=True)
def cancel_order(order_id: Annotated[str, Field(pattern=r"^A\d{4}$")], reason: str = "") -> dict[str, str]:
    """Cancel an order that has not shipped.

    Args:
        order_id: The order id, like A1001.
        reason: Why the customer cancels.
    """
    return {"order_id": order_id, "status": "cancelled", "reason": reason}


@tool(lazy=True)
def refund_order(order_id: str, amount_eur: float) -> str:
    """Refund part or all of an order's price to the customer's card.

    Args:
        order_id: The order id.
        amount_eur: How much to refund, in euros.
    """
    return f"refunded {amount_eur:.2f} EUR on {order_id}"


@tool(lazy=True)
def gift_wrap(order_id: str) -> str:
    """Wrap the items of an order as a gift.

    Args:
        order_id: The order id.
    """
    return f"{order_id} will be gift-wrapped"


@tool(max_output_chars=200)
def sales_report(rows: int = 100) -> str:
    """The sales report, one line per sale.

    Args:
        rows: How many lines.
    """
    return "\n".join(f"sale {index:04d}: order A{1000 + index} paid 12.50 EUR" for index in range(rows))


@tool(compact={"threshold": 300})
def server_log(lines: int = 20) -> str:
    """The server's recent log.

    Args:
        lines: How many lines.
    """
    return "\n".join(
        f"2025-01-01T00:00:{index:02d} INFO request /orders/A1001 served in 12 ms" for index in range(lines)
    )


@tool(voice=ToolFlag.IGNORE_ON_ENTER)
def greet_caller() -> str:
    """Greet a caller who is already on the line."""
    return "Welcome back!"


@tool(voice=ToolFlag.DISALLOW_INTERRUPTION)
def transfer_call(department: str) -> str:
    """Transfer the call to a department.

    Args:
        department: Where to.
    """
    return f"transferred to {department}"


orders = Skill(
    name="orders",
    description="Orders.",
    context="Ids look like A1001.",
    tools=[lookup_order, add_note, cancel_order, refund_order, gift_wrap],
)
reports = Skill(name="reports", description="Reports.", tools=[sales_report, server_log])
voice_desk = Skill(name="voice_desk", description="The phone line.", tools=[greet_caller, transfer_call])
