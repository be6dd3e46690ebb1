"""cancel_order: the function form of a tool."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from skillc import ToolContext, tool
from skills.tools.store import no_such_order, orders


@tool(needs_approval=True)
def cancel_order(
    order_id: Annotated[str, Field(pattern=r"^A\d{4}$")],
    reason: str = "customer request",
    *,
    ctx: ToolContext,
) -> dict[str, str]:
    """Cancel an order that has not shipped yet.

    Args:
        order_id: The order id, like A1001.
        reason: Why the customer cancels, in a few words.
    """
    store = orders(ctx)
    order = store.get(order_id)
    if order is None:
        raise no_such_order(order_id)
    if order["status"] == "shipped":
        raise ValueError(f"Order {order_id} has already shipped and cannot be cancelled.")
    if order["status"] == "cancelled":
        raise ValueError(f"Order {order_id} is already cancelled.")
    store.patch(order_id, {"status": "cancelled", "cancel_reason": reason})
    return {"order_id": order_id, "status": "cancelled", "reason": reason}
