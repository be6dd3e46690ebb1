from __future__ import annotations

import typing
from typing import TYPE_CHECKING

from skillc import tool

if TYPE_CHECKING:
    import requests  # for type checkers only: never imported, so never required

    from models import Order

if typing.TYPE_CHECKING:
    from boto3 import Session


def _describe(order: Order | None, session: Session | None, client: requests.Session | None) -> str:
    return "no order"


@tool
def lookup(order_id: str) -> str:
    """Look up an order."""
    if TYPE_CHECKING:
        import redis  # noqa: F401
    return f"{order_id}: {_describe(None, None, None)}"
