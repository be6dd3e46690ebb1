from skillc import Agent

from returns import returns
from tools import orders

agent = Agent(name="shop", persona="Helpful.", skills=[orders, returns])
