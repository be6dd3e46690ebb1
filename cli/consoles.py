"""The two rich consoles of the command line, made on first use.

Importing rich costs a few tens of milliseconds that a command printing JSON, or
nothing at all, does not need to pay.
"""

from __future__ import annotations

import sys
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["stderr", "stdout"]


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
