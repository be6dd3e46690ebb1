from pydantic import BaseModel
from skillc import Tool, tool

SHOP = "Acme"


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = "lookup"
    description = f"Look up an order at {SHOP}."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id


@tool(description=SHOP + " cancels an order.")
def cancel(order_id: str) -> str:
    return order_id
