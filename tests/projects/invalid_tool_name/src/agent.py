from skillc import Agent, Skill

from tools import Lookup, find_order, track

orders = Skill(name="orders", description="Orders.", tools=[Lookup(), find_order, track])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
