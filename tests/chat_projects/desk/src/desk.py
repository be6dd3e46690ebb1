"""A help desk whose tools cover what the chat tests need: a plain tool, a slow one, one that
raises, one that needs approval, a required one behind a condition, and a skill behind one."""

import asyncio
from typing import Annotated

from pydantic import Field

from skillc import Skill, ToolContext, tool

TICKETS = {"T-1": "open", "T-2": "closed"}


@tool
def lookup_ticket(ticket: Annotated[str, Field(pattern=r"^T-\d+$")]) -> dict[str, str]:
    """Look a ticket up by its id.

    Args:
        ticket: The ticket id, like T-1.
    """
    return {"ticket": ticket, "status": TICKETS.get(ticket, "unknown")}


@tool
async def wait(seconds: float) -> str:
    """Wait a while, then say how long.

    Args:
        seconds: How long to wait.
    """
    await asyncio.sleep(seconds)
    return f"waited {seconds}"


@tool
def explode() -> str:
    """Always fails."""
    raise RuntimeError("the desk is on fire")


@tool(needs_approval=True)
def close_ticket(ticket: str) -> str:
    """Close a ticket.

    Args:
        ticket: The ticket id.
    """
    return f"closed {ticket}"


def check_in_wanted() -> bool:
    return ToolContext.current().env.get("CHECK_IN") == "on"


@tool(required=True, condition=check_in_wanted)
def check_in(name: str) -> str:
    """Say who is at the desk; call it before anything else.

    Args:
        name: Who is at the desk.
    """
    return f"hello {name}"


def back_office_open() -> bool:
    return ToolContext.current().env.get("BACK_OFFICE") == "on"


@tool
def refund(ticket: str) -> str:
    """Refund the ticket's order.

    Args:
        ticket: The ticket id.
    """
    return f"refunded {ticket}"


front_desk = Skill(
    name="front_desk",
    description="Tickets.",
    context="Ticket ids look like T-1.",
    tools=[lookup_ticket, wait, explode, close_ticket, check_in],
)
back_office = Skill(
    name="back_office",
    description="Refunds.",
    context="Refunds are final.",
    tools=[refund],
    condition=back_office_open,
)
