from pydantic import BaseModel as Model
from skillc import Tool as BaseTool


class LookupInput(Model):
    order_id: str


class Lookup(BaseTool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id
