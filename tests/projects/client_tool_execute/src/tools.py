from pydantic import BaseModel
from skillc import Tool, tool


class Place(BaseModel):
    city: str


class GetLocation(Tool):
    name = "get_location"
    description = "Ask the user's device where it is."
    input_schema = Place
    client = True

    def execute(self, input, ctx):
        return {"latitude": 0}


@tool(client=True)
def pick_color(palette: str) -> str:
    """Ask the user to pick a color."""
    return "red"


def ask(input, ctx):
    return True


confirm = Tool(name="confirm", description="Ask the user to confirm.", input_schema=Place, client=True, execute=ask)


@tool(client=True, needs_approval=lambda input, ctx: True)
def remember(note: str) -> str:
    """Ask the user to remember a note."""
    ...
