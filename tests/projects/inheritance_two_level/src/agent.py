from skillc import Agent, Skill

from tools import Cancel, Lookup

orders = Skill(name="orders", description="Orders.", tools=[Lookup(), Cancel()])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
