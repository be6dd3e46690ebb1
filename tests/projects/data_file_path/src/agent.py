from skillc import Agent, Skill

from pricing.tools import price, rate_of

prices = Skill(name="prices", description="Prices of products.", tools=[price, rate_of])
agent = Agent(name="shop", persona="You quote prices.", skills=[prices])
