from skillc import Agent, Skill

from tools import Lookup, status

orders = Skill(name="orders", description="Orders.", tools=[Lookup(), status])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
