from pydantic import BaseModel
from skillc import Tool, tool


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = "../lookup"
    description = "Look up an order."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id


@tool(name="find order")
def find_order(order_id: str) -> str:
    """Find an order."""
    return order_id


def run_track(input: LookupInput, ctx: object) -> str:
    return "in transit"


track = Tool(name="track.parcel", description="Track a parcel.", input_schema=LookupInput, execute=run_track)
