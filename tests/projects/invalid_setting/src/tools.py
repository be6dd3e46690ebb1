from pydantic import BaseModel
from skillc import Tool, tool


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput
    timeout = -1
    strict = "yes"

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id


@tool(retries=-2, metadata={1: "one"})
def cancel(order_id: str) -> str:
    """Cancel an order."""
    return order_id


def run_track(input: LookupInput, ctx: object) -> str:
    return "in transit"


track = Tool(
    name="track",
    description="Track a parcel.",
    input_schema=LookupInput,
    execute=run_track,
    timeout=0,
    needs_approval=1,
    retries=1.5,
)
