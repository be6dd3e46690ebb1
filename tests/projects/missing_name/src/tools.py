from pydantic import BaseModel
from skillc import Tool


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    description = "Look up an order."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id


def run_track(input: LookupInput, ctx: object) -> str:
    return "in transit"


track = Tool(description="Track a parcel.", input_schema=LookupInput, execute=run_track)
