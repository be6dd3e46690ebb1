import asyncio

from pydantic import BaseModel, Field
from skillc import Tool, ToolContext, tool


@tool(title="Add two numbers", read_only=True, idempotent=True, open_world=False)
def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


class LookupOrderInput(BaseModel):
    order_id: str = Field(pattern=r"^A\d{4}$", description="The order id, like A1001.")


class Order(BaseModel):
    order_id: str
    status: str


class LookupOrder(Tool):
    name = "lookup_order"
    description = "Look up an order by its id."
    input_schema = LookupOrderInput
    output_schema = Order
    read_only = True

    async def execute(self, input: LookupOrderInput, ctx: ToolContext) -> Order:
        return Order(order_id=input.order_id, status="shipped")


@tool
def explode(reason: str = "boom") -> str:
    """Fail on purpose."""
    raise RuntimeError(f"the tool broke: {reason}")


@tool(timeout=0.3)
async def slow(seconds: float = 30.0) -> str:
    """Sleep far longer than the tool's timeout."""
    await asyncio.sleep(seconds)
    return "woke up"


@tool(needs_approval=True)
def cancel_order(order_id: str) -> str:
    """Cancel an order that has not shipped."""
    return f"cancelled {order_id}"


@tool
def chatty(text: str) -> str:
    """Print to standard output, then answer."""
    print("this must not reach the protocol's stream")
    return text.upper()
