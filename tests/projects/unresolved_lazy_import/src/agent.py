from skillc import Agent, Skill

from tools import status

orders = Skill(name="orders", description="Orders.", tools=[status])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
