from skillc import tool

from . import common


@tool
def lookup(order_id: str) -> str:
    """Look up an order."""
    return f"{common.PREFIX} {order_id}: shipped"
