from pydantic import BaseModel
from skillc import Tool

LOOKUP_NAME = "lookup"
LOOKUP_DESCRIPTION = "Look up an order."
TRACK_NAME: str = "track"
SLOW = 45
TEAM = {"team": "orders", "tier": 2}


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = LOOKUP_NAME
    description = LOOKUP_DESCRIPTION
    input_schema = LookupInput
    timeout = SLOW
    metadata = TEAM

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id


def run_track(input: LookupInput, ctx: object) -> str:
    return "in transit"


track = Tool(
    name=TRACK_NAME,
    description="Track a parcel.",
    input_schema=LookupInput,
    execute=run_track,
    timeout=SLOW,
)
