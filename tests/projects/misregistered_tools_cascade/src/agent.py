from skillc import Agent, Skill

from tools import Lookup, cancel


def logged(entry: object) -> object:
    return entry


orders = Skill(name="orders", description="Orders.", tools=[Lookup, logged(cancel)])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
