from typing import Any

from pydantic import BaseModel

from skillc import Tool, ToolContext


class Address(BaseModel):
    city: str
    zip_code: str | None = None
    floor: int = 0


class StrictInput(BaseModel):
    name: str
    middle: str | None
    nickname: str | None = None
    count: int = 3
    address: Address | None = None
    history: list[Address] = []


class StrictTool(Tool):
    name = "strict_tool"
    description = "A strict tool with optional fields."
    input_schema = StrictInput
    strict = True

    def execute(self, input: StrictInput, ctx: ToolContext) -> dict[str, Any]:
        return input.model_dump()
