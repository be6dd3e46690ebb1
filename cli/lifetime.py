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

``end_by_signal`` ends a process that has stopped in order for a signal as the signal's
default action would have: a server does so, so that what started it sees it end by that
signal.
"""

from __future__ import annotations

import gc
import signal
import sys

__all__ = ["end_by_signal", "keep_until_exit", "own_process"]

_owned: list[bool] = []


def own_process() -> None:
    """This process is the command's own: it ends when the command does."""
    _owned[:] = [True]


def keep_until_exit() -> None:
    """Keep every object made so far until the process ends, unseen by the collector; only in the command's own process.

    Call it only when each of them is skillc's (see the module).
    """
    if _owned:
        gc.freeze()


def end_by_signal(signum: int) -> int:
    """End the command's own process by ``signum``'s default action (its output flushed first).

    Call it once what must not be lost is safe (the project closed): nothing runs after it,
    exit handlers included.  In a process that is not the command's own, or should the
    signal not end it, it returns the exit code a shell gives a process ended by it (128 +
    ``signum``) for the command to return.
    """
    if _owned:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)
    return 128 + signum
