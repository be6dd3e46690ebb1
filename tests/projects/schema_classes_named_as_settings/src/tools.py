"""Tool classes whose bodies define their models under the settings' own names, as smolagents-style code does."""

from pydantic import BaseModel, Field

from skillc import Tool


class Interp(Tool):
    name = "interp"
    description = "Run code."

    class input_schema(BaseModel):
        code: str = Field(description="The code.")

    class output_schema(BaseModel):
        result: str

    def execute(self, input, ctx):
        return self.output_schema(result=input.code.upper())


class Shout(Interp):
    """Inherits both classes."""

    name = "shout"


class Plain(Tool):
    """An assignment after the class wins, as in Python."""

    name = "plain"
    description = "Echo."

    class input_schema(BaseModel):
        ignored: int

    class Text(BaseModel):
        text: str

    input_schema = Text

    def execute(self, input, ctx):
        return input.text
