import asyncio
import time

from pydantic import BaseModel

from skillc import Tool, ToolContext, tool


class NoInput(BaseModel):
    pass


class Base(Tool):
    description = "A tool with a condition."
    input_schema = NoInput

    def execute(self, input: NoInput, ctx: ToolContext) -> str:
        return self.name


@tool
def always() -> str:
    """Offered on every turn."""
    return "always"


class Yes(Base):
    name = "yes"

    def condition(self) -> bool:
        return True


class AsyncYes(Base):
    name = "async_yes"

    async def condition(self) -> bool:
        await asyncio.sleep(0)
        return True


class No(Base):
    name = "no"

    def condition(self) -> bool:
        return False


class Broken(Base):
    name = "broken"

    def condition(self) -> bool:
        raise RuntimeError("the flag service is down")


class Hangs(Base):
    name = "hangs"

    def condition(self) -> bool:
        time.sleep(2)
        return True


class AsyncHangs(Base):
    name = "async_hangs"

    async def condition(self) -> bool:
        await asyncio.sleep(60)
        return True


class NotBool(Base):
    name = "not_bool"

    def condition(self) -> bool:
        return None  # type: ignore[return-value]


class EnvGate(Base):
    name = "env_gate"

    def condition(self) -> bool:
        context = ToolContext.current()
        return context.tool == "env_gate" and context.env.get("FEATURE") == "on"


class GatedTool(Base):
    name = "gated_tool"


yes = Yes()
async_yes = AsyncYes()
no = No()
broken = Broken()
hangs = Hangs()
async_hangs = AsyncHangs()
not_bool = NotBool()
env_gate = EnvGate()
gated_tool = GatedTool()
