from skillc import tool


@tool
def status(order_id: str) -> str:
    """Say where an order is."""
    from store import where, when  # 'when' does not exist: the call would fail
    import stock.levels  # no such module

    return where(order_id) + when(order_id) + stock.levels.LOW
