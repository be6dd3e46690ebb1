def where(order_id: str) -> str:
    return order_id
