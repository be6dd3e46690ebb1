from skillc import Agent, Skill

from skills.billing import billing
from tools import Lookup, format_order

orders = Skill(name="orders", description="Orders.", tools=[Lookup("db"), format_order])
agent = Agent(name="shop", persona="Helpful.", skills=[orders, billing])
