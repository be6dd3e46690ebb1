from skillc import Agent, Skill

from tools import GetLocation, confirm, lookup_order, pick_color

device = Skill(
    name="device",
    description="What the user's device knows.",
    tools=[GetLocation(), pick_color, confirm, lookup_order],
)
agent = Agent(name="shop", persona="You help.", skills=[device])
