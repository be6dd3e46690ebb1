from pydantic import BaseModel
from skillc import Tool, tool


class Place(BaseModel):
    city: str


class GetLocation(Tool):
    name = "get_location"
    description = "Ask the user's device where it is."
    input_schema = Place
    client = True

    def condition(self):
        return True


def has_screen():
    return True


@tool(client=True, condition=has_screen)
def pick_color(palette: str) -> str:
    """Ask the user to pick a color."""
    ...


confirm = Tool(
    name="confirm", description="Ask the user to confirm.", input_schema=Place, client=True, condition=lambda: True
)
