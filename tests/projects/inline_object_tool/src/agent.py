from pydantic import BaseModel
from skillc import Agent, Skill, Tool


class PingInput(BaseModel):
    message: str


def ping(input: PingInput, ctx: object) -> str:
    return "pong"


support = Skill(
    name="support",
    description="Support.",
    tools=[
        Tool(name="ping", description="Answer pong.", input_schema=PingInput, execute=ping),
    ],
)
agent = Agent(name="shop", persona="Helpful.", skills=[support])
