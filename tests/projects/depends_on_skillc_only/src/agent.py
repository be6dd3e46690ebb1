from skillc import Agent, Skill

from tools import Lookup

orders = Skill(name="orders", description="Orders.", tools=[Lookup()])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
