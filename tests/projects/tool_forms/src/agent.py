from skillc import Agent, Skill

from tools import Lookup, cancel_order, refund, search, track

orders = Skill(
    name="orders",
    description="Orders.",
    tools=[Lookup(), cancel_order, search, refund, track],
)
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
