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
  own interruptions), the ``KeyboardInterrupt`` is caught.

The interpreter's own start-up, before this module, is the interpreter's.
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
# SIGINT the parent ignores (a background job) stays ignored.
_EARLY = signal.getsignal(signal.SIGINT) is signal.default_int_handler
if _EARLY:
    signal.signal(signal.SIGINT, _interrupted_before_main)

from ..contracts.errors import EXIT_INTERRUPTED, INTERRUPTED  # noqa: E402 - after the handler, see above

__all__ = ["main"]


def main() -> None:
    """Console-script entry point: load the command line, then run it (``cli.main.main``)."""
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
