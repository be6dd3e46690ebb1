from skillc import Agent, Skill

from tools import lookup, track

orders = Skill(name="orders", description="Orders.", tools=[lookup, track])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
