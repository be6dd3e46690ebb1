"""An airline desk that keeps the passenger's seat in ``ctx.state``, as the OpenAI Agents SDK's
customer-service example keeps it in its context; and tools that count, concurrently, in it."""

import asyncio
import datetime
import time
from typing import Annotated

from pydantic import Field

from skillc import Skill, ToolContext, tool


@tool
def update_seat(
    ctx: ToolContext,
    confirmation_number: Annotated[str, Field(pattern=r"^[A-Z0-9]{6}$")],
    new_seat: Annotated[str, Field(pattern=r"^\d{1,2}[A-F]$")],
) -> str:
    """Move the passenger to another seat.

    Args:
        confirmation_number: The booking's confirmation number, like ABC123.
        new_seat: The seat to move to, like 14C.
    """
    old = ctx.state.get("seat")
    ctx.state.update(confirmation_number=confirmation_number, seat=new_seat)
    return f"Moved {confirmation_number} from {old or 'no seat'} to {new_seat}."


@tool
def current_seat(ctx: ToolContext) -> dict[str, str | None]:
    """Say which seat the passenger has."""
    return {"confirmation_number": ctx.state.get("confirmation_number"), "seat": ctx.state.get("seat")}


def seat_known() -> bool:
    return "seat" in ToolContext.current().state


@tool(condition=seat_known)
def order_meal(ctx: ToolContext, meal: str) -> str:
    """Order a meal to the passenger's seat (offered once the seat is known).

    Args:
        meal: What to eat.
    """
    return f"{meal} to seat {ctx.state['seat']}"


@tool
def bump(ctx: ToolContext) -> int:
    """Add one to the counter, slowly, in a worker thread."""
    with ctx.state.edit() as state:
        seen = state.get("count", 0)
        time.sleep(0.05)  # another call that read the counter now would lose this update
        state["count"] = seen + 1
    return seen + 1


@tool
async def bump_async(ctx: ToolContext) -> int:
    """Add one to the counter, on the event loop."""
    await asyncio.sleep(0.01)
    with ctx.state.edit() as state:
        state["count"] = state.get("count", 0) + 1
        return int(state["count"])


@tool
def remember_date(ctx: ToolContext) -> str:
    """Keep a date in the state, which only holds JSON."""
    ctx.state["when"] = datetime.date(2026, 5, 1)
    return "kept"


@tool
def remember_much(ctx: ToolContext, kib: int) -> str:
    """Keep a text of this many KiB in the state.

    Args:
        kib: How large, in KiB.
    """
    ctx.state["notes"] = "x" * (kib * 1024)
    return "kept"


seats = Skill(
    name="seats",
    description="Seats and meals.",
    context="Seats look like 14C; confirmation numbers like ABC123.",
    tools=[update_seat, current_seat, order_meal, bump, bump_async, remember_date, remember_much],
)
