"""FastMCP's complex inputs example, ported: a model whose field type is defined in its body."""

from typing import Annotated

from pydantic import BaseModel, Field

from skillc import Tool, tool


class ShrimpTank(BaseModel):
    class Shrimp(BaseModel):
        name: Annotated[str, Field(max_length=10)]

    shrimp: list[Shrimp]


@tool
def name_shrimp(
    tank: ShrimpTank,
    # You can use pydantic Field in function signatures for validation.
    extra_names: Annotated[list[str], Field(max_length=10)],
) -> list[str]:
    """List all shrimp names in the tank"""
    return [shrimp.name for shrimp in tank.shrimp] + extra_names


class Feed(Tool):
    name = "feed_shrimp"
    description = "Feed one shrimp."
    input_schema = ShrimpTank.Shrimp

    def execute(self, input: ShrimpTank.Shrimp, ctx) -> str:
        return f"{input.name} is fed"
