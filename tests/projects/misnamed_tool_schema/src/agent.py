from skillc import Agent, Skill

from tools import First, Second, Spaced

orders = Skill(name="orders", description="Orders.", tools=[Spaced(), First(), Second()])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
