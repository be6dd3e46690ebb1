from pydantic import BaseModel
from skillc import Tool, ToolContext, ToolFlag, tool


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput
    voice = ToolFlag.IGNORE_ON_ENTER | ToolFlag.DISALLOW_INTERRUPTION

    def condition(self) -> bool:
        return ToolContext.current().env.get("ORDERS") != "off"

    async def execute(self, input: LookupInput, ctx: ToolContext) -> str:
        return input.order_id


@tool
def cancel_order(order_id: str, reason: str = "") -> str:
    """Cancel an order that has not shipped."""
    return order_id


@tool(name="find_order", timeout=5, retries=2)
async def search(query: str) -> list[str]:
    """Find orders matching a query."""
    return [query]


@tool()
def refund(order_id: str) -> str:
    """Refund an order."""
    return order_id


def run_track(input: LookupInput, ctx: ToolContext) -> str:
    return "in transit"


track = Tool(
    name="track",
    description="Track a parcel.",
    input_schema=LookupInput,
    execute=run_track,
    required=True,
    condition=lambda: True,
)
