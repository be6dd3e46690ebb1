from pydantic import BaseModel
from skillc import Tool

PREFIX = "shop"


def make_name(base: str) -> str:
    return f"{PREFIX}_{base}"


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = make_name("lookup")
    description = "Look up an order."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id


def run_track(input: LookupInput, ctx: object) -> str:
    return "in transit"


track = Tool(
    name=f"{PREFIX}_track",
    description="Track a parcel.",
    input_schema=LookupInput,
    execute=run_track,
)
