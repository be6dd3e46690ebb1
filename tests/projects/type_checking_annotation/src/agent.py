from skillc import Agent, Skill

from tools import lookup

agent = Agent(name="shop", skills=[Skill(name="orders", description="Orders.", tools=[lookup])])
