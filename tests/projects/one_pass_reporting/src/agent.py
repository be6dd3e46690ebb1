from skillc import Agent, Skill

from fine import Export
from tools import Broken, Weird

orders = Skill(name="orders", description="Orders.", tools=[Broken(), Weird(), Export()])
agent = Agent(name="shop", persona="Helpful.", skills=[orders])
