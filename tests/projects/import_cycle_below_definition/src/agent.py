from skillc import Agent, Skill

from shop import Lookup

orders = Skill(name="orders", description="Orders.", tools=[Lookup()])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
