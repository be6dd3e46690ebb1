from pydantic import BaseModel
from skillc import Tool, tool


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    """Looks orders up (a class docstring is not the tool's description)."""

    name = "lookup"
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id


@tool
def cancel(order_id: str) -> str:
    return order_id


def run_track(input: LookupInput, ctx: object) -> str:
    return "in transit"


track = Tool(name="track", description="", input_schema=LookupInput, execute=run_track)
