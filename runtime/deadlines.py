"""Deadlines that hold even when tool code blocks the thread it runs on.

Tool code on the event loop is run inline, in the caller's task, because a hop to
another thread costs ten times a whole call.  Well-behaved code gives the loop back at
every ``await``, and a loop timer could stop it there; misbehaving code does not: an
``async def`` that calls ``time.sleep`` or a blocking HTTP client, a validator stuck in
a loop.  So each stretch of tool code runs inside a ``Guard``, and one watchdog thread
interrupts a guard's code once its deadline has passed, by raising ``DeadlineExceeded``
inside it:

* in the main thread, with a signal (``SIGRTMIN + 3`` where the platform has real-time
  signals and nobody else handles it), whose handler raises only while the guarded code
  runs; a signal also ends a blocking system call (``time.sleep``, a socket read);
* in any other thread, with ``PyThreadState_SetAsyncExc``, which takes effect at the
  next bytecode the thread runs (not inside a blocking system call).

An interrupted stretch that catches ``DeadlineExceeded`` and goes on is interrupted
again at every tick.  A guard whose code is *not* running at its deadline (it is
awaiting something) has its ``on_expire`` called on its event loop instead, so that
the awaiting task can be woken.  Code that outlives ``HOPELESS_AFTER`` seconds past its
deadline despite all that is reported once to the ``last_resort`` hook (a command line
may end its process then; a library caller is only logged to).

The fast path costs a guard object and two set operations per call: the
watchdog's thread only wakes (every ``TICK`` seconds at most) while guards exist, and
for ``LINGER`` seconds after the last one closed (so that a run of calls does not wake
it once per call).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeVar

from .last_resort import HOPELESS_AFTER, last_resort

if TYPE_CHECKING:  # for start-up: a command that runs no tool (skill compile) needs no event loop
    import asyncio

__all__ = ["TICK", "DeadlineExceeded", "Guard"]

logger = logging.getLogger("skillc.runtime")
_T = TypeVar("_T")

#: The watchdog looks at the guards at least this often while any exist.
TICK: Final = 0.02
#: The watchdog keeps looking this long after the last guard closed before it sleeps until the next one.
LINGER: Final = 0.5


class DeadlineExceeded(BaseException):  # noqa: N818 - it is what it says, and no Exception on purpose
    """Raised inside tool code that is still running at its deadline.

    A ``BaseException``, so that the usual ``except Exception`` of tool code lets it pass.
    """


class Guard:
    """The deadline of one stretch of tool code: enter it around each synchronous run.

    ``running`` is true while the guarded code runs (between ``enter`` and ``leave``, on
    the thread that entered); the watchdog interrupts it only then.  ``on_expire``, if
    set (with ``loop``, by the code's driver once it suspends), is called once on
    ``loop`` when the deadline has passed while the code is not running (it is awaiting).
    """

    __slots__ = (
        "_hopeless",
        "_interrupted_at",
        "_notified",
        "deadline",
        "expired",
        "label",
        "loop",
        "on_expire",
        "running",
        "thread",
    )

    def __init__(
        self,
        deadline: float,
        label: str,
        *,
        loop: asyncio.AbstractEventLoop | None = None,
        on_expire: Callable[[], None] | None = None,
    ) -> None:
        self.deadline = deadline
        self.label = label
        self.loop = loop
        self.on_expire = on_expire
        #: The thread that last entered the code (0 before it ran).
        self.thread = 0
        self.running = False
        #: The deadline has passed (set by the watchdog, or by ``leave`` noticing it).
        self.expired = False
        self._interrupted_at = 0.0
        self._hopeless = False
        self._notified = False
        _GUARDS.add(self)
        if not _awake():
            _watchdog.wake()

    def enter(self) -> None:
        """The guarded code starts running on this thread."""
        self.thread = _thread_id()
        self.running = True
        if not _handler_settled and self.thread == _MAIN_THREAD:
            _install_handler()

    def restart(self, timeout: float) -> None:
        """``rearm(timeout)``, then ``enter()``: the next stretch of the same code starts on this thread."""
        self.rearm(timeout)
        self.enter()

    def leave(self) -> None:
        """The guarded code stopped running (it returned, raised or is awaiting).

        An interruption already on its way to this thread is withdrawn.
        """
        self.running = False
        if self._interrupted_at and self.thread != _MAIN_THREAD:
            _withdraw(self.thread)

    def close(self) -> None:
        """The stretch is over: the watchdog forgets it."""
        self.running = False
        _GUARDS.discard(self)
        if self._interrupted_at and self.thread != _MAIN_THREAD:
            _withdraw(self.thread)

    def past(self) -> bool:
        """Whether the deadline has passed."""
        return self.expired or _clock() >= self.deadline

    def run(self, function: Callable[[], _T]) -> _T:
        """``function()``, entered in this guard and left again (not closed: the guard can go on).

        Raises ``DeadlineExceeded`` past the deadline, also when the code raised something
        else by then (pydantic wraps what a validator or serializer raises, the
        interruption included); whatever else the code raises goes through.
        """
        self.enter()
        try:
            return function()
        except DeadlineExceeded:
            raise
        except BaseException:
            if self.past():
                raise DeadlineExceeded(f"{self.label} ran past its deadline") from None
            raise
        finally:
            self.leave()

    def rearm(self, timeout: float) -> None:
        """Give the code running under this guard a new deadline, ``timeout`` seconds from now.

        For the next stretch of the same code (a result's serialization after its
        ``execute``): it costs two assignments where a new guard costs a registration.
        An interruption already on its way for the old deadline is withdrawn, and one the
        watchdog decides on meanwhile finds the new deadline not passed (``_expire`` and
        the signal handler look at the deadline again) and is not sent.
        """
        self.deadline = _clock() + timeout
        self.expired = False
        self._hopeless = False
        if self._interrupted_at:
            self._interrupted_at = 0.0
            if self.thread != _MAIN_THREAD:
                _withdraw(self.thread)


#: Every guard not yet closed; set operations are atomic under the GIL.
_GUARDS: set[Guard] = set()
_MAIN_THREAD: Final = threading.main_thread().ident


# --- interrupting a thread -----------------------------------------------------------------

_SIGNAL: Final = getattr(signal, "SIGRTMIN", 0) + 3 if hasattr(signal, "SIGRTMIN") else None
_handler_installed = False
#: Installed or refused: nothing is left to try.
_handler_settled = False

_raise_in: Any = None
_clear_in: Any = None
if sys.implementation.name == "cpython":
    _raise_in = ctypes.pythonapi["PyThreadState_SetAsyncExc"]  # [...]: a pointer of its own
    _raise_in.argtypes = (ctypes.c_ulong, ctypes.py_object)
    _raise_in.restype = ctypes.c_int
    _clear_in = ctypes.pythonapi["PyThreadState_SetAsyncExc"]
    _clear_in.argtypes = (ctypes.c_ulong, ctypes.c_void_p)
    _clear_in.restype = ctypes.c_int


def _on_signal(signum: int, frame: object) -> None:
    """Raise ``DeadlineExceeded`` if the main thread runs guarded code past its deadline."""
    now = time.monotonic()
    for guard in list(_GUARDS):
        if guard.running and guard.thread == _MAIN_THREAD and guard.expired and now >= guard.deadline:
            raise DeadlineExceeded(f"{guard.label} ran past its deadline")


def _install_handler() -> None:
    """Install the signal handler, once, if the platform has the signal and it is free."""
    global _handler_installed, _handler_settled
    if _handler_settled:
        return
    _handler_installed = _try_handler()
    _handler_settled = True


def _try_handler() -> bool:
    """Whether the handler could be installed (only where the signal exists and is nobody else's)."""
    if _SIGNAL is None or not hasattr(signal, "pthread_kill"):
        return False
    try:
        if signal.getsignal(_SIGNAL) not in (signal.SIG_DFL, None):
            return False  # someone else's: leave it alone
        signal.signal(_SIGNAL, _on_signal)
    except (ValueError, OSError):  # not the main thread after all, or not allowed
        return False
    return True


def _interrupt(guard: Guard) -> None:
    """Raise ``DeadlineExceeded`` in the thread running ``guard``'s code (called by the watchdog)."""
    guard._interrupted_at = time.monotonic()
    if guard.thread == _MAIN_THREAD and _handler_installed:
        with contextlib.suppress(OSError):
            signal.pthread_kill(guard.thread, _SIGNAL)  # type: ignore[arg-type]
        return
    if _raise_in is not None and guard.running and time.monotonic() >= guard.deadline:  # not re-armed meanwhile
        _raise_in(guard.thread, DeadlineExceeded)


def _withdraw(thread: int) -> None:
    if _clear_in is not None:
        _clear_in(thread, None)


# --- the watchdog ----------------------------------------------------------------------------


#: Set while the watchdog looks at guards; a new guard wakes it only when it is clear.
_BUSY: Final = threading.Event()
#: Whether ``_BUSY`` is set (bound once: a guard asks on every call).
_awake: Final = _BUSY.is_set
#: ``time.monotonic`` and ``threading.get_ident``, bound once: each guard calls them a few times.
_clock: Final = time.monotonic
_thread_id: Final = threading.get_ident


class _Watchdog:
    """One daemon thread that looks at the guards every ``TICK`` while there are any."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def wake(self) -> None:
        if _BUSY.is_set():
            return
        _BUSY.set()
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="skillc-watchdog", daemon=True)
                    self._thread.start()

    def _run(self) -> None:
        idle_since: float | None = None
        while True:
            _BUSY.wait()
            now = time.monotonic()
            if not _GUARDS:
                # Calls come in runs: stay awake a little, so that the next guard need not wake this thread.
                idle_since = now if idle_since is None else idle_since
                if now - idle_since < LINGER:
                    time.sleep(TICK)
                    continue
                idle_since = None
                if self._idle():
                    continue
            idle_since = None
            soonest = now + TICK
            for guard in list(_GUARDS):
                if now < guard.deadline:
                    soonest = min(soonest, guard.deadline)
                    continue
                try:
                    self._expire(guard, now)
                except Exception:  # pragma: no cover - the watchdog itself must never die
                    logger.exception("the deadline watchdog failed on %s", guard.label)
            time.sleep(max(0.001, soonest - time.monotonic()))

    @staticmethod
    def _idle() -> bool:
        """Clear ``_BUSY`` so that the next guard wakes this thread; whether it may now wait for that.

        A guard made just before the clear saw ``_BUSY`` set and woke nobody: when one
        exists after the clear, ``_BUSY`` is set again and the guards are watched (else the
        watchdog would sleep until some later guard woke it, and that guard's deadline
        would not hold).
        """
        _BUSY.clear()
        if not _GUARDS:
            return True  # a guard made from now on finds _BUSY clear, and sets it
        _BUSY.set()
        return False

    @staticmethod
    def _expire(guard: Guard, now: float) -> None:
        guard.expired = True
        if time.monotonic() < guard.deadline:  # re-armed meanwhile (``Guard.rearm``)
            guard.expired = False
            return
        if guard.running:
            if now - guard._interrupted_at >= TICK:
                _interrupt(guard)
            if now - guard.deadline >= HOPELESS_AFTER and not guard._hopeless:
                guard._hopeless = True
                _hopeless(guard)
        elif not guard._notified and guard.on_expire is not None and guard.loop is not None:
            guard._notified = True  # set by whoever suspends the code, possibly after it expired
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
                guard.loop.call_soon_threadsafe(guard.on_expire)


def _hopeless(guard: Guard) -> None:
    hook = last_resort()
    if hook is not None:
        hook(guard.label)
    else:
        logger.error("%s ignores its deadline: it is still running %g s past it", guard.label, HOPELESS_AFTER)


_watchdog = _Watchdog()
