from skillc import Agent, Skill

from tools import greet, shout

orders = Skill(name="orders", description="Orders.", tools=[greet, shout])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
