from skillc import Tool

from skills.models import OrderInput


class Lookup(Tool):
    name = "lookup_order"
    description = "Look up an order."
    input_schema = OrderInput

    def execute(self, input: OrderInput, ctx: object) -> str:
        return input.order_id
