import os

from pydantic import BaseModel
from skillc import Tool

if os.environ.get("SHOP_SLOW_BACKEND"):

    class ShopTool(Tool):
        timeout = 120

else:

    class ShopTool(Tool):
        timeout = 10


class LookupInput(BaseModel):
    order_id: str


class Lookup(ShopTool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id
