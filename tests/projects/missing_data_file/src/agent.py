from skillc import Agent, Skill

from shop.tools import lookup

shop = Skill(name="shop", description="The shop.", tools=[lookup])
agent = Agent(name="shop", persona="You run the shop.", skills=[shop])
