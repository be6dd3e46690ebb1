from skillc import Agent, Skill

from tools import render

orders = Skill(name="orders", description="Orders.", tools=[render])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
