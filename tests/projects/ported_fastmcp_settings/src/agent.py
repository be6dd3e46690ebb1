"""FastMCP's text_me and smart_home examples, ported: settings that pydantic-settings reads."""

from skillc import Agent, Skill

from home.tools import bridge_address, request_timeout
from home.user import bridge_user
from textme.tools import text_me

agent = Agent(
    name="textme",
    skills=[
        Skill(name="texts", description="Send texts.", tools=[text_me]),
        Skill(name="home", description="The smart home.", tools=[bridge_address, request_timeout, bridge_user]),
    ],
)
