from pydantic import BaseModel
from skillc import Tool, ToolContext, tool


class Amount(BaseModel):
    amount: float


def large(input: Amount, ctx: ToolContext) -> bool:
    return input.amount > 100


class Refund(Tool):
    name = "refund"
    description = """
        Refund an amount.

        Large refunds need a person's approval.
    """
    input_schema = Amount

    def needs_approval(self, input: Amount, ctx: ToolContext) -> bool:
        return input.amount > 100

    def execute(self, input: Amount, ctx: ToolContext) -> str:
        return f"refunded {input.amount:g}"


@tool(needs_approval=large)
def transfer(amount: float) -> str:
    """Transfer an amount."""
    return f"transferred {amount:g}"


def broken(input: Amount, ctx: ToolContext) -> bool:
    raise RuntimeError("the risk service is down")


wire = Tool(
    name="wire",
    description="Wire an amount.",
    input_schema=Amount,
    needs_approval=broken,
    execute=lambda input, ctx: f"wired {input.amount:g}",
)
