from skillc import tool


@tool
def cancel(order_id: str) -> str:
    """Cancel an order."""
    return order_id
