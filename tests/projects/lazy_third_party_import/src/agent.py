from skillc import Agent, Skill

from fetch import fetch
from post import post

web = Skill(name="web", description="The web.", tools=[fetch, post])
agent = Agent(name="browser", persona="Helpful.", skills=[web])
