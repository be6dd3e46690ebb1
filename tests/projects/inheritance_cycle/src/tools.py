from pydantic import BaseModel

from base import ShopTool


class LookupInput(BaseModel):
    order_id: str


class Lookup(ShopTool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id
