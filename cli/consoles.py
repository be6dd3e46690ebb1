"""The two rich consoles of the command line, made on first use.

Importing rich costs a few tens of milliseconds that a command printing JSON, or
nothing at all, does not need to pay.  Neither console replaces ``:name:`` emoji codes:
a tool's result or a model's answer is shown as it was written.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, TextIO

from ..contracts.spec import TOOL_LOGGER
from ..runtime.running import running_tool_label

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["notice", "out_stream", "runtime_log", "shown", "stderr", "stdout", "take_stdout", "visible"]

#: What ``visible`` replaces: C0 controls but tab and newline, DEL, C1 controls, bidi overrides.
_CONTROLS: dict[int, str] = {
    code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0)) if code not in (0x09, 0x0A)
}
_CONTROLS.update({code: f"\\u{code:04x}" for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))})


#: The width of a console whose stream is no terminal.
_PIPED_WIDTH = 1000


def visible(text: str) -> str:
    """``text`` safe to print on a terminal: its control characters shown, not obeyed.

    Tool results, model answers and whatever quotes them can hold escape sequences that
    set the window title, write the clipboard or erase a line: ESC is shown as ``\\x1b``,
    every C0 and C1 control but newline and tab likewise, and a bidi override or isolate
    as ``\\u202e``.  A ``\\r\\n`` line end is a newline.
    """
    return text.replace("\r\n", "\n").translate(_CONTROLS)


def shown(text: str) -> str:
    """``text`` made ``visible`` and its rich markup escaped, for ``Console.print`` with markup."""
    from rich.markup import escape

    return escape(visible(text))


#: The command's own handle on standard output, taken when it starts (``take_stdout``).
_taken: list[TextIO] = []
_forks_detached: list[bool] = []


def _own(stream: TextIO) -> TextIO:
    """A text stream of the command's own on the descriptor of ``stream`` (``stream`` if it has none).

    Tool code that closes ``sys.stdout`` or ``sys.__stdout__`` closes those objects;
    this one, which does not close the descriptor either, still writes.
    """
    try:
        descriptor = stream.fileno()
        stream.flush()
        return open(  # noqa: SIM115 - it lives as long as the process
            descriptor,
            "w",
            encoding=stream.encoding,
            errors=stream.errors,
            closefd=False,
            buffering=1 if getattr(stream, "line_buffering", False) else -1,
        )
    except Exception:  # a test's StringIO, a closed stream: write to it as it is
        return stream


#: The module that knows whether tool code is running (``tool_code_running``).  The runtime
#: loads it before it runs any tool code, so while it is not loaded none runs; a command
#: that runs none (``skill compile``) need not load it.
_IMPORT_HOOKS = "skillc.runtime.imports"


def _detach_child() -> None:
    """In a process that tool code forked: standard output and error go to ``/dev/null``.

    A forked child would otherwise hold the command's output open (a pipe reader
    waits for it) as long as it lives.  ``subprocess`` does not run this hook, and a
    fork made by anything but a tool's code (a test harness's pty, say) is left alone.
    """
    hooks = sys.modules.get(_IMPORT_HOOKS)
    if hooks is None or not hooks.tool_code_running():
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.close(null)
    except OSError:
        pass


def take_stdout() -> None:
    """Take the command's own handle on standard output, before any tool code runs."""
    _taken[:] = [_own(sys.stdout)]
    if not _forks_detached and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_detach_child)
        _forks_detached.append(True)


def out_stream() -> TextIO:
    """Where the command writes its output: its own handle, else ``sys.stdout``."""
    return _taken[0] if _taken else sys.stdout


def stdout() -> Console:
    """Standard output; piped output is not cut to a terminal's width."""
    return _console(out_stream())


@cache
def _console(stream: TextIO) -> Console:
    from rich.console import Console

    return Console(file=stream, highlight=False, emoji=False, soft_wrap=True, width=_width(stream))


def _width(stream: TextIO) -> int | None:
    """A terminal's own width; piped, a width no table is cut to (rich would take 80 columns)."""
    return None if stream.isatty() else _PIPED_WIDTH


@cache
def stderr() -> Console:
    """Standard error, for messages about what went wrong; piped, not cut to a terminal's width either."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, emoji=False, soft_wrap=True, width=_width(sys.stderr))


def notice(message: str) -> None:
    """Tell the user, on standard error, what is happening while they wait."""
    stderr().print(visible(message), style="dim", markup=False)


@cache
def _beside_tools() -> TextIO:
    """Standard error through a handle of the command's own: what tool code logs while it runs is shown, where
    ``sys.stderr``, which the runtime points at the running call's capture, would keep it."""
    return _own(sys.__stderr__ or sys.stderr)


@contextlib.contextmanager
def runtime_log(console: Console | None = None, *, debug: bool) -> Iterator[None]:
    """Show the runtime's warnings (hidden tools, failing tools) in one line each, on ``console``
    (standard error by default, made only when there is something to show), and what tools log
    through ``ctx.logger`` (``info`` and above; all with ``debug``), naming the tool, on standard error.

    Without a handler, Python's last-resort logging would print a failing tool's whole
    traceback; the command shows it only with ``--debug``.
    """

    class _Line(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            shown_on = stderr() if console is None else console
            shown_on.print(f"[dim]{record.levelname.lower()}: {shown(record.getMessage())}[/]")
            if debug and record.exc_info:
                shown_on.print(shown(logging.Formatter().formatException(record.exc_info)), style="dim")

    class _ToolLine(logging.Handler):
        """Plain lines (no rich: a command printing JSON loads none of it for a tool's log)."""

        def emit(self, record: logging.LogRecord) -> None:
            who = running_tool_label()
            text = f"{record.levelname.lower()}: {who}: {record.getMessage()}"
            if debug and record.exc_info:
                text += "\n" + logging.Formatter().formatException(record.exc_info)
            stream = _beside_tools()
            stream.write(visible(text) + "\n")
            stream.flush()

    logger = logging.getLogger("skillc.runtime")
    handler = _Line(logging.WARNING)
    previous = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    # What tools log through ctx.logger: info and above, everything with --debug.
    tools = logging.getLogger(TOOL_LOGGER)
    tool_handler = _ToolLine(logging.DEBUG if debug else logging.INFO)
    tools_before = tools.propagate, tools.level
    tools.addHandler(tool_handler)
    tools.propagate = False
    tools.setLevel(tool_handler.level)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = previous
        tools.removeHandler(tool_handler)
        tools.propagate, level = tools_before
        tools.setLevel(level)
