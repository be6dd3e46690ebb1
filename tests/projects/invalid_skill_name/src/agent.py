from skillc import Agent, Skill

from tools import Lookup

orders = Skill(name="my orders", description="Orders.", tools=[Lookup()])
agent = Agent(name="shop/v2", persona="Helpful.", skills=[orders])
