"""What happens to tool code that ignores its deadline for good: the one hook a command line sets.

The deadline watchdog (``deadlines``) interrupts tool code that runs past its deadline;
code still running ``HOPELESS_AFTER`` seconds later, however often interrupted, is
hopeless, and the watchdog hands its label to the hook set here.  A module of its own,
importing nothing, so that the command line sets the hook on every start without
loading the watchdog.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

__all__ = ["HOPELESS_AFTER", "last_resort", "set_last_resort"]

#: Code still running this long past its deadline, however often interrupted, is hopeless.
HOPELESS_AFTER: Final = 2.0

#: Called (from the watchdog's thread) with the guard's label when its code is hopeless.
_last_resort: Callable[[str], None] | None = None


def set_last_resort(hook: Callable[[str], None] | None) -> None:
    """Name what happens when tool code ignores its deadline past ``HOPELESS_AFTER``.

    A command line passes a function that reports the tool and ends the process; the
    default (``None``) logs an error and lets the code run on.
    """
    global _last_resort
    _last_resort = hook


def last_resort() -> Callable[[str], None] | None:
    """The hook ``set_last_resort`` set, if one was."""
    return _last_resort
