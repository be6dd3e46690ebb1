"""Await tool code in the caller's task, under a deadline that holds whatever the code does.

``drive`` is ``await function()`` with three differences:

* each synchronous stretch of the code runs inside a ``deadlines.Guard``, so code that
  blocks the thread past the deadline (``time.sleep`` in an ``async def``) is
  interrupted there;
* at the deadline, code that is awaiting is cancelled, as ``asyncio.timeout`` would;
  code that swallows the cancellation and awaits again is closed and left behind, so
  the caller has its answer at the deadline either way;
* nothing the code raises escapes, ``BaseException``\\ s included: the result is an
  ``Outcome``.  Only a cancellation of the caller's own task goes through.

Running inline, rather than in a task or a thread of its own, costs a call about a
microsecond, where a task costs several and a thread hop tens.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Generator
from types import CoroutineType
from typing import Any, Final, Generic, NamedTuple, TypeVar

from .deadlines import DeadlineExceeded, Guard

__all__ = ["Outcome", "begin", "drive", "drive_sync"]

_T = TypeVar("_T")
logger = logging.getLogger("skillc.runtime")

#: Code left behind at its deadline gets this long to run its ``finally`` blocks.
CLOSE_GRACE: Final = 0.5


class Outcome(NamedTuple, Generic[_T]):
    """How running some user code ended: a value, an error, or the deadline.

    (A named tuple: one is made for every call, and tuples are the quickest to make.)
    """

    value: _T | None = None
    error: BaseException | None = None
    timed_out: bool = False
    #: The code had returned, and what ``drive``'s ``then`` made of its value is what ended so.
    then_ran: bool = False

    @property
    def ok(self) -> bool:
        """The code returned a value (which may be ``None``) before its deadline."""
        return self.error is None and not self.timed_out


_TIMED_OUT: Final[Outcome[Any]] = Outcome(timed_out=True)


def drive_sync(function: Callable[[], _T], timeout: float, label: str) -> _T:
    """Run sync tool code on this thread, interrupted if it runs past ``timeout`` seconds.

    Raises ``DeadlineExceeded`` then, also when the code raised something else past its
    deadline (pydantic wraps what a serializer raises, the interruption included);
    whatever else the code raises goes through.
    """
    guard = Guard(time.monotonic() + timeout, label)
    try:
        return guard.run(function)
    finally:
        guard.close()


class _Driven:
    """The generator behind ``drive`` once the code has suspended: forwards every later step, under its guard."""

    __slots__ = ("_expired", "_finished", "_task", "guard", "iterator", "then", "timeout", "yielded")

    def __init__(
        self, guard: Guard, iterator: Any, yielded: Any, then: Callable[[Any], Any] | None, timeout: float
    ) -> None:
        self.guard = guard
        self.iterator = iterator
        self.yielded = yielded
        self.then = then
        self.timeout = timeout
        self._task = asyncio.current_task()
        self._expired = False
        self._finished = False
        guard.loop = asyncio.get_running_loop()
        guard.on_expire = self._expire

    def _expire(self) -> None:
        """On the loop, when the deadline passes while the code awaits: wake the task."""
        if not self._finished and self._task is not None and not self._expired:
            self._expired = True
            self._task.cancel()

    def _ours(self) -> bool:
        """Whether a cancellation that reached the code is the deadline's (undone here) rather than the caller's."""
        if not self._expired or self._task is None:
            return False
        self._expired = False
        return self._task.uncancel() == 0

    def __await__(self) -> Generator[Any, Any, Outcome[Any]]:
        guard = self.guard
        try:
            return (yield from self._steps(guard))
        finally:
            self._finished = True
            guard.close()
            if self._expired and self._task is not None:
                self._task.uncancel()  # the wake-up came too late to be seen: take it back

    def _steps(self, guard: Guard) -> Generator[Any, Any, Outcome[Any]]:
        iterator, yielded = self.iterator, self.yielded
        while True:
            if guard.past():
                return _left_behind(iterator, guard.label)
            thrown: BaseException | None = None
            sent: Any = None
            try:
                sent = yield yielded
            except BaseException as error:  # noqa: BLE001 - thrown into the task: forwarded to the code
                thrown = error
            deadline_cancel = isinstance(thrown, asyncio.CancelledError) and self._ours()
            guard.enter()
            try:
                yielded = iterator.send(sent) if thrown is None else iterator.throw(thrown)
            except StopIteration as stop:
                if deadline_cancel or guard.past():
                    return _TIMED_OUT
                return _then(self.then, stop.value, guard, self.timeout)
            except DeadlineExceeded:
                return _left_behind(iterator, guard.label)
            except asyncio.CancelledError as error:
                if deadline_cancel:
                    return _TIMED_OUT
                if thrown is not None and error is thrown:
                    raise  # the caller cancelled this call: let it go
                return Outcome(error=error)  # the code raised it itself
            except BaseException as error:  # noqa: BLE001
                return _TIMED_OUT if deadline_cancel else Outcome(error=error)
            finally:
                guard.leave()


_THEN_TIMED_OUT: Final[Outcome[Any]] = Outcome(timed_out=True, then_ran=True)


#: ``Outcome(...)`` with every field given, without the Python layer of a named tuple's ``__new__``.
_outcome: Final = tuple.__new__


def _then(then: Callable[[Any], Any] | None, value: Any, guard: Guard, timeout: float) -> Outcome[Any]:
    """The code returned ``value``: what ``then`` makes of it, under the guard still entered, given ``timeout`` anew."""
    if then is None:
        return Outcome(value)
    guard.rearm(timeout)
    try:
        return _outcome(Outcome, (then(value), None, False, True))  # runs on every call
    except DeadlineExceeded:
        return _THEN_TIMED_OUT
    except BaseException as error:  # noqa: BLE001 - told to the caller in the outcome
        # Past the deadline, what it raised is the interruption, wrapped (as pydantic's serializers do).
        return _THEN_TIMED_OUT if guard.past() else Outcome(None, error, False, True)


def _left_behind(iterator: Any, label: str) -> Outcome[Any]:
    """Close code that is still going at its deadline, within a short grace; the call timed out."""
    if iterator is not None:
        closing = Guard(time.monotonic() + CLOSE_GRACE, f"{label} (closing)")
        closing.enter()
        try:
            iterator.close()
        except BaseException as error:  # noqa: BLE001 - it ignored GeneratorExit, or raised: it is left behind
            logger.warning("%s did not stop cleanly at its deadline: %s", label, type(error).__name__)
        finally:
            closing.close()
    return _TIMED_OUT


def _ended(outcome: _T, guard: Guard, owned: bool) -> _T:
    """The code stopped running for good: close the guard if ``begin`` made it, else only leave it (its owner closes it)."""
    if owned:
        guard.close()
    else:
        guard.leave()
    return outcome


def begin(
    function: Callable[..., Awaitable[_T] | _T],
    arguments: tuple[Any, ...],
    timeout: float,
    label: str,
    then: Callable[[_T], Any] | None = None,
    guard: Guard | None = None,
) -> Outcome[Any] | Awaitable[Outcome[Any]]:
    """``drive``'s first step, made here and now: its ``Outcome`` if the code finished without
    suspending, else what to await for the rest of it (in the same task, at once).

    The code is ``function(*arguments)``.  For a caller that would otherwise pay for a
    coroutine of ``drive``'s own, and a closure, on every call.  A ``guard`` given is the
    caller's to close (unless the code suspends: then awaiting what this returns closes it).
    """
    owned = guard is None
    if guard is None:
        guard = Guard(time.monotonic() + timeout, label)
    iterator: Any = None
    try:
        if owned:
            guard.enter()
        else:
            guard.restart(timeout)
        try:
            awaitable = function(*arguments)
            if type(awaitable) is CoroutineType:
                iterator = awaitable
            elif inspect.isawaitable(awaitable):
                iterator = awaitable.__await__()
            else:
                return _ended(_then(then, awaitable, guard, timeout), guard, owned)
            yielded = iterator.send(None)
        except StopIteration as stop:
            return _ended(_then(then, stop.value, guard, timeout), guard, owned)
        except DeadlineExceeded:
            _ended(None, guard, owned)
            return _left_behind(iterator, label)
        except BaseException as error:  # noqa: BLE001 - the code's result, whatever it is
            return _ended(Outcome(error=error), guard, owned)
        guard.leave()
    except DeadlineExceeded:  # it landed as the code finished, before the guard knew
        return _ended(_TIMED_OUT, guard, owned)
    return _Driven(guard, iterator, yielded, then, timeout)


async def drive(
    function: Callable[[], Awaitable[_T] | _T],
    timeout: float,
    label: str,
    then: Callable[[_T], Any] | None = None,
    guard: Guard | None = None,
) -> Outcome[Any]:
    """Run ``function()`` and await what it returns, inline, under a deadline of ``timeout`` seconds.

    Never raises, but for a cancellation of the calling task (which goes through).
    ``label`` names the code in log messages ("tool 'x'").  Code that finishes without
    suspending (most small tools) costs no generator, task or timer at all.

    ``then``, if given, is run on the code's value, under the same guard given ``timeout``
    seconds anew (the result's validation and serialization, say): the outcome then holds
    what it returned, or what it raised, or that its deadline passed, with ``then_ran`` set.

    ``guard``, if given, is a guard of the caller's that this code takes over (given
    ``timeout`` anew, and closed at the end): one guard less to make per call.
    """
    started = begin(function, (), timeout, label, then, guard)
    return started if isinstance(started, Outcome) else await started
