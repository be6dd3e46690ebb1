"""Function tools under project decorators, in the orders that keep the tool."""

from __future__ import annotations

from decorators import register, retry, timed

from skillc import ToolContext, tool

ATTEMPTS: dict[str, int] = {}


@tool
@timed
def lookup(order_id: str, *, ctx: ToolContext) -> dict[str, str]:
    """Look up an order.

    Args:
        order_id: The order id, like A1001.
    """
    return {"order_id": order_id, "status": "shipped"}


@tool(timeout=5)
@retry(3)
def flaky_quote(weight_kg: float) -> str:
    """Quote shipping; fails twice, then answers."""
    ATTEMPTS["quote"] = ATTEMPTS.get("quote", 0) + 1
    if ATTEMPTS["quote"] % 3:
        raise ValueError("busy")
    return f"{4 + weight_kg:.2f} EUR"


@register
@tool
def cancel(order_id: str) -> str:
    """Cancel an order."""
    return f"{order_id} cancelled"
