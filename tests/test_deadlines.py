"""A tool's timeout holds when its code misbehaves: it blocks the loop, spins, swallows its
cancellation, blocks in a validator or a condition, or catches every interruption.

Each tool of ``tests/runtime_projects/deadlines`` has ``timeout = 1`` and is asked to
take 30 s; the caller must have its ``timeout`` result long before that (the bounds
below are generous: they tell "stopped at the deadline" from "ran to its end").
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import RunSkill
from runtime_support import compile_case, run
from skillc.runtime.context import ToolContext
from skillc.runtime.loader import Runtime, load_dist
from skillc.runtime.results import ToolResult

ASKED = 30.0  # what each tool is asked to take
BOUND = 12.0  # well past the 1 s deadline, well short of what was asked


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_case("deadlines", tmp_path_factory.mktemp("deadlines"))


@pytest.fixture
def runtime(dist: Path) -> Iterator[Runtime]:
    with load_dist(dist, condition_timeout=1.0) as loaded:
        yield loaded


def arguments(seconds: float = ASKED) -> str:
    return json.dumps({"seconds": seconds})


@pytest.mark.parametrize(
    ("tool", "error_type", "output"),
    [
        ("blocks_the_loop", "timeout", "The tool did not finish within 1 s."),
        ("spins", "timeout", "The tool did not finish within 1 s."),
        ("swallows_cancellation", "timeout", "The tool did not finish within 1 s."),
        ("sleeps_politely", "timeout", "The tool did not finish within 1 s."),
        ("slow_validator", "timeout", "Validating the arguments took longer than 1 s."),
        ("slow_result", "serialization", "Serializing the tool's result took longer than 1 s."),
        ("slow_result_sync", "serialization", "Serializing the tool's result took longer than 1 s."),
    ],
)
def test_skill_test_gets_a_timeout_at_the_deadline(
    skill: RunSkill, dist: Path, tool: str, error_type: str, output: str
) -> None:
    started = time.monotonic()
    result = skill("test", "--name", tool, "--input", arguments(), "--json", cwd=dist.parent)
    elapsed = time.monotonic() - started
    assert result.code == 1, result.stderr
    document = json.loads(result.stdout)
    assert (document["is_error"], document["error_type"], document["output"]) == (True, error_type, output)
    assert elapsed < BOUND
    assert "Traceback" not in result.stderr


def test_code_that_catches_every_interruption_ends_the_command(skill: RunSkill, dist: Path) -> None:
    started = time.monotonic()
    result = skill("test", "--name", "refuses_to_stop", "--input", arguments(), "--json", cwd=dist.parent)
    elapsed = time.monotonic() - started
    assert result.code == 1
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        "error: tool 'refuses_to_stop' ignores its deadline: it is still running 2 s past it and catches every "
        "interruption, so skill stops here."
    ]
    assert elapsed < BOUND


def test_threads_that_timed_out_code_left_do_not_hold_the_command(skill: RunSkill, dist: Path) -> None:
    """Python's exit joins an executor's threads: one still sleeping for the tool given up on does not keep skill."""
    started = time.monotonic()
    result = skill("test", "--name", "waits_on_its_own_thread", "--input", arguments(), "--json", cwd=dist.parent)
    elapsed = time.monotonic() - started
    assert result.code == 1, result.stderr
    document = json.loads(result.stdout)
    assert (document["error_type"], document["output"]) == ("timeout", "The tool did not finish within 1 s.")
    assert result.stderr.strip().splitlines()[-1] == (
        "warning: tool code given up on at its deadline left 1 thread running (ThreadPoolExecutor-0_0); skill ends "
        "without waiting for it"
    )
    assert elapsed < BOUND


def call(runtime: Runtime, tool: str, seconds: float = ASKED) -> ToolResult:
    return run(runtime.call(tool, arguments(seconds), ToolContext()))


def test_the_loop_is_free_again_after_a_blocking_tool_is_stopped(runtime: Runtime) -> None:
    first = call(runtime, "blocks_the_loop")
    assert (first.error_type, first.output) == ("timeout", "The tool did not finish within 1 s.")
    second = call(runtime, "blocks_the_loop", 0.01)
    assert (second.is_error, second.output) == (False, "slept")
    polite = call(runtime, "sleeps_politely", 0.01)
    assert (polite.is_error, polite.output) == (False, "awake")


def test_calls_that_misbehave_together_all_end_at_the_deadline(runtime: Runtime) -> None:
    async def together() -> list[ToolResult]:
        names = ["blocks_the_loop", "spins", "swallows_cancellation", "sleeps_politely"]
        return list(await asyncio.gather(*(runtime.call(n, arguments(), ToolContext()) for n in names)))

    started = time.monotonic()
    results = run(together())
    assert [result.error_type for result in results] == ["timeout"] * 4
    assert time.monotonic() - started < BOUND


def test_a_blocking_async_condition_hides_its_tool(runtime: Runtime) -> None:
    started = time.monotonic()
    offer = run(runtime.offer(ToolContext()))
    assert "blocking_condition" not in offer.names
    reasons = {item.name: item.reason for item in offer.hidden}
    assert reasons == {"blocking_condition": "its condition() did not return within 1 s"}
    assert time.monotonic() - started < BOUND


def test_a_spinning_tool_is_stopped_on_a_loop_outside_the_main_thread(runtime: Runtime) -> None:
    """Off the main thread, pure-Python code is interrupted too (a blocking sleep is not: see the README)."""
    results: list[ToolResult] = []
    thread = threading.Thread(
        target=lambda: results.append(asyncio.run(runtime.call("spins", arguments(), ToolContext())))
    )
    started = time.monotonic()
    thread.start()
    thread.join(BOUND)
    assert not thread.is_alive()
    assert [(result.error_type, result.output) for result in results] == [
        ("timeout", "The tool did not finish within 1 s.")
    ]
    assert time.monotonic() - started < BOUND


@pytest.mark.parametrize(
    ("tool", "seconds", "attempts", "error_type", "output"),
    [
        ("retried_after_errors_only", 5.0, 1, "timeout", "The tool did not finish within 0.5 s."),
        ("retried_after_errors_only", -1.0, 3, "execution", "The tool failed (after 3 attempts): ValueError: negative"),
        ("retried_after_timeouts", 5.0, 3, "timeout", "The tool did not finish within 0.5 s (after 3 attempts)."),
        ("never_retried", 0.0, 1, "execution", "The tool failed: ValueError: refused"),
    ],
)
def test_a_timed_out_attempt_is_retried_only_for_an_idempotent_tool(
    runtime: Runtime, tool: str, seconds: float, attempts: int, error_type: str, output: str
) -> None:
    result = call(runtime, tool, seconds)
    assert (result.attempts, result.error_type, result.output) == (attempts, error_type, output)


@pytest.mark.parametrize("awaits", [False, True], ids=["returns-at-once", "suspends"])
def test_running_and_serializing_each_get_the_whole_timeout(runtime: Runtime, awaits: bool) -> None:
    """0.7 s of execute and 0.7 s of serializing: more than the 1 s timeout together, within it each."""
    result = run(runtime.call("each_phase_in_time", json.dumps({"seconds": 0.7, "awaits": awaits}), ToolContext()))
    assert (result.is_error, result.output) == (False, '{"seconds":0.7}')


#: A guard made just before the watchdog goes idle, in a fresh interpreter: made while the
#: watchdog is awake, it wakes nobody; then the watchdog clears its event, finds the guard,
#: and goes on.  The guard's code blocks for 5 s, past its 0.3 s deadline.
RACE = textwrap.dedent(
    """
    import threading, time
    from skillc.runtime import deadlines

    deadlines._BUSY.set()  # the watchdog is awake, lingering after its last guard
    guard = deadlines.Guard(time.monotonic() + 0.3, "tool 'slow'")
    assert deadlines._watchdog._thread is None  # the guard woke nobody
    waits = deadlines._Watchdog._idle()  # the watchdog goes idle just after the guard was made
    thread = deadlines._watchdog._thread = threading.Thread(target=deadlines._watchdog._run, daemon=True)
    thread.start()
    try:
        guard.run(lambda: time.sleep(5))
        print(waits, "ran to its end")
    except deadlines.DeadlineExceeded:
        print(waits, "interrupted")
    """
)


def test_a_guard_made_as_the_watchdog_goes_idle_is_still_watched() -> None:
    finished = subprocess.run([sys.executable, "-c", RACE], capture_output=True, text=True, timeout=BOUND)
    assert (finished.returncode, finished.stdout, finished.stderr) == (0, "False interrupted\n", "")
