from typing import Any

from pydantic import BaseModel, Field

from skillc import Tool, ToolContext, tool


class Item(BaseModel):
    name: str
    quantity: int = Field(default=1, ge=1)


class EchoInput(BaseModel):
    text: str = Field(max_length=1000)
    times: int = Field(default=1, ge=1, le=5)
    items: list[Item] = []


class Echo(Tool):
    name = "echo"
    description = "Echo the text."
    input_schema = EchoInput
    timeout = 5

    async def execute(self, input: EchoInput, ctx: ToolContext) -> dict[str, Any]:
        return {"text": input.text * input.times, "items": [item.name for item in input.items]}


@tool(timeout=5)
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def ctx_echo(ctx: ToolContext) -> dict[str, Any]:
    """Say what the context holds."""
    return {
        "call_id": ctx.call_id,
        "tool": ctx.tool,
        "skill": ctx.skill,
        "environment": ctx.environment,
        "greeting": ctx.env.get("GREETING"),
        "current": ToolContext.current() is ctx,
    }


def run_raw(input: Any, ctx: ToolContext) -> dict[str, Any]:
    return {"type": type(input).__name__, "keys": sorted(input)}


raw = Tool(name="raw", description="Take anything.", execute=run_raw)
