from skillc import Agent, Skill

from tools import GetOrder, Lookup

orders = Skill(name="orders", description="Orders.", tools=[Lookup(), GetOrder])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
