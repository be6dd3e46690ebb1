from pathlib import Path

from skillc import Agent, Skill

from tools import Lookup, track

HERE = Path(__file__).parent

orders = Skill(
    name="orders",
    description=(HERE / "orders.md").read_text(),
    tools=[Lookup(), track],
)
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
