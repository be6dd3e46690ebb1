"""The ``skill`` console script: the command line, and a Ctrl-C that comes while it loads.

Loading the command line imports rich, the contracts and the command in use, which takes
tens of milliseconds.  An interruption in that time ends the process as an interruption of a
running command does: ``interrupted`` on stderr and exit code 130, never the interpreter's
traceback:

- from this module's first line until ``main`` runs (the console-script wrapper's own lines),
  a SIGINT handler ends the process at once, since nothing has started that needs undoing; it
  is installed before anything of skillc's is imported, so it spells the message and the exit
  code out (``contracts.errors`` says them for the rest);
- while ``main`` imports the command line, and just before or after it runs (which handles its
  own interruptions), the ``KeyboardInterrupt`` is caught.  One raised in a finalizer (importlib
  runs one after each import) is not lost: ``lifetime.keep_lost_interruptions``.

The interpreter's own start-up, before this module, is the interpreter's.

First of all, ``main`` opens the null device on each of descriptors 0, 1 and 2 the process
was started without (``_reserve_standard_descriptors``), so that no file the command opens
takes their place.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType


def _interrupted_before_main(signum: int, frame: FrameType | None) -> None:
    sys.stderr.write("interrupted\n")  # contracts.errors.INTERRUPTED: it may not be imported yet
    sys.stderr.flush()
    os._exit(130)  # contracts.errors.EXIT_INTERRUPTED


# First of all, before any import of skillc's: only Python's own handler is replaced, so a
# SIGINT the parent ignores (a background job) stays ignored.  Not in a process that
# multiprocessing spawned (uvicorn's workers of `skill serve --workers N`): it imports the
# console script as ``__mp_main__`` to find its code, never runs ``main``, and would keep the
# handler for good (each worker said "interrupted" and skipped its exit handlers on Ctrl-C).
_EARLY = signal.getsignal(signal.SIGINT) is signal.default_int_handler and (
    sys.modules.get("__mp_main__") in (None, sys.modules.get("__main__"))  # being run as __mp_main__: spawned
)
if _EARLY:
    signal.signal(signal.SIGINT, _interrupted_before_main)

from ..contracts.errors import EXIT_INTERRUPTED, INTERRUPTED  # noqa: E402 - after the handler, see above
from .lifetime import keep_lost_interruptions  # noqa: E402 - after the handler, see above

__all__ = ["main"]


def _reserve_standard_descriptors() -> None:
    """Open ``os.devnull`` on each of descriptors 0, 1 and 2 that the process was started without.

    Otherwise the next file the command opens takes the number, and what is written to
    standard error (by Python, a library, a tool's child process) lands in it: a database
    opened as descriptor 2 would be corrupted.  Python leaves ``sys.stdin``, ``sys.stdout``
    and ``sys.stderr`` ``None`` for them; standard input and error are given the null
    device (input reads end-of-file, as with ``< /dev/null``; messages go nowhere), and
    ``sys.stdout`` stays ``None``, for ``cli.main`` to refuse: every command's results go there.
    """
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)  # the lowest free number: ``fd``, as the lower ones are open
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if sys.stdin is None:
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - as long as the process
    if sys.stderr is None:
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 - as long as the process


def main() -> None:
    """Console-script entry point: load the command line, then run it (``cli.main.main``)."""
    _reserve_standard_descriptors()
    keep_lost_interruptions()  # before Python's handler: importlib's finalizers run on every import
    try:
        if _EARLY:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        # Imported here, not at the top: an interruption while it loads must reach this handler.
        from .main import main as run_command_line

        run_command_line()  # handles its own interruptions; this catches one before or after it
    except KeyboardInterrupt:
        sys.stderr.write(INTERRUPTED + "\n")
        sys.stderr.flush()
        sys.exit(EXIT_INTERRUPTED)
