from skillc import Agent, Skill

from tools import Lookup, track

orders = Skill(name="orders", description="Orders.", tools=[Lookup(), track])
support = Skill(description="Support.", tools=[track])
agent = Agent(name="shop", persona="Helpful.", skills=[orders, support])
