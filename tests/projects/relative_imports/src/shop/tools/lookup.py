from ..models import OrderInput
from .base import ShopTool


class Lookup(ShopTool):
    name = "lookup"
    description = "Look up an order."
    input_schema = OrderInput

    def execute(self, input: OrderInput, ctx: object) -> str:
        return input.order_id
