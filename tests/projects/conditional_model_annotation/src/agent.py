import sys

from pydantic import BaseModel
from skillc import Agent, Skill, Tool

if sys.version_info >= (3, 12):
    Alias = int
else:
    Alias = str


class PingInput(BaseModel):
    host: Alias


class Ping(Tool):
    name = "ping"
    description = "Ping a host."
    input_schema = PingInput

    def execute(self, input: PingInput, ctx: object) -> str:
        return str(input.host)


agent = Agent(name="a", skills=[Skill(name="s", description="S.", tools=[Ping()])])
