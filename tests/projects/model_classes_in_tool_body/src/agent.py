from skillc import Agent, Skill

from orders import Lookup

agent = Agent(name="orders", skills=[Skill(name="orders", tools=[Lookup()])])
