"""Client-side tools in the three forms: schemas only, the result comes from the caller."""

from typing import Literal

from pydantic import BaseModel, Field
from skillc import Tool, tool


class Place(BaseModel):
    city: str = Field(description="The city.")
    country: str | None = None


class Location(BaseModel):
    latitude: float = Field(ge=-90, le=90)
    longitude: float = Field(ge=-180, le=180)


class GetLocation(Tool):
    name = "get_location"
    description = "Ask the user's device where it is."
    input_schema = Place
    output_schema = Location
    client = True


@tool(client=True, timeout=30)
def pick_color(palette: Literal["warm", "cold"], count: int = 1) -> str:
    """Ask the user to pick colors from a palette.

    Args:
        palette: Which palette to show.
        count: How many colors to pick.
    """


confirm = Tool(name="confirm", description="Ask the user to confirm.", input_schema=Place, client=True)


@tool
def lookup_order(order_id: str) -> str:
    """Look up an order."""
    return f"order {order_id}: shipped"
