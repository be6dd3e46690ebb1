from skillc import Agent

from skills.billing import billing
from skills.orders import orders

agent = Agent(name="shop", persona="Helpful.", skills=[orders, billing])
