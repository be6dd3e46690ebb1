"""The signals that ask a command to end: it stops in order, as on Ctrl-C, then ends by the signal.

SIGTERM is what a supervisor, ``kill`` or an MCP host sends; SIGHUP is what a terminal that
closes sends to what runs in it.  Either one, left to its default action, ends the process on
the spot: what a tool had written but not flushed yet is lost, a conversation is not saved.
A command of ``skill`` stops instead as a Ctrl-C stops it (``cli.lifetime``; the stdio server,
``serve.stdio``), then ends as the signal's default action would have ended it, so that what
started it sees it end by that signal.  A signal the process was started ignoring (``nohup``
ignores SIGHUP) stays ignored.
"""

from __future__ import annotations

import signal
from typing import Final

__all__ = ["TERMINATING"]

#: The signals that ask a command to end, where the platform has them.
TERMINATING: Final[tuple[signal.Signals, ...]] = tuple(
    signal.Signals[name] for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
