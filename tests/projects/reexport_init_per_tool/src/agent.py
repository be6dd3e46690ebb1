from skillc import Agent, Skill

from tools import lookup, weather

orders = Skill(name="orders", description="Orders.", tools=[lookup, weather])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
