"""Keep what tool code prints away from the caller's stdout and stderr, one call at a time.

``sys.stdout`` and ``sys.stderr`` are replaced, once, by proxies that send each write to
the ``Capture`` of the code that wrote it (``running.now().capture``: a context variable,
so concurrent calls on the event loop and in worker threads never mix) and everything else to the stream
they replaced.  The proxies stay installed: a tool thread that outlived its timeout may
still print, and it must not reach the terminal then either.  If someone replaces
``sys.stdout`` later (a test's capture, ``contextlib.redirect_stdout``), the next call
wraps the new stream.

Not captured: writes to the file descriptors themselves (``os.write(1, ...)``, child
processes) and prints from threads the tool starts itself, which do not inherit
context variables.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable
from contextvars import Token
from typing import Any, Final, TextIO, cast

from .running import Running, now, replaced, stop

__all__ = ["Capture", "install", "redirecting", "start_capture", "stop_capture"]

#: A capture keeps at most this much text; a tool printing in a loop cannot exhaust memory.
MAX_CAPTURED_CHARS: Final = 64 * 1024

_INSTALL_LOCK = threading.Lock()
#: Held while any capture is written or read.  One for all: a capture is made for every call,
#: and most calls print nothing, so a lock of each capture's own would mostly go unused.
_WRITE_LOCK = threading.Lock()


class Capture:
    """What one call's code wrote to stdout and stderr (the first 64 KiB of it)."""

    __slots__ = ("_parts", "_size", "truncated")

    def __init__(self) -> None:
        self._parts: list[str] | None = None  # made on the first write: most calls print nothing
        self._size = 0
        self.truncated = False

    def write(self, text: str) -> None:
        """Keep ``text``, up to the limit; what is past it is dropped and ``truncated`` set."""
        with _WRITE_LOCK:
            room = MAX_CAPTURED_CHARS - self._size
            if room <= 0:
                self.truncated = self.truncated or bool(text)
                return
            if len(text) > room:
                text, self.truncated = text[:room], True
            if self._parts is None:
                self._parts = []
            self._parts.append(text)
            self._size += len(text)

    @property
    def text(self) -> str:
        """Everything kept so far."""
        with _WRITE_LOCK:
            return "".join(self._parts) if self._parts is not None else ""

    def active(self) -> _Active:
        """Send what this context prints here, inside the ``with`` block."""
        return _Active(self)


class _Active:
    """``Capture.active()``: a plain context manager, as it runs around every call."""

    __slots__ = ("_capture", "_token")

    def __init__(self, capture: Capture) -> None:
        self._capture = capture

    def __enter__(self) -> Capture:
        self._token = start_capture(self._capture)
        return self._capture

    def __exit__(self, *exc_info: object) -> None:
        stop_capture(self._token)


def start_capture(capture: Capture) -> Token[Running]:
    """What ``capture.active()`` does on entering: this context's prints go to ``capture``
    until ``stop_capture(token)``.
    """
    redirecting()
    return replaced(capture=capture)


def stop_capture(token: Token[Running]) -> None:
    """Undo the ``start_capture`` that gave ``token``."""
    stop(token)


def redirecting() -> None:
    """Make sure the proxies are in place: what is printed goes to the ``Capture`` of the code running."""
    if type(sys.stdout) is not _Redirect or type(sys.stderr) is not _Redirect:
        install()


class _Redirect:
    """A text stream that writes to the active ``Capture``, else to the stream it wraps."""

    def __init__(self, stream: TextIO) -> None:
        self._skillc_wrapped = stream

    def write(self, text: str) -> int:
        capture = now().capture
        if capture is None:
            return self._skillc_wrapped.write(text)
        capture.write(str(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if now().capture is None:
            self._skillc_wrapped.flush()

    def __getattr__(self, name: str) -> Any:
        # Everything else (encoding, fileno, isatty, buffer, ...) is the real stream's.
        return getattr(self._skillc_wrapped, name)


def install() -> None:
    """Put the proxies in place of ``sys.stdout`` and ``sys.stderr`` unless they are there."""
    with _INSTALL_LOCK:
        for name in ("stdout", "stderr"):
            current = getattr(sys, name)
            if current is not None and not isinstance(current, _Redirect):
                setattr(sys, name, cast(TextIO, _Redirect(current)))
