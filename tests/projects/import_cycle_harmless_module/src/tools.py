import helpers
from pydantic import BaseModel
from skillc import Tool

SUFFIX = "!"


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return helpers.shout(input.order_id)
