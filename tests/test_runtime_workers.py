"""Running user code: threads written off past their deadline, contexts kept, exits caught."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from runtime_support import run
from skillc.runtime.capture import Capture
from skillc.runtime.context import ToolContext
from skillc.runtime.running import Running
from skillc.runtime.workers import Outcome, Work, WorkerPool, invoke, wait_done


@pytest.fixture
def pool() -> Iterator[WorkerPool]:
    workers = WorkerPool(1)
    yield workers
    workers.close()


def test_a_stuck_thread_is_written_off_and_replaced(pool: WorkerPool) -> None:
    release = threading.Event()

    async def scenario() -> tuple[Outcome[Any], Outcome[Any]]:
        stuck = await invoke(pool, release.wait, asynchronous=False, timeout=0.1)
        quick = await invoke(pool, lambda: 42, asynchronous=False, timeout=1)
        return stuck, quick

    try:
        stuck, quick = run(scenario())
    finally:
        release.set()
    assert stuck.timed_out and not stuck.ok
    assert quick.ok and quick.value == 42
    assert pool.written_off == 1
    assert all(thread.daemon for thread in threading.enumerate() if thread.name.startswith("skillc-worker"))


def test_time_in_the_queue_does_not_count_against_the_deadline(pool: WorkerPool) -> None:
    def job() -> str:
        time.sleep(0.15)
        return "done"

    async def scenario() -> list[Outcome[Any]]:
        return await asyncio.gather(*(invoke(pool, job, asynchronous=False, timeout=0.3) for _ in range(3)))

    assert [outcome.value for outcome in run(scenario())] == ["done"] * 3


def test_a_job_finishing_after_its_loop_closed_is_harmless(pool: WorkerPool, caplog: pytest.LogCaptureFixture) -> None:
    finished = threading.Event()

    def late() -> str:
        time.sleep(0.2)
        finished.set()
        return "late"

    assert run(invoke(pool, late, asynchronous=False, timeout=0.05)).timed_out
    assert finished.wait(2)
    time.sleep(0.05)
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


@pytest.mark.parametrize("asynchronous", [False, True])
def test_the_context_and_the_capture_reach_the_code(pool: WorkerPool, asynchronous: bool) -> None:
    context = ToolContext(call_id="call-9")
    printed = Capture()

    def sync() -> str:
        print("hello from sync")
        return ToolContext.current().call_id

    async def coroutine() -> str:
        print("hello from async")
        return ToolContext.current().call_id

    outcome = run(
        invoke(
            pool,
            coroutine if asynchronous else sync,
            asynchronous=asynchronous,
            timeout=1,
            running=Running(None, context, printed),
        )
    )
    assert outcome.value == "call-9"
    assert printed.text == f"hello from {'async' if asynchronous else 'sync'}\n"


@pytest.mark.parametrize("asynchronous", [False, True])
def test_sys_exit_is_an_outcome(pool: WorkerPool, asynchronous: bool) -> None:
    def sync() -> None:
        sys.exit(5)

    async def coroutine() -> None:
        await asyncio.sleep(0)
        sys.exit(6)

    outcome = run(invoke(pool, coroutine if asynchronous else sync, asynchronous=asynchronous, timeout=1))
    assert isinstance(outcome.error, SystemExit)
    assert outcome.error.code == (6 if asynchronous else 5)


def test_a_sync_function_that_returns_an_awaitable_has_it_awaited(pool: WorkerPool) -> None:
    async def later() -> str:
        await asyncio.sleep(0)
        return "awaited"

    assert run(invoke(pool, later, asynchronous=False, timeout=1)).value == "awaited"
    slow = run(invoke(pool, lambda: asyncio.sleep(10), asynchronous=False, timeout=0.1))
    assert slow.timed_out


def test_a_job_cancelled_in_the_queue_never_runs_and_its_waiters_hear_it(pool: WorkerPool) -> None:
    release, ran, heard = threading.Event(), [], []
    blocker = pool.submit(release.wait)  # the one worker is busy: the next job waits in the queue
    queued = pool.submit(lambda: ran.append("ran"))
    queued.when_done(lambda: heard.append(queued.cancelled()))
    assert not queued.done() and not queued.running()
    assert queued.cancel() and queued.cancel()  # cancelled, and stays so
    assert heard == [True] and queued.done()
    release.set()
    last = pool.submit(lambda: "after")

    assert run(wait_done(last, 2)) and last.result() == "after"
    assert blocker.result() is True
    assert ran == [] and queued.cancelled()
    with pytest.raises(RuntimeError, match="cancelled"):
        queued.result()


def test_a_running_or_finished_job_cannot_be_cancelled(pool: WorkerPool) -> None:
    started, release = threading.Event(), threading.Event()

    def job() -> str:
        started.set()
        release.wait(2)
        return "finished"

    work = pool.submit(job)
    assert started.wait(2)
    assert work.running() and not work.cancel()
    release.set()
    assert run(wait_done(work, 2))
    assert not work.cancel() and not work.cancelled()
    assert work.result() == "finished" and repr(work) == "<Work done>"


def test_a_waiter_added_after_the_end_is_called_at_once_and_one_that_fails_is_logged(
    pool: WorkerPool, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> None:
        raise ValueError("no")

    work = pool.submit(lambda: 1 / 0)
    assert run(wait_done(work, 2))
    heard: list[str] = []
    with caplog.at_level(logging.ERROR, logger="skillc.runtime"):
        work.when_done(broken)
        work.when_done(lambda: heard.append("late"))
    assert heard == ["late"]
    assert [record.getMessage() for record in caplog.records] == ["a waiter of a worker's job failed"]
    assert isinstance(work.error, ZeroDivisionError)
    with pytest.raises(ZeroDivisionError):
        work.result()


def test_many_jobs_from_many_threads_each_end_once_with_their_own_result() -> None:
    workers = WorkerPool(4)
    jobs: list[tuple[int, Work[int]]] = []
    calls: dict[int, int] = {}
    lock = threading.Lock()

    def submit(start: int) -> None:
        for number in range(start, start + 250):
            work = workers.submit(lambda number=number: number * 2)  # type: ignore[misc]
            work.when_done(lambda number=number: _count(calls, lock, number))  # type: ignore[misc]
            with lock:
                jobs.append((number, work))

    try:
        threads = [threading.Thread(target=submit, args=(start,)) for start in range(0, 1000, 250)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)

        async def all_done() -> list[bool]:
            return await asyncio.gather(*(wait_done(work, 10) for _, work in jobs))

        assert all(run(all_done()))
    finally:
        workers.close()
    assert sorted(number for number, _ in jobs) == list(range(1000))
    assert all(work.result() == number * 2 for number, work in jobs)
    assert calls == dict.fromkeys(range(1000), 1)


def test_what_close_is_given_runs_at_once_when_no_job_is_left() -> None:
    workers = WorkerPool(2)
    assert run(wait_done(workers.submit(lambda: 1), 2))
    ran: list[str] = []
    workers.close(then=lambda: ran.append(threading.current_thread().name))
    assert ran == [threading.current_thread().name]  # in the closing thread, before close returns
    workers.close(then=lambda: ran.append("again"))  # closed already: ignored
    assert ran == [threading.current_thread().name]


def test_what_close_is_given_waits_for_the_running_and_the_queued_jobs_and_the_written_off() -> None:
    workers = WorkerPool(1)
    stuck_release, running_release = threading.Event(), threading.Event()
    order: list[str] = []
    stuck = workers.submit(lambda: (stuck_release.wait(10), order.append("stuck ended")))
    assert run(wait_for_state(stuck.running))
    workers.abandon(stuck)  # written off: its replacement takes the next jobs
    running = workers.submit(lambda: (running_release.wait(10), order.append("running ended")))
    queued = workers.submit(lambda: order.append("queued ran"))
    assert run(wait_for_state(running.running))
    workers.close(then=lambda: order.append("then"))
    assert order == []
    running_release.set()
    assert run(wait_done(queued, 5))
    time.sleep(0.05)
    assert order == ["running ended", "queued ran"]  # the thread written off still runs a job
    stuck_release.set()
    assert run(wait_done(stuck, 5))
    deadline = time.monotonic() + 5
    while len(order) < 4 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert order == ["running ended", "queued ran", "stuck ended", "then"]


def test_a_waiter_that_closes_the_pool_finds_its_job_over() -> None:
    # As a caller woken by its sync call's end, which closes the project next: the job must
    # not hold the flush back (before, close saw it still pending, and the flush came
    # after close had returned).
    workers = WorkerPool(1)
    release, seen = threading.Event(), []
    work = workers.submit(lambda: release.wait(10))

    def waiter() -> None:
        workers.close(then=lambda: seen.append("then"))
        seen.append("close returned")

    work.when_done(waiter)
    release.set()
    deadline = time.monotonic() + 5
    while len(seen) < 2 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert seen == ["then", "close returned"]


def test_a_cancelled_job_does_not_hold_what_close_is_given(caplog: pytest.LogCaptureFixture) -> None:
    workers = WorkerPool(1)
    release = threading.Event()
    blocker = workers.submit(lambda: release.wait(10))
    queued = workers.submit(lambda: None)
    assert queued.cancel()
    done = threading.Event()

    def then() -> None:
        done.set()
        raise ValueError("teardown failed")

    workers.close(then=then)
    assert not done.is_set()
    release.set()
    assert run(wait_done(blocker, 5)) and done.wait(5)
    deadline = time.monotonic() + 5
    while "had ended failed" not in caplog.text and time.monotonic() < deadline:
        time.sleep(0.005)
    assert "what was to run once the worker pool had ended failed" in caplog.text


async def wait_for_state(state: Any, within: float = 5.0) -> bool:
    """Whether ``state()`` became true within ``within`` seconds (looked at every millisecond)."""
    deadline = time.monotonic() + within
    while not state() and time.monotonic() < deadline:
        await asyncio.sleep(0.001)
    return bool(state())


def _count(calls: dict[int, int], lock: threading.Lock, number: int) -> None:
    with lock:
        calls[number] = calls.get(number, 0) + 1


def test_a_capture_keeps_only_the_start_of_endless_output() -> None:
    printed = Capture()
    for _ in range(100):
        printed.write("x" * 1024)
    assert len(printed.text) == 64 * 1024 and printed.truncated
