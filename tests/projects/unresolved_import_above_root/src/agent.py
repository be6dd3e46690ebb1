from skillc import Agent

from . import settings
from skills.orders import orders

agent = Agent(name="shop", persona="Helpful.", skills=[orders])
