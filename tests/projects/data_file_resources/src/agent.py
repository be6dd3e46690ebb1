from skillc import Agent, Skill

from catalog.tools import count, describe, greet

catalog = Skill(name="catalog", description="The catalog.", tools=[greet, describe, count])
agent = Agent(name="shop", persona="You know the catalog.", skills=[catalog])
