from skillc import Agent

from skills.orders import orders

agent = Agent(name="shop", persona="Helpful.", skills=[orders])
