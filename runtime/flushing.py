"""Flush the files a tool's modules left open, without letting go of anything.

A tool that keeps ``LOG = open(...)`` and never flushes it leaves its last writes in the
file object's buffers.  Python flushes them when the object is freed; at exit, a bundle's
modules (no entries of ``sys.modules``) are freed by the cycle collector, in no order, and
a text wrapper freed after its buffer loses what it held (CPython's known io-at-exit
loss); a project closed in a process that goes on keeps its modules' files unflushed until
they are freed, if ever.

``flush_reachable(namespaces)`` walks what the given module namespaces refer to (values,
containers, instances, a function's closure and defaults), and flushes every file object
found: text wrappers first, then what is below them.  It never walks into a module (the
standard library's and third parties' files are theirs), a class, a function's globals or
the builtins, and stops after ``MAX_WALKED`` objects.  Nothing is closed, cleared or let
go: code still running (a thread a tool's module started, a call still in a worker) goes
on unharmed, and what it writes later is flushed by the next flush, or when its file is
freed.
"""

from __future__ import annotations

import builtins
import gc
import io
import logging
from collections.abc import Iterable, Mapping
from types import FunctionType, ModuleType
from typing import Any, Final

__all__ = ["MAX_WALKED", "flush_reachable"]

logger = logging.getLogger("skillc.runtime")

#: The most objects one flush looks at (a module that keeps a million-entry cache is not walked whole).
MAX_WALKED: Final = 100_000


def _referents(value: object) -> Iterable[object]:
    """What ``value`` refers to that may hold a file of its module's own."""
    if isinstance(value, ModuleType | type):
        return ()
    if isinstance(value, FunctionType):  # not its globals: another module's, or a namespace walked already
        return (*(value.__closure__ or ()), *(value.__defaults__ or ()), *(value.__kwdefaults__ or {}).values())
    return gc.get_referents(value)


def _files(namespaces: Iterable[Mapping[str, Any]]) -> list[io.IOBase]:
    """The file objects reachable from ``namespaces`` (see the module), text wrappers first."""
    seen = {id(builtins.__dict__)}
    stack: list[object] = list(namespaces)
    texts: list[io.IOBase] = []
    others: list[io.IOBase] = []
    while stack and len(seen) <= MAX_WALKED:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, io.IOBase):
            (texts if isinstance(value, io.TextIOBase) else others).append(value)
        stack.extend(_referents(value))
    return texts + others


def flush_reachable(namespaces: Iterable[Mapping[str, Any]]) -> int:
    """Flush every open file object reachable from ``namespaces``; how many were flushed.

    A file that cannot be flushed (closed, detached, its pipe gone) is passed over.
    """
    flushed = 0
    for file in _files(namespaces):
        try:
            if not file.closed:
                file.flush()
                flushed += 1
        except Exception as error:  # noqa: BLE001 - whatever a file does, the others are flushed
            logger.debug("cannot flush %r: %s", file, error)
    return flushed
