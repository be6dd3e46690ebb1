"""The ``skill`` console script: the command line, and a Ctrl-C that comes while it loads.

Loading the command line imports rich, the contracts and the command in use, which takes
tens of milliseconds.  An interruption in that time ends the process as an interruption of a
running command does: ``interrupted`` on stderr and exit code 130, never the interpreter's
traceback.  Two windows are covered:

- from this module's import until ``main`` runs (the console-script wrapper's own lines), by a
  SIGINT handler that ends the process at once, since nothing has started that needs undoing;
- while ``main`` imports the command line, by catching the ``KeyboardInterrupt``.

The interpreter's own start-up, before this module, is the interpreter's.  At module level this
module imports only the exit codes of skillc (``contracts.errors``, which imports nothing).
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

from ..contracts.errors import EXIT_INTERRUPTED, INTERRUPTED

__all__ = ["main"]


def _say_interrupted() -> None:
    sys.stderr.write(INTERRUPTED + "\n")
    sys.stderr.flush()


def _interrupted_before_main(signum: int, frame: FrameType | None) -> None:
    _say_interrupted()
    os._exit(EXIT_INTERRUPTED)


# Only Python's own handler is replaced: a SIGINT the parent ignores (a background job) stays ignored.
_EARLY = signal.getsignal(signal.SIGINT) is signal.default_int_handler
if _EARLY:
    signal.signal(signal.SIGINT, _interrupted_before_main)


def main() -> None:
    """Console-script entry point: load the command line, then run it (``cli.main.main``)."""
    if _EARLY:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        # Imported here, not at the top: an interruption while it loads must reach this handler.
        from .main import main as run_command_line
    except KeyboardInterrupt:
        _say_interrupted()
        sys.exit(EXIT_INTERRUPTED)
    run_command_line()
