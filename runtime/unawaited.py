"""Coroutines that a call's code made and let go of unawaited: none of their body ran.

``notes.acreate(document)`` without ``await``, or a helper's ``async def`` called as a
plain function, makes a coroutine object that is dropped at once: Python warns
("coroutine ... was never awaited") and the work silently does not happen.  The compiler
reports the drops it can prove (``skill/unawaited-coroutine``); this is the net for the
rest, at call time.

CPython hands every coroutine finalized before it started to
``warnings._warn_unawaited_coroutine``.  ``watch`` wraps that hook, once per process: the
warning goes on as before, and when the coroutine was let go of by code that a call answers
for (the running record's ``owner``), that call is told which coroutine it was and where
it was dropped (``Owner.dropped``).  The call then fails rather than report a success
whose work partly never ran (``call._Call``).

A coroutine that only the cyclic garbage collector finds is finalized wherever the
collection happened to start, not where the code let go of it: it is never charged to
the call then running, only warned about as Python does (``gc.callbacks`` say when a
collection runs).  An interpreter without the hook (not CPython 3.11 to 3.14) is not
watched; the compiler's check still holds there.
"""

from __future__ import annotations

import gc
import sys
import threading
import warnings
from collections.abc import Callable
from types import CoroutineType, FrameType
from typing import Any, Final

from .running import now

__all__ = ["Drops", "watch"]

#: The name CPython looks the hook up by, in the ``warnings`` module, each time.
_HOOK: Final = "_warn_unawaited_coroutine"

_installed = False
_installing = threading.Lock()
#: Whether the cyclic garbage collector is collecting (set by ``_collection``).
_collecting = False


def watch() -> None:
    """Tell the owner of the running code of every coroutine the code drops unawaited (idempotent)."""
    global _installed
    if _installed:
        return
    with _installing:
        if _installed:
            return
        original = getattr(warnings, _HOOK, None)
        if callable(original):
            setattr(warnings, _HOOK, _wrap(original))
            gc.callbacks.append(_collection)
        _installed = True


def _collection(phase: str, info: dict[str, int]) -> None:
    global _collecting
    _collecting = phase == "start"


def _wrap(original: Callable[[Any], object]) -> Callable[[Any], None]:
    def _warn_unawaited_coroutine(coro: Any) -> None:
        try:
            owner = now().owner
            if owner is not None and not _collecting:
                owner.dropped(_describe_drop(coro, sys._getframe(1)))
        finally:
            original(coro)  # Python's own warning, as without the net

    return _warn_unawaited_coroutine


class Drops:
    """A ``running.Owner`` that keeps what it hears, for a caller that looks once the code is done
    (an offer, after a condition); a call is an owner of its own (``call._Call``)."""

    __slots__ = ("heard",)

    def __init__(self) -> None:
        #: What ``dropped`` was told, in order.
        self.heard: list[str] = []

    def dropped(self, what: str) -> None:
        self.heard.append(what)

    def handed_out(self, state: object, key: str, value: object, text: str) -> None:
        """A condition's reads of ``ctx.state`` are not followed."""


def _describe_drop(coro: object, frame: FrameType | None) -> str:
    """``Collection.acreate(), dropped in save (skills.tools.audit, line 15)``: which coroutine, and where."""
    name = coro.__qualname__ if isinstance(coro, CoroutineType) else type(coro).__name__
    if frame is None:
        return f"{name}()"
    module = frame.f_globals.get("__name__", "?")
    return f"{name}(), dropped in {frame.f_code.co_name} ({module}, line {frame.f_lineno})"
