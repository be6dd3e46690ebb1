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
