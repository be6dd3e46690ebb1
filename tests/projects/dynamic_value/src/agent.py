from pathlib import Path

from skillc import Agent, Skill

from tools import Lookup, track

HERE = Path(__file__).parent


def discover_tools() -> list[object]:
    return []


orders = Skill(
    name="orders",
    description=(HERE / "orders.md").read_text(),
    tools=[Lookup(), track],
)
billing = Skill(name="billing", description="Invoices.", tools=discover_tools())
agent = Agent(name="shop", persona="Helpful.", skills=[orders, billing])
