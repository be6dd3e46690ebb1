from skillc import Agent, Skill

from catalog.tools import describe, greet

catalog = Skill(name="catalog", description="The catalog.", tools=[greet, describe])
agent = Agent(name="shop", persona="You know the catalog.", skills=[catalog])
