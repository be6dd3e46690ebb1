from skillc import Agent, Skill

from tools import Lookup, track

SKILL_NAME = "orders"
SKILL_DESCRIPTION = "Look up and track orders."
PERSONA = "You help customers with their orders."

orders = Skill(name=SKILL_NAME, description=SKILL_DESCRIPTION, tools=[Lookup(), track])
agent = Agent(name="shop", persona=PERSONA, skills=[orders])
