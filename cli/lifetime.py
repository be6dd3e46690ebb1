"""What a command's process keeps until it ends, told to the garbage collector.

The modules a command loads, and what they make as they load, live as long as its process:
a few hundred thousand objects that every full collection looks through again, the one
at interpreter exit included.  ``keep_until_exit`` moves every object made so far out of
the collector's sight (``gc.freeze``): a ``skill test`` ended 43 ms after its last line,
and ends 12 ms after it now; a ``skill compile`` after one change, 25 ms and 8 ms.

What is frozen is never collected as garbage (refcounting still frees it), so it is done
only when every object made so far is skillc's:

- a command that runs project code (``skill test``, ``skill serve``) keeps what it loaded
  before any tool code runs: what tool code makes is collected as usual, so a server's
  tools never leave garbage that nothing frees (at exit, ``bundles.ModuleSpace.flush_files``
  flushes the files a tool left open);
- a command that runs no project code in its process (``skill compile``:
  ``--allow-import`` imports it in processes of its own) keeps everything once it is done.

Only in a process that is the command's own (``cli.main.main``, the console script): a
program that runs a command in its own process (``cli.main.run``) keeps its collector as
it is.

While a command loads, and for the whole of one that runs no project code in its process
(``skill compile``), the collector runs seldom (``collect_seldom``): what loading makes, and
the structure a compile builds, live until the process ends, and the collector, looking at
them again every 700 new objects, took 5 to 7% of a command (94 ms of a cold compile of 500
tools, 14 ms of one after a change, 14 ms of a ``skill test``).  mypy runs with the same
thresholds, for the same reason.  What is collectable is still collected, every 200,000 new
objects: a cold compile of 500 tools peaked 1.6 MB higher.  ``keep_until_exit`` gives the
collector back its thresholds, so that what tool code makes is collected as usual.

``end_by_signal`` ends a process that has stopped in order for a signal as the signal's
default action would have, so that what started it sees it end by that signal.

In the command's own process, the signals that ask a command to end
(``contracts.signals.TERMINATING``: SIGTERM, SIGHUP) stop it as a Ctrl-C does
(``stop_in_order``): the handler of SIGINT in place runs (``asyncio.Runner``'s cancels the
command's task; Python's raises ``KeyboardInterrupt``), so that every ``finally`` and ``with``
runs on the way out: the project is closed, which flushes the files its tools left open, a
conversation is saved, ``dist/`` is left whole.  ``terminated_by`` tells the commands that
answer a Ctrl-C themselves (a chat's turn, a prompt, ``--watch``) that this one must end the
command; ``cli.main`` then ends the process by the signal, without a word (a closed terminal
reads nothing).  Only the first such signal counts: the command is stopping already (a Ctrl-C,
or SIGKILL, forces it).  The main thread is woken for one that lands just before it blocks
(``watch_for_missed_signals``, for the commands that wait on a person or a tool).
"""

from __future__ import annotations

import _thread
import atexit
import contextlib
import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Final

from ..contracts.signals import TERMINATING

__all__ = [
    "collect_seldom",
    "end_by_signal",
    "end_despite_stuck_threads",
    "keep_lost_interruptions",
    "keep_until_exit",
    "own_process",
    "stop_in_order",
    "stopped_by",
    "terminated_by",
    "watch_for_missed_signals",
]

_owned: list[bool] = []
#: The collector's thresholds while it runs seldom (``collect_seldom``): new objects before a
#: young collection, then young collections before each older one.
_SELDOM: Final = (200_000, 30, 30)
#: The thresholds ``collect_seldom`` found, for ``keep_until_exit`` to give back.
_usual: list[tuple[int, ...]] = []
#: The signal that asked the command to end, once one has.
_terminated: list[int] = []
#: Whether ``watch_for_missed_signals`` has started its thread.
_watching: list[bool] = []
#: How the code running now stops for a terminating signal when SIGINT is ignored, innermost last (``stopped_by``).
_stoppers: list[Callable[[], None]] = []
#: Set while the terminating signal is sent again because a finalizer dropped what its handler raised.
_raise_again: list[bool] = []
#: How many interruptions a finalizer dropped and ``keep_lost_interruptions`` sent again so far.
_resent: list[int] = [0]
#: At most this many are sent again: a finalizer that raises ``KeyboardInterrupt`` itself, on and on, is not a Ctrl-C.
_RESEND_AT_MOST: Final = 20
#: How long the main thread has to run the handler of a terminating signal before it is woken for it.
_NUDGE_AFTER: Final = 0.05


def own_process() -> None:
    """This process is the command's own: it ends when the command does."""
    _owned[:] = [True]


def stop_in_order() -> None:
    """Have SIGTERM and SIGHUP stop the command as a Ctrl-C does (see the module); only in the command's own process.

    A signal the process was started ignoring stays ignored, and one with a handler of
    someone else's keeps it.  Only the first of them counts: the command is stopping already.
    """
    if not _owned:
        return
    for signum in TERMINATING:
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, _on_terminating)


def _on_terminating(signum: int, frame: FrameType | None) -> None:
    """Remember the signal, then do what a Ctrl-C does now: the handler of SIGINT in place; with SIGINT
    ignored, the innermost ``stopped_by``'s stop, else raise ``KeyboardInterrupt``."""
    if _terminated and not _raise_again:
        return  # stopping already (or woken by _wake_main_thread for this very signal)
    _raise_again.clear()
    if not _terminated:
        _terminated.append(signum)
    interrupt = signal.getsignal(signal.SIGINT)
    if callable(interrupt):
        interrupt(signal.SIGINT, frame)
        return
    if _stoppers:  # SIGINT is ignored (a background job): asked to end all the same
        _stoppers[-1]()
        return
    raise KeyboardInterrupt


@contextlib.contextmanager
def stopped_by(stop: Callable[[], None]) -> Iterator[None]:
    """While inside, a terminating signal that comes with SIGINT ignored calls ``stop`` (in the main thread).

    ``stop`` is called from the signal's handler, once: it must only ask what runs to stop
    (``cli.event_loop`` cancels its task, as ``asyncio.Runner`` does for a Ctrl-C) or raise
    ``KeyboardInterrupt`` (a prompt's read), never wait.  Outside, or with SIGINT handled,
    the signal does what a Ctrl-C does (see the module).
    """
    _stoppers.append(stop)
    try:
        yield
    finally:
        _stoppers.remove(stop)


def keep_lost_interruptions() -> None:
    """Have an interruption that a finalizer dropped sent again to the main thread (see the module).

    Called by the console script (``cli.entry``), before it loads the command line: the
    command is the process's.  An unraisable ``KeyboardInterrupt`` in the main thread is taken
    for an interruption whose handler ran in a finalizer; it is not printed, and its signal
    is sent again to the main thread (SIGINT; the terminating signal that raised it when
    SIGINT is ignored).  Everything else goes to the hook that was in place.  A finalizer of a
    tool's that raises ``KeyboardInterrupt`` itself interrupts the command, as its own
    ``os.kill`` of SIGINT would.
    """
    previous = sys.unraisablehook

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if not (isinstance(unraisable.exc_value, KeyboardInterrupt) and _send_again()):
            previous(unraisable)

    sys.unraisablehook = hook


def _send_again() -> bool:
    """Send the interruption a finalizer dropped again to the main thread; whether it was.

    From a new thread: the handler would run at once in the code that sent it, and that is
    still the finalizer's hook.  ``_thread``'s, not ``threading``'s: its bookkeeping takes
    locks, which the code interrupted by the finalizer may hold.
    """
    if threading.get_ident() != threading.main_thread().ident or _resent[0] >= _RESEND_AT_MOST:
        return False
    if callable(signal.getsignal(signal.SIGINT)):
        signum = signal.SIGINT
    elif _terminated:  # SIGINT is ignored: the terminating signal's handler raised it
        signum = signal.Signals(_terminated[0])
        _raise_again.append(True)
    else:
        return False  # raised by code, not by a signal: SIGINT is ignored
    try:
        _thread.start_new_thread(_interrupt_thread, (threading.get_ident(), signum))
    except RuntimeError:  # no thread can start (the interpreter is ending)
        _raise_again.clear()
        return False
    _resent[0] += 1
    return True


def _interrupt_thread(main: int, signum: signal.Signals) -> None:
    """Send ``signum`` to the main thread: a real signal where the platform can, which ends a blocking call too.

    A main thread that has ended meanwhile (the process is ending) needs no interruption.
    """
    if hasattr(signal, "pthread_kill"):
        with contextlib.suppress(ProcessLookupError):
            signal.pthread_kill(main, signum)
    else:
        _thread.interrupt_main(signum)


def watch_for_missed_signals() -> None:
    """Make sure the main thread runs the handler of a terminating signal, even one that came just before a read.

    Python runs a signal's handler in the main thread, between two steps of its code.  A
    signal that lands as that thread is about to block in a system call (a prompt's read,
    the event loop's wait) is noted, and its handler waits until the call returns: with a
    person's prompt, or a tool that waits a minute, that is a stop missed.  Each signal is
    also written to a pipe (``signal.set_wakeup_fd``), read by a daemon thread, which sends
    the signal again to the main thread when its handler has not run after ``_NUDGE_AFTER``
    seconds: the blocking call is interrupted, and the handler runs.

    Called by the commands that wait on a person or on tool code (``skill test``, ``skill
    chat``), once their project is compiled, rather than for every command: its thread is one
    thread more in the process, and ``skill compile`` forks.  Nothing is started where the
    platform cannot send a signal to one thread, where another wakeup pipe is set, or when no
    signal has this module's handler (``stop_in_order`` did not run, or left them alone).
    """
    if _watching or not any(signal.getsignal(signum) is _on_terminating for signum in TERMINATING):
        return
    if not hasattr(signal, "pthread_kill"):
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)  # as set_wakeup_fd requires
    try:
        previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except ValueError:  # not the main thread after all
        previous = -2
    if previous != -1:  # someone else's pipe (or none could be set): theirs stays
        if previous != -2:
            signal.set_wakeup_fd(previous)
        os.close(read_end)
        os.close(write_end)
        return
    main = threading.main_thread().ident
    assert main is not None
    threading.Thread(target=_wake_main_thread, args=(read_end, main), name="skillc-signals", daemon=True).start()
    _watching.append(True)


def _wake_main_thread(read_end: int, main: int) -> None:
    """The thread of ``watch_for_missed_signals``: for each terminating signal, wait for its handler, else send it again."""
    numbers = {int(signum) for signum in TERMINATING}
    while True:
        try:
            received = os.read(read_end, 64)
        except OSError:
            return
        if not received:
            return
        for number in received:
            if number not in numbers:
                continue
            deadline = time.monotonic() + _NUDGE_AFTER
            while not _terminated and time.monotonic() < deadline:
                time.sleep(0.005)
            if not _terminated:
                signal.pthread_kill(main, number)  # ends the blocking call; the handler runs


def terminated_by() -> int | None:
    """The signal that asked the command to end (``stop_in_order``), if one has."""
    return _terminated[0] if _terminated else None


def keep_until_exit() -> None:
    """Keep every object made so far until the process ends, unseen by the collector, and give
    the collector back the thresholds ``collect_seldom`` found; only in the command's own process.

    Call it only when each of them is skillc's (see the module).
    """
    if _owned:
        gc.freeze()
        if _usual:
            gc.set_threshold(*_usual.pop())


def collect_seldom() -> None:
    """Have the collector run seldom (``_SELDOM``) until ``keep_until_exit``, in the command's own process.

    Call it only before any project code runs (see the module).
    """
    if _owned and not _usual:
        _usual.append(gc.get_threshold())
        gc.set_threshold(*_SELDOM)


def end_by_signal(signum: int) -> int:
    """End the command's own process by ``signum``'s default action (its output flushed first).

    Call it once what must not be lost is safe (the project closed): nothing runs after it,
    exit handlers included.  In a process that is not the command's own, or should the
    signal not end it, it returns the exit code a shell gives a process ended by it (128 +
    ``signum``) for the command to return.
    """
    if _owned:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError, AttributeError):  # a closed terminal, a closed pipe
                stream.flush()
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)
    return 128 + signum


#: The module that knows whether tool code was given up on (``workers.written_off_anywhere``).  It is
#: loaded before any tool code runs, so while it is not loaded none ran.
_WORKERS = "skillc.runtime.workers"
#: How long the threads that stuck tool code left are waited for before the process ends without them.
_STUCK_GRACE: Final = 2.0


def end_despite_stuck_threads(code: int, say: Callable[[str], None]) -> None:
    """End the process with ``code`` now, rather than wait for threads that tool code given up on left running.

    Python's exit waits for every thread that is not a daemon (a ``ThreadPoolExecutor``'s
    included): a tool that timed out while such a thread of its own sleeps or serves would hold
    the command until that ends, however long.  When the runtime wrote off tool code that may
    still run (``workers.written_off_anywhere``) and such threads are alive ``_STUCK_GRACE``
    seconds later, ``say`` is told, the exit handlers run (files flushed, logs closed), the
    streams are flushed and the process ends.  Otherwise it returns, and Python exits as usual.
    Only in the command's own process.
    """
    workers = sys.modules.get(_WORKERS)
    if not _owned or workers is None or not workers.written_off_anywhere():
        return
    deadline = time.monotonic() + _STUCK_GRACE
    for thread in _left_running():
        thread.join(max(0.0, deadline - time.monotonic()))
    left = _left_running()
    if not left:
        return
    names = ", ".join(thread.name for thread in left[:3]) + (", ..." if len(left) > 3 else "")
    say(
        f"tool code given up on at its deadline left {len(left)} thread{'' if len(left) == 1 else 's'} running "
        f"({names}); skill ends without waiting for {'it' if len(left) == 1 else 'them'}"
    )
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):  # a closed terminal, a closed pipe
            stream.flush()
    os._exit(code)


def _left_running() -> list[threading.Thread]:
    """The threads but this one that Python's exit would wait for: those that are no daemons, and
    those of ``concurrent.futures`` executors, which it joins whatever they are (a thread started by
    a daemon, a runtime worker's, is a daemon too)."""
    current = threading.current_thread()
    executors = sys.modules.get("concurrent.futures.thread")
    joined = getattr(executors, "_threads_queues", {}) if executors is not None else {}
    return [
        thread
        for thread in threading.enumerate()
        if thread is not current and thread.is_alive() and (not thread.daemon or thread in joined)
    ]
