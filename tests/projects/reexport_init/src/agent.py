from skillc import Agent

from skills import orders

agent = Agent(name="shop", persona="Helpful.", skills=[orders])
