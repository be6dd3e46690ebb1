from pydantic import BaseModel
from skillc import Tool, tool


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        from text.shout import shout  # a lazy import in a method

        return shout(input.order_id)


@tool
def status(order_id: str) -> str:
    """Say where an order is."""
    import store  # a lazy import in a function

    return store.where(order_id)
