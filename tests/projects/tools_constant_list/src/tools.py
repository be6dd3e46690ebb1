from pydantic import BaseModel
from skillc import Tool, tool


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id


@tool
def cancel(order_id: str) -> str:
    """Cancel an order."""
    return order_id


@tool
def refund(order_id: str) -> str:
    """Refund an order."""
    return order_id


ORDER_TOOLS = [Lookup(), cancel]
