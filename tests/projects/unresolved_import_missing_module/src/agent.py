from skillc import Agent, Skill

from skills.orders import Lookup
from skills.billing import Refund

orders = Skill(name="orders", description="Orders.", tools=[Lookup()])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
