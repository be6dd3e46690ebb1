from skillc import Agent, Skill

from texts import ORDERS_DESCRIPTION
from texts.names import SKILL_NAME as ORDERS
from tools import Lookup, track

orders = Skill(name=ORDERS, description=ORDERS_DESCRIPTION, tools=[Lookup(), track])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
