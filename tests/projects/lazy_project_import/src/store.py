def where(order_id: str) -> str:
    return f"{order_id} is in transit"
