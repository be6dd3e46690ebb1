from skillc import Agent, Skill

from tools import Lookup, track

orders = Skill(name="orders", description="Orders.", tools=[Lookup(), track])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
