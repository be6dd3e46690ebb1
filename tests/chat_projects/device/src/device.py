"""Client-side tools (TanStack AI's client tools): the result comes from the user's device, in each form."""

from typing import Literal

from pydantic import BaseModel, Field
from skillc import Skill, Tool, tool


class Place(BaseModel):
    city: str = Field(description="The city the user is asked about.")
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


@tool(client=True, timeout=3)
def pick_color(palette: Literal["warm", "cold"], count: int = 1) -> str:
    """Ask the user to pick colors from a palette."""
    ...


confirm = Tool(name="confirm", description="Ask the user to confirm a booking.", input_schema=Place, client=True)


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


device = Skill(
    name="device",
    description="The user's device.",
    context="Ask the device before guessing.",
    tools=[GetLocation(), pick_color, confirm, weather],
)
