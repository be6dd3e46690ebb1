from typing import Annotated, Literal

from pydantic import Field
from skillc import Tool, tool

from models import BookingInput


class Book(Tool):
    name = "book"
    description = "Book a trip."
    input_schema = BookingInput

    def execute(self, input, ctx):
        return f"{input.traveller}: {input.trip.mode} to {input.code}, {input.nights} nights, row {input.seat.row if input.seat else '-'}"


@tool
def forecast(
    city: Annotated[str, "The city"],
    days: Annotated[int, "How many days", Field(ge=1, le=7)] = 1,
    unit: Literal["c", "f"] = "c",
) -> str:
    """The weather forecast for a city.

    Args:
        unit: Celsius or Fahrenheit.
    """
    return f"{city}: sunny for {days} day(s), 21 {unit.upper()}"
