from pydantic import BaseModel
from skillc import Tool

from helpers import shout

SUFFIX = "!"


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return shout(input)
