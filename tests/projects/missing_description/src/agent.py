from skillc import Agent, Skill

from tools import Lookup, cancel, track

orders = Skill(name="orders", description="Orders.", tools=[Lookup(), cancel, track])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
