"""Tools with a 1 s timeout whose code does not give the event loop back, or will not stop."""

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

from pydantic import BaseModel, model_serializer, model_validator

from skillc import Skill, Tool, tool


@tool(timeout=1)
async def blocks_the_loop(seconds: float) -> str:
    """Call time.sleep inside async def: the event loop is blocked."""
    time.sleep(seconds)
    return "slept"


@tool(timeout=1)
async def spins(seconds: float) -> str:
    """Spin in pure Python inside async def, never awaiting."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return "spun"


@tool(timeout=1)
async def swallows_cancellation(seconds: float) -> str:
    """Catch the cancellation at the deadline and keep waiting."""
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        await asyncio.sleep(seconds)
    return "swallowed"


@tool(timeout=1)
async def sleeps_politely(seconds: float) -> str:
    """Await asyncio.sleep: the well-behaved case."""
    await asyncio.sleep(seconds)
    return "awake"


@tool(timeout=1)
async def refuses_to_stop(seconds: float) -> str:
    """Catch every interruption and keep blocking the loop."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            time.sleep(0.05)
        except BaseException:
            pass
    return "stubborn"


@tool(timeout=0.5, retries=2)
async def retried_after_errors_only(seconds: float) -> str:
    """Not said to be idempotent: retried after it raises, not after it times out."""
    if seconds < 0:
        raise ValueError("negative")
    await asyncio.sleep(seconds)
    return "done"


@tool(timeout=0.5, retries=2, idempotent=True)
async def retried_after_timeouts(seconds: float) -> str:
    """Idempotent: retried after timeouts too."""
    await asyncio.sleep(seconds)
    return "done"


@tool(timeout=0.5, retries=2, idempotent=False)
async def never_retried(seconds: float) -> str:
    """Not idempotent: never retried."""
    raise ValueError("refused")


class SlowInput(BaseModel):
    seconds: float

    @model_validator(mode="after")
    def take_time(self) -> "SlowInput":
        time.sleep(self.seconds)
        return self


class SlowValidator(Tool):
    name = "slow_validator"
    description = "Its input model's validator blocks."
    input_schema = SlowInput
    timeout = 1

    async def execute(self, input: SlowInput, ctx) -> str:
        return "validated"


class BlockingCondition(Tool):
    name = "blocking_condition"
    description = "Its async condition blocks the loop."
    input_schema = SlowInput
    timeout = 1

    async def condition(self) -> bool:
        time.sleep(30)
        return True

    async def execute(self, input: SlowInput, ctx) -> str:
        return "offered"


class Seconds(BaseModel):
    seconds: float


class Late(BaseModel):
    """A result whose serializer takes the time it was given."""

    seconds: float

    @model_serializer
    def take_time(self) -> dict[str, float]:
        time.sleep(self.seconds)
        return {"seconds": self.seconds}


class SlowResult(Tool):
    """Its result's serializer blocks: the serialization's own deadline stops it."""

    name = "slow_result"
    description = "Its result takes as long to serialize as it is asked to."
    input_schema = Seconds
    timeout = 1

    async def execute(self, input: Seconds, ctx) -> Late:
        return Late(seconds=input.seconds)


class SlowResultSync(SlowResult):
    """The same with a sync ``execute``: run in a worker, serialized on the caller's thread."""

    name = "slow_result_sync"

    def execute(self, input: Seconds, ctx) -> Late:
        return Late(seconds=input.seconds)


@tool(timeout=1)
async def each_phase_in_time(seconds: float, awaits: bool) -> Late:
    """Takes ``seconds`` to run and as long again to serialize: each within its own deadline."""
    if awaits:
        await asyncio.sleep(seconds)
    else:
        time.sleep(seconds)
    return Late(seconds=seconds)


@tool(timeout=1)
def waits_on_its_own_thread(seconds: float) -> str:
    """A sync tool blocked on a thread of its own, where no interruption reaches (smolagents' timeout())."""
    with ThreadPoolExecutor(1) as executor:
        return str(executor.submit(time.sleep, seconds).result())


deadlines = Skill(
    name="deadlines",
    description="Tools that ignore their deadline.",
    context="Deadline context.",
    tools=[
        blocks_the_loop,
        spins,
        swallows_cancellation,
        sleeps_politely,
        refuses_to_stop,
        retried_after_errors_only,
        retried_after_timeouts,
        never_retried,
        SlowValidator(),
        BlockingCondition(),
        SlowResult(),
        SlowResultSync(),
        each_phase_in_time,
        waits_on_its_own_thread,
    ],
)
