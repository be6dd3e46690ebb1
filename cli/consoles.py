"""The two rich consoles of the command line, made on first use.

Importing rich costs a few tens of milliseconds that a command printing JSON, or
nothing at all, does not need to pay.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["notice", "runtime_log", "stderr", "stdout"]


@cache
def stdout() -> Console:
    """Standard output; piped output is not cut to a terminal's width."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 1000)


@cache
def stderr() -> Console:
    """Standard error, for messages about what went wrong."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def notice(message: str) -> None:
    """Tell the user, on standard error, what is happening while they wait."""
    stderr().print(message, style="dim", markup=False)


@contextlib.contextmanager
def runtime_log(console: Console, *, debug: bool) -> Iterator[None]:
    """Show the runtime's warnings (hidden tools, failing tools) in one line each.

    Without a handler, Python's last-resort logging would print a failing tool's whole
    traceback; the command shows it only with ``--debug``.
    """
    from rich.markup import escape

    class _Line(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            console.print(f"[dim]{record.levelname.lower()}: {escape(record.getMessage())}[/]")
            if debug and record.exc_info:
                console.print(escape(logging.Formatter().formatException(record.exc_info)), style="dim")

    logger = logging.getLogger("skillc.runtime")
    handler = _Line(logging.WARNING)
    previous = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = previous
