from typing import Annotated

from pydantic import Field
from skillc import Tool, ToolContext, tool

from models import LookupInput


class Lookup(Tool):
    name = "lookup_order"
    description = "Look up an order by its id."
    input_schema = LookupInput
    timeout = 10

    async def execute(self, input: LookupInput, ctx: ToolContext) -> dict[str, str]:
        return {"order_id": input.order_id, "status": "shipped"}


@tool(needs_approval=True)
def cancel_order(order_id: Annotated[str, Field(pattern=r"^A\d{4}$")], reason: str = "") -> str:
    """Cancel an order that has not shipped.

    Args:
        order_id: The order id, like A1001.
        reason: Why the customer cancels.
    """
    return f"cancelled {order_id}"


def quote(input: LookupInput, ctx: ToolContext) -> float:
    return 4.5


shipping_quote = Tool(
    name="shipping_quote",
    description="Quote shipping for an order.",
    input_schema=LookupInput,
    execute=quote,
)
