from skillc import Agent, Skill

from shrimp import Feed, name_shrimp

agent = Agent(name="shrimp_tank", skills=[Skill(name="tank", tools=[name_shrimp, Feed()])])
