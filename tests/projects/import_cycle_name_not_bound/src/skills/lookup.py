from pydantic import BaseModel
from skillc import Tool

from skills.orders import CURRENCY


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return f"{input.order_id} costs 4 {CURRENCY}"
