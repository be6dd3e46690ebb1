from skillc import Agent, Skill

from tools import Lookup, cancel_order, shipping_quote

orders = Skill(
    name="orders",
    description="Look up and cancel orders.",
    context="Order ids look like A1001.",
    tools=[Lookup(), cancel_order, shipping_quote],
)
agent = Agent(name="shop", persona="You help customers with their orders.", skills=[orders])
