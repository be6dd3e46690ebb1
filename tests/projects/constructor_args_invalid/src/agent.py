from skillc import Agent, Skill

from tools import Lookup

DATABASE_URL = "sqlite:///orders.db"

orders = Skill(
    name="orders",
    description="Orders.",
    tools=[Lookup(DATABASE_URL, timeout=5)],
)
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
