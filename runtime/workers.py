"""Run tool code off the event loop, under a deadline, without letting it take anything down.

``WorkerPool`` is a small thread pool of the runtime's own, because the standard one
cannot do two things this needs: a thread stuck in a tool past its deadline cannot be
stopped in Python, so it is *written off* (no longer counted, replaced by a fresh
thread, left to finish or hang alone) and the pool never starves; and its threads are
daemons, so a hung tool never keeps the process from exiting.

``invoke`` is the one way the runtime runs user code (``execute``, ``condition()``,
an approver): sync code in the pool, async code in a task on the loop, each under a
timeout, with the ``running.Running`` record it is given (the import scope of the tool
whose code it is, so that the tool's call-time imports find its bundle's modules; the
``ToolContext`` active; the capture of its prints; ``NOTHING`` for code that is no
tool's, an approver), and whatever it raises (``SystemExit`` included) returned as a
value.  The record is set inside the worker thread or the task itself, so it holds
whatever thread runs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from contextvars import Context, copy_context
from typing import Any, Final, Generic, TypeVar

from .capture import redirecting
from .deadlines import Guard
from .inline import CLOSE_GRACE, Outcome, drive
from .running import NOTHING, Running, start, stop

__all__ = ["DEFAULT_WORKERS", "Work", "WorkerPool", "invoke", "wait_done", "written_off_anywhere"]

_T = TypeVar("_T")
logger = logging.getLogger("skillc.runtime")

#: Threads running tool code at once; a thread written off does not count.
DEFAULT_WORKERS: Final = 32
#: How much longer than its deadline an async job is waited for: the time to close what it left running.
_SLACK: Final = CLOSE_GRACE + 0.25
_NUMBERS = itertools.count(1)


#: A job's states, in the order it goes through them: queued, then running, then returned
#: (its function is over, its waiters not yet called), then done; or queued, then cancelled.
#: A job never goes back.
_QUEUED: Final = 0
_RUNNING: Final = 1
_RETURNED: Final = 2
_DONE: Final = 3
_CANCELLED: Final = 4
#: Held while a job changes state or takes a waiter; one for every job, held for a few
#: instructions at a time, never while any code runs.
_STATE = threading.Lock()


class Work(Generic[_T]):
    """One job given to the pool: its state, its outcome, when it started, and whether its thread was written off.

    What a ``concurrent.futures.Future`` says of a job, without the one thing nothing here
    needs: a thread that blocks until the job is done.  Its waiters are callbacks
    (``when_done``), and an event loop waits with ``wait_done``.  A future makes a condition
    variable per job and takes it at every step, from both threads: a sync tool call, which
    makes one job, cost 8 to 12 us more than a bare ``asyncio.to_thread`` of the same work
    with a future; without it, it costs what ``to_thread`` does, within 2 us.
    """

    __slots__ = (
        "_state",
        "_waiters",
        "context",
        "error",
        "function",
        "started_at",
        "value",
        "written_off",
    )

    def __init__(self, function: Callable[[], _T], context: Context) -> None:
        self.function = function
        self.context = context
        self._state = _QUEUED
        self._waiters: list[Callable[[], None]] | None = None
        #: What the function returned, or raised: set before the job is done, read without a lock once it is.
        self.value: _T | None = None
        self.error: BaseException | None = None
        self.written_off = False
        #: When a worker picked the job up (set before the job leaves the queued state).
        self.started_at = 0.0

    def __repr__(self) -> str:
        state = ("queued", "running", "returned", "done", "cancelled")[self._state]
        return f"<Work {state}{' (written off)' if self.written_off else ''}>"

    def done(self) -> bool:
        """Whether the job is over: it ran to its end, or was cancelled before it started."""
        return self._state >= _DONE

    def running(self) -> bool:
        """Whether a worker is running the job's function now."""
        return self._state == _RUNNING

    @property
    def started(self) -> bool:
        """Whether a worker picked the job up (``started_at`` says when): running, returned or done."""
        return _RUNNING <= self._state <= _DONE

    def cancelled(self) -> bool:
        """Whether the job was cancelled before it started (it never runs then)."""
        return self._state == _CANCELLED

    def result(self) -> _T:
        """What the function returned; what it raised is raised.  Only for a job that ran to its end."""
        if self._state != _DONE:
            raise RuntimeError(f"{self!r} has no result")
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value] # set by the worker with the state

    def cancel(self) -> bool:
        """Cancel the job if it has not started (its waiters are called); whether it is cancelled."""
        with _STATE:
            if self._state != _QUEUED:
                return self._state == _CANCELLED
            self._state = _CANCELLED
            waiters, self._waiters = self._waiters, None
        _call(waiters)
        return True

    def when_done(self, waiter: Callable[[], None]) -> None:
        """Call ``waiter()`` once the job is over: at once if it is, else in the thread that ends it.

        What a waiter raises is logged, as ``concurrent.futures`` does with its callbacks.
        """
        with _STATE:
            if self._state < _DONE:
                if self._waiters is None:
                    self._waiters = [waiter]
                else:
                    self._waiters.append(waiter)
                return
        _call([waiter])

    def _start(self) -> bool:
        """A worker picked the job up: it starts now, unless it was cancelled (then ``False``)."""
        with _STATE:
            if self._state != _QUEUED:
                return False
            self.started_at = time.monotonic()
            self._state = _RUNNING
        return True

    def _return(self, value: _T | None, error: BaseException | None) -> None:
        """The function returned ``value`` or raised ``error``: no code of the job runs any more.

        Only the job's worker moves it from running to returned (no lock: the states a
        waiter or a cancel look at are the same before and after, none of them done).
        """
        self.value, self.error = value, error
        self._state = _RETURNED

    def _end(self) -> None:
        """The job is done (after ``_return``): its waiters are called."""
        with _STATE:
            self._state = _DONE
            waiters, self._waiters = self._waiters, None
        _call(waiters)


def _call(waiters: list[Callable[[], None]] | None) -> None:
    for waiter in waiters or ():
        try:
            waiter()
        except Exception:
            logger.exception("a waiter of a worker's job failed")


#: How many jobs written off in this process, by any pool, are still running (no job is kept: its
#: code, context and module stay the job's own to free).
_still_running = 0
_STILL_RUNNING_HELD = threading.Lock()


def written_off_anywhere() -> bool:
    """Whether any pool of this process wrote off a job whose code still runs (past its deadline)."""
    return _still_running > 0


def _count_written_off(change: int) -> None:
    global _still_running
    with _STILL_RUNNING_HELD:
        _still_running += change


def _written_off_ended() -> None:
    _count_written_off(-1)


class WorkerPool:
    """Daemon threads that run jobs; a thread stuck in a job can be written off and replaced."""

    def __init__(self, size: int = DEFAULT_WORKERS, name: str = "skillc-worker") -> None:
        if size < 1:
            raise ValueError("a worker pool needs at least one thread")
        self._size = size
        self._name = name
        self._queue: queue.SimpleQueue[Work[Any] | None] = queue.SimpleQueue()
        #: Threads waiting for a job (under ``_lock``, as the thread count is).
        self._idle = 0
        self._lock = threading.Lock()
        self._threads = 0
        #: Jobs submitted and not yet over (run or cancelled): while any is, the pool's code may run.
        self._pending = 0
        self._written_off = 0
        self._closed = False
        #: What ``close`` was given to run once no job is pending.
        self._then: Callable[[], None] | None = None

    @property
    def written_off(self) -> int:
        """How many threads were given up on because a job outlived its deadline."""
        return self._written_off

    def submit(self, function: Callable[[], _T], context: Context | None = None) -> Work[_T]:
        """Run ``function`` in a worker, inside ``context`` (a copy of the caller's by default)."""
        work = Work(function, context if context is not None else copy_context())
        with self._lock:
            if self._closed:
                raise RuntimeError("the worker pool is closed")
            self._queue.put(work)
            self._pending += 1
            if self._idle:
                self._idle -= 1
            elif self._threads < self._size:
                self._spawn()
        return work

    def abandon(self, work: Work[Any], *, cancel: bool = True, why: str = "past its deadline") -> None:
        """Stop waiting for ``work``: cancel it if it has not started, else write its thread off.

        With ``cancel=False`` a job that has not started stays queued (others wait for it).
        ``why`` says, in the warning of a thread written off, why nobody waits for its code
        any more: it ran past its deadline, or its call was cancelled.
        """
        with self._lock:
            if work.done() or work.written_off:
                return
            if cancel and work.cancel():
                return
            if not work.running():
                return
            work.written_off = True
            self._threads -= 1
            self._written_off += 1
            count = self._written_off
            _count_written_off(1)
            work.when_done(_written_off_ended)
            if not self._closed:
                self._spawn()
        logger.warning(
            "a worker thread is still running code %s and was replaced (%d written off so far)",
            why,
            count,
        )

    def close(self, then: Callable[[], None] | None = None) -> None:
        """Let every idle thread end; threads still running finish their job first.

        ``then`` runs once, when no job of the pool is queued or running any more: at once,
        in this thread, when none is; else in the thread of the last job to end, written off
        or not, as it ends (never, if one hangs for good).  What it raises is logged.  A
        pool closed already ignores a second ``close`` and its ``then``.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._then = then
            for _ in range(self._threads):
                self._queue.put(None)
            ended = self._pending == 0
        if ended:
            self._run_then()

    def _spawn(self) -> None:
        self._threads += 1
        thread = threading.Thread(target=self._work, name=f"{self._name}-{next(_NUMBERS)}", daemon=True)
        try:
            thread.start()
        except BaseException:  # no thread to be had: it is not counted
            self._threads -= 1
            raise

    def _work(self) -> None:
        while True:
            work = self._queue.get()
            if work is None:
                return
            started = work._start()
            if started:
                _run(work)
            # Counted out before its waiters hear of it: whoever a waiter wakes (a caller that
            # closes the pool next) finds the job over.  Written off after this, it is not.
            with self._lock:
                self._pending -= 1
                last = self._closed and self._pending == 0
                if not work.written_off:
                    self._idle += 1
            if last:
                self._run_then()
            if started:
                work._end()
            if work.written_off:
                return  # a replacement took this thread's place while it was stuck
            # Idle, it holds nothing of the job it ran: a server's idle workers would otherwise
            # keep the last calls' objects alive (their arguments, their results, their tools).
            del work

    def _run_then(self) -> None:
        then, self._then = self._then, None
        if then is None:
            return
        try:
            then()
        except Exception:
            logger.exception("what was to run once the worker pool had ended failed")


def _run(work: Work[Any]) -> None:
    """Run ``work``'s function in this thread; the job keeps what it returned or raised (``Work._return``)."""
    try:
        result = work.context.run(work.function)
    except BaseException as error:  # SystemExit too: the caller reads it as a value
        work._return(None, error)
    else:
        work._return(result, None)


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


async def wait_done(work: Work[Any], timeout: float | None) -> bool:
    """Wait for a job of the pool without blocking the loop; ``False`` if ``timeout`` passed first.

    Unlike ``asyncio.wrap_future``, a job that finishes after its loop closed (a thread
    written off, finishing late) is harmless.
    """
    if work.done():
        return True
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(_wake, waiter)

    work.when_done(wake)
    # The deadline watchdog wakes the waiter at the timeout (``Guard.on_expire``): a loop timer
    # made and cancelled per wait costs several times as much (a sync tool call waits once).
    guard = (
        None
        if timeout is None
        else Guard(time.monotonic() + timeout, "a wait", loop=loop, on_expire=functools.partial(_wake, waiter))
    )
    try:
        await waiter
    finally:
        if guard is not None:
            guard.close()
    return work.done()


class _Entered:
    """Run the block with ``running`` as the record of what runs: the tool's imports, its
    printed output captured, its context current.

    A plain context manager (not a generator's, and no ``ExitStack``): it runs around
    every sync call, in the worker thread, on the way to the result.
    """

    __slots__ = ("_token", "running")

    def __init__(self, running: Running) -> None:
        self.running = running

    def __enter__(self) -> None:
        if self.running.capture is not None:
            redirecting()
        self._token = start(self.running)

    def __exit__(self, *exc_info: object) -> None:
        stop(self._token)


def _enter(function: Callable[[], _T], running: Running) -> _T:
    with _Entered(running):
        return function()


async def _enter_async(
    function: Callable[[], Any], timeout: float | None, label: str, running: Running
) -> Outcome[Any]:
    with _Entered(running):
        if timeout is None:
            try:
                value = function()
                return Outcome(value=await value if inspect.isawaitable(value) else value)
            except (asyncio.CancelledError, KeyboardInterrupt):
                # Code without a deadline is the caller's own (an approver), never a tool's: its
                # interruption (a Ctrl-C at its prompt) is the process's, not a result.
                raise
            except BaseException as error:  # noqa: BLE001 - SystemExit, GeneratorExit...: the code's result
                return Outcome(error=error)
        return await drive(function, timeout, label)


async def _wait_work(pool: WorkerPool, work: Work[Any], timeout: float | None) -> bool:
    """Wait for ``work``, its deadline counted from when it starts; past it, abandon it.

    Time spent queued behind other jobs does not count: a busy pool does not make a
    tool time out before it ran.  (The queue moves: stuck threads are written off.)
    The common case costs one wake-up: the job is waited for, and only when the wait
    runs out is its start looked at.
    """
    try:
        remaining = timeout
        while True:
            if await wait_done(work, remaining):
                return True
            assert timeout is not None
            if work.started:
                remaining = work.started_at + timeout - time.monotonic()
                if remaining <= 0:
                    break
            else:
                remaining = timeout  # still queued: its deadline has not begun
    except asyncio.CancelledError:
        pool.abandon(work, why="whose call was cancelled")
        raise
    pool.abandon(work)
    return False


def _retrieve(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()  # read, so that asyncio does not log it as never retrieved


async def invoke(
    pool: WorkerPool,
    function: Callable[[], Any],
    *,
    asynchronous: bool,
    timeout: float | None,
    running: Running = NOTHING,
    label: str = "code of no tool",
) -> Outcome[Any]:
    """Run user code: in the pool when sync, in a task when async, never raising.

    Tool code always has a deadline; code without one (``timeout=None``) is the caller's
    own, an approver: a ``KeyboardInterrupt`` it raises (a Ctrl-C at its prompt) goes through.
    ``running`` is the record it runs with (``NOTHING``: no tool's code, no context, its
    prints not captured); ``label`` names the code in log messages.  Async code that blocks the loop past the
    deadline is interrupted there (``inline.drive``).
    A sync function that returns an awaitable has it awaited on the loop, within what
    is left of the same deadline.
    """
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    call: Callable[[], Any] = function
    if not asynchronous:
        work = pool.submit(lambda: _enter(function, running))
        if not await _wait_work(pool, work, timeout):
            return Outcome(timed_out=True)
        error, value = work.error, work.value  # set before the job was done: no lock to take
        if error is not None:
            return Outcome(error=error)
        if not inspect.isawaitable(value):
            return Outcome(value)
        if timeout is not None:  # the deadline counts from when the job started
            deadline = loop.time() + timeout - (time.monotonic() - work.started_at)
        call = lambda: value  # noqa: E731 - the awaitable it returned runs on the loop
    remaining = None if deadline is None else max(0.0, deadline - loop.time())
    task = loop.create_task(_enter_async(call, remaining, label, running))
    try:
        # The task answers by its deadline itself; waiting a little longer only covers
        # the time it takes to close code left behind there.
        done, _ = await asyncio.wait({task}, timeout=None if remaining is None else remaining + _SLACK)
    finally:
        if not task.done():
            task.cancel()
            task.add_done_callback(_retrieve)
    if not done:
        return Outcome(timed_out=True)
    if task.cancelled():
        return Outcome(error=asyncio.CancelledError("the code's task was cancelled"))
    error = task.exception()
    if error is not None:  # pragma: no cover - _enter_async returns what the code raised
        return Outcome(error=error)
    return task.result()
