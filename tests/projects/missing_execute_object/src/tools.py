from pydantic import BaseModel
from skillc import Tool


class LookupInput(BaseModel):
    order_id: str


lookup = Tool(name="lookup", description="Look up an order.", input_schema=LookupInput)
track = Tool(
    name="track",
    description="Track a parcel.",
    input_schema=LookupInput,
    execute=None,
)
