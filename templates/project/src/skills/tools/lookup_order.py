"""lookup_order: the class form of a tool."""

from __future__ import annotations

from pydantic import BaseModel, Field

from skillc import Tool, ToolContext
from skills.tools.store import aorders, no_such_order


class LookupOrderInput(BaseModel):
    """Which order to look up."""

    order_id: str = Field(pattern=r"^A\d{4}$", description="The order id, like A1001.")
    include_items: bool = Field(default=False, description="Also list what the order holds.")


class LookupOrder(Tool):
    name = "lookup_order"
    description = "Look up an order's status, total and delivery date by its id."
    input_schema = LookupOrderInput
    timeout = 10

    async def execute(self, input: LookupOrderInput, ctx: ToolContext) -> dict[str, object]:
        orders = await aorders(ctx)
        order = await orders.aget(input.order_id)
        if order is None:
            raise no_such_order(input.order_id)
        ctx.logger.info("looked up order %s", input.order_id)
        result: dict[str, object] = {
            "order_id": order["_id"],
            "status": order["status"],
            "total_eur": order["total_eur"],
            "delivery_date": order["delivery_date"],
        }
        if input.include_items:
            result["items"] = order["items"]
        return result
