from skillc import Agent, Skill

from returns import returns
from tools import orders, track_parcel

shipping = Skill(description="Shipping.", tools=[track_parcel])
agent = Agent(name="shop", persona="Helpful.", skills=[orders, returns, shipping])
