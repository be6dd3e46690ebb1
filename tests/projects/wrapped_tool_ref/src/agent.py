from skillc import Agent, Skill

from tools import Lookup
from vendor_tools import web_search


def as_skill_tool(entry: object) -> object:
    return entry


orders = Skill(
    name="orders",
    description="Orders.",
    tools=[Lookup(), as_skill_tool(web_search)],
)
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
