from skillc import Agent, Skill

from tools import Lookup


def build_agent() -> Agent:
    orders = Skill(name="orders", description="Orders.", tools=[Lookup()])
    return Agent(name="shop", persona="Helpful.", skills=[orders])
