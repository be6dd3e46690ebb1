from skillc import Agent, Skill

from orders.tools import Cancel, Lookup, Refund

orders = Skill(name="orders", description="Orders.", tools=[Lookup(), Cancel(), Refund()])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
