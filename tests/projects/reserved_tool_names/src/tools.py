from pydantic import BaseModel
from skillc import Tool, tool


class PortInput(BaseModel):
    port: str


class Console(Tool):
    name = "con"
    description = "Open the console."
    input_schema = PortInput

    def execute(self, input: PortInput, ctx: object) -> str:
        return input.port


class Printer(Tool):
    name = "printer"
    description = "Not a device name: only whole names are reserved."
    input_schema = PortInput

    def execute(self, input: PortInput, ctx: object) -> str:
        return input.port


@tool
def aux(port: str) -> str:
    """The function's own name is the tool's name."""
    return port


nul = Tool(name="NUL", description="Discard.", input_schema=PortInput, execute=lambda input, ctx: "")


@tool
def com10(port: str) -> str:
    """COM1 to COM9 are reserved, COM10 is not."""
    return port


@tool
def lpt0(port: str) -> str:
    """LPT1 to LPT9 are reserved, LPT0 is not."""
    return port
