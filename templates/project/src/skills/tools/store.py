"""The shop's orders, kept in ctx.data (collection "orders").

The first time a tool needs them in an environment whose store holds no orders yet, the
sample orders of data/orders.json are imported; `skill data import orders
src/skills/tools/data/orders.json` does the same by hand, and `skill data find orders`
shows what the store holds. A real project would call its order service here, or keep
its own documents in ctx.data the same way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillc import ToolContext
from skillc.runtime.data import Collection

#: The sample orders, bundled with the tools that use them.
SEED = Path(__file__).parent / "data" / "orders.json"


def _seed() -> list[dict[str, Any]]:
    orders: list[dict[str, Any]] = json.loads(SEED.read_text(encoding="utf-8"))
    return orders


def orders(ctx: ToolContext) -> Collection[dict[str, Any]]:
    """The orders collection of the call's environment, with the sample orders in it if it was empty."""
    collection = ctx.data["orders"]
    if collection.count() == 0:
        collection.insert_many(_seed(), if_exists="skip")  # another call may be seeding it right now
    return collection


async def aorders(ctx: ToolContext) -> Collection[dict[str, Any]]:
    """``orders`` for async tools: the same, without blocking the event loop."""
    collection = ctx.data["orders"]
    if await collection.acount() == 0:
        await collection.ainsert_many(_seed(), if_exists="skip")
    return collection


def no_such_order(order_id: str) -> LookupError:
    """What a tool raises for an unknown id (the model sees the message)."""
    return LookupError(f"There is no order {order_id}.")
