from skillc import Agent, Skill

from registry import default_cancel
from tools import lookup

orders = Skill(name="orders", description="Orders.", tools=[lookup, default_cancel])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
