import asyncio
import time

from skillc import ToolContext, tool

from store import ATTEMPTS


@tool(retries=1)
def always_fails(reason: str) -> str:
    """Fail, every time."""
    raise ValueError(f"it failed: {reason}")


@tool(retries=2)
def flaky(key: str, ctx: ToolContext) -> dict[str, int]:
    """Fail twice for each call, then succeed."""
    ATTEMPTS[ctx.call_id] = ATTEMPTS.get(ctx.call_id, 0) + 1
    if ATTEMPTS[ctx.call_id] < 3:
        raise ConnectionError("try again")
    return {"attempts": ATTEMPTS[ctx.call_id]}


@tool(timeout=0.3, retries=1, idempotent=True)
async def slow_async(seconds: float) -> str:
    """Sleep on the event loop."""
    await asyncio.sleep(seconds)
    return "awake"


@tool(timeout=0.3)
def slow_sync(seconds: float) -> str:
    """Sleep in a thread."""
    time.sleep(seconds)
    return "awake"
