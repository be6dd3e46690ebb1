from skillc import Agent, Skill

from tools import lookup

orders = Skill(name="orders", description="Orders.", tools=[lookup])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
