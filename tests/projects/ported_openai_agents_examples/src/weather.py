"""Function tools of the OpenAI Agents SDK's examples, ported to skillc.

From openai/openai-agents-python: examples/basic/tools.py (get_weather),
examples/agent_patterns/human_in_the_loop.py (get_temperature and its approval check) and
examples/customer_service/main.py (faq_lookup_tool).  Kept: the models, signatures,
docstrings and bodies.  Changed: ``agents.decorators.tool`` is ``skillc.tool``,
``name_override``/``description_override`` are ``name``/``description``, and the approval
check takes skillc's ``(input, ctx)`` instead of ``(ctx, params, call_id)``.
"""

from typing import Annotated

from pydantic import BaseModel, Field
from skillc import ToolContext, tool


class Weather(BaseModel):
    city: str = Field(description="The city name")
    temperature_range: str = Field(description="The temperature range in Celsius")
    conditions: str = Field(description="The weather conditions")


@tool
def get_weather(city: Annotated[str, "The city to get the weather for"]) -> Weather:
    """Get the current weather information for a specified city."""
    print("[debug] get_weather called")
    return Weather(city=city, temperature_range="14-20C", conditions="Sunny with wind.")


async def _needs_temperature_approval(input, ctx: ToolContext) -> bool:
    """Check if temperature tool needs approval."""
    return "Oakland" in input.city


@tool(
    # Dynamic approval: only require approval for Oakland
    needs_approval=_needs_temperature_approval
)
async def get_temperature(city: str) -> str:
    """Get the temperature for a given city.

    Args:
        city: The city to get temperature for.

    Returns:
        Temperature information for the city.
    """
    return f"The temperature in {city} is 20° Celsius"


@tool(name="faq_lookup_tool", description="Lookup frequently asked questions.")
async def faq_lookup_tool(question: str) -> str:
    question_lower = question.lower()
    if any(
        keyword in question_lower
        for keyword in ["bag", "baggage", "luggage", "carry-on", "hand luggage", "hand carry"]
    ):
        return (
            "You are allowed to bring one bag on the plane. "
            "It must be under 50 pounds and 22 inches x 14 inches x 9 inches."
        )
    elif any(keyword in question_lower for keyword in ["seat", "seats", "seating", "plane"]):
        return (
            "There are 120 seats on the plane. "
            "There are 22 business class seats and 98 economy seats. "
            "Exit rows are rows 4 and 16. "
            "Rows 5-8 are Economy Plus, with extra legroom. "
        )
    elif any(
        keyword in question_lower
        for keyword in ["wifi", "internet", "wireless", "connectivity", "network", "online"]
    ):
        return "We have free wifi on the plane, join Airline-Wifi"
    return "I'm sorry, I don't know the answer to that question."
