from skillc import Agent, Skill

from tools import Lookup, cancel

orders = Skill(name="orders", description="Orders.", tools=[Lookup(), cancel])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
