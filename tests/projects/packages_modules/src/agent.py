from skillc import Agent

from skills.billing import billing
from skills.orders import orders

agent = Agent(name="shop", persona="You help customers.", skills=[orders, billing])
