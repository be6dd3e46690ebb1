"""The shop's orders. A real project would call its order service here."""

from __future__ import annotations

from typing import TypedDict


class Order(TypedDict):
    """One order as the order service returns it."""

    order_id: str
    status: str
    total_eur: float
    delivery_date: str
    items: list[str]


ORDERS: dict[str, Order] = {
    "A1001": {
        "order_id": "A1001",
        "status": "shipped",
        "total_eur": 42.5,
        "delivery_date": "2026-12-03",
        "items": ["kettle", "tea sampler"],
    },
    "A1002": {
        "order_id": "A1002",
        "status": "processing",
        "total_eur": 18.0,
        "delivery_date": "2026-12-08",
        "items": ["notebook"],
    },
}


def find_order(order_id: str) -> Order:
    """Return the order, or raise ``LookupError`` (the model sees the message)."""
    try:
        return ORDERS[order_id]
    except KeyError:
        raise LookupError(f"There is no order {order_id}.") from None
