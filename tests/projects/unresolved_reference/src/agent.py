from skillc import Agent, Skill

from tools import Formatter, Lookup, format_order

orders = Skill(
    name="orders",
    description="Orders.",
    tools=[Lookup(), format_order, Formatter()],
)
support = Skill(name="support", description="Support.", tools=[Lookup])
agent = Agent(name="shop", persona="Helpful.", skills=[orders, support, "billing"])
