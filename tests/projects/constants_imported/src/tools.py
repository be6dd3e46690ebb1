import settings
import texts.descriptions
from pydantic import BaseModel
from skillc import Tool
from texts.names import LOOKUP_NAME, TRACK_NAME


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = LOOKUP_NAME
    description = texts.descriptions.LOOKUP_DESCRIPTION
    input_schema = LookupInput
    timeout = settings.SLOW_TIMEOUT

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id


def run_track(input: LookupInput, ctx: object) -> str:
    return "in transit"


track = Tool(
    name=TRACK_NAME,
    description=texts.descriptions.TRACK_DESCRIPTION,
    input_schema=LookupInput,
    execute=run_track,
)
