from skillc import Agent, Skill

from deferred import depth
from quoted import total

trees = Skill(name="trees", description="Trees.", tools=[depth, total])
agent = Agent(name="forest", persona="You measure trees.", skills=[trees])
