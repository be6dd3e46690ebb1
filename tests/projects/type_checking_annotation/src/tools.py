from __future__ import annotations

from typing import TYPE_CHECKING

from skillc import tool

if TYPE_CHECKING:
    from models import Order


@tool
def lookup(order: Order) -> str:
    """Look an order up."""
    return order.order_id
