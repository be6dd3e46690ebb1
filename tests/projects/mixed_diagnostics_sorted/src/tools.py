from pydantic import BaseModel
from skillc import Tool


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id


def format_order(order_id: str) -> str:
    return order_id.upper()


class Spare(Tool):
    name = "spare"
    description = "Not registered."

    def execute(self, input: LookupInput, ctx: object) -> str:
        return "spare"
