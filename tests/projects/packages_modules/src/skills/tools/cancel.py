from skillc import tool


@tool(needs_approval=True)
def cancel_order(order_id: str) -> str:
    """Cancel an order that has not shipped."""
    return order_id
