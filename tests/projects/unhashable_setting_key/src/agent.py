from pydantic import BaseModel
from skillc import Agent, Skill, Tool


class PingInput(BaseModel):
    host: str


class Ping(Tool):
    name = "ping"
    description = "Ping a host."
    input_schema = PingInput
    metadata = {[1]: 2}

    def execute(self, input: PingInput, ctx: object) -> str:
        return input.host


agent = Agent(name="a", skills=[Skill(name="s", description="S.", tools=[Ping()])])
