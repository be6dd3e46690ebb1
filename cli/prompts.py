"""What ``skill chat`` asks the person at the terminal: lines, one-off answers, approvals, client results.

An approval is asked at a ``[y/N]`` prompt, under a line that says what each answer does:
``y`` approves, ``e`` approves with edited arguments (TanStack AI's approval flow), anything
else declines.  The arguments are edited in ``$VISUAL`` or ``$EDITOR`` when one is set (a
temporary JSON file), else on the line itself, prefilled with the model's arguments.  What
is given must be a JSON object (asked again, a bounded number of times, otherwise); the
call then runs with it, validated again (``runtime.approval``).

A client-side tool's result (TanStack AI's client tools) is typed by the person: shown the
call with its validated arguments, they type JSON, or plain text that is taken as a string;
an empty line (or end of input) gives no result, which the model is told.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Final, Protocol

from rich.console import Console

from ..runtime.approval import Edited
from ..runtime.call import Approver
from ..runtime.client import ClientError, ClientHandler
from ..runtime.ownjson import read_json, write_json
from .consoles import shown, visible
from .lifetime import stopped_by, terminated_by

__all__ = ["SHOWN_ARGUMENTS", "Prompter", "TurnView", "approval_asker", "client_asker", "read_answer", "shorten"]

#: Lines of input history kept in ``.skill/chat_history``.
_HISTORY_LENGTH: Final = 1000
#: Arguments are shown up to this many characters.
SHOWN_ARGUMENTS: Final = 300
_YES: Final = frozenset({"y", "yes"})
_EDIT: Final = frozenset({"e", "edit"})
#: Edits of arguments that are not a JSON object are asked again at most this many times in all.
_EDIT_TRIES: Final = 3


class TurnView(Protocol):
    """Where the questions' outcomes are shown."""

    trace: Console

    def end_text(self) -> None:
        """Finish the text streamed so far, before a prompt."""


def shorten(text: str, limit: int) -> str:
    """``text`` up to ``limit`` characters, saying how many more there were."""
    return text if len(text) <= limit else text[:limit] + f" ... ({len(text) - limit} more characters)"


def _stop_reading() -> None:
    """How a terminating signal stops a prompt's read when SIGINT is ignored: as a Ctrl-C would."""
    raise KeyboardInterrupt


class Prompter:
    """Reads the user's lines: with ``readline`` on a terminal (editing, history kept in ``.skill/``)."""

    def __init__(self, root: Path) -> None:
        self.readline: Any = None
        self.history = root / ".skill" / "chat_history"
        if sys.stdin.isatty():
            with contextlib.suppress(ImportError):  # not built on every platform
                # Only on a terminal: importing readline can write escape codes to a pipe.
                import readline

                self.readline = readline
                readline.set_history_length(_HISTORY_LENGTH)
                with contextlib.suppress(OSError):
                    readline.read_history_file(self.history)

    def line(self, prompt: str) -> str:
        """One line of input; ``EOFError`` at the end of input."""
        return input(prompt)

    def answer(self, question: str, prefill: str = "") -> str:
        """A one-off answer, kept out of the history; end of input or Ctrl-C is no answer.

        ``prefill`` is put on the line to be edited, where ``readline`` can (else it is typed anew).
        """
        previous = signal.getsignal(signal.SIGINT)
        # asyncio.Runner's handler only cancels the turn: at a prompt, Ctrl-C must stop the reading.
        # An ignored SIGINT (a background job) stays ignored; a terminating signal stops the reading then.
        if callable(previous):
            signal.signal(signal.SIGINT, signal.default_int_handler)
        if prefill and self.readline is not None:
            self.readline.set_startup_hook(lambda: self.readline.insert_text(prefill))
        try:
            with stopped_by(_stop_reading):
                text = input(question)
        except (EOFError, KeyboardInterrupt):
            if terminated_by() is not None:  # asked to end, not to skip the question
                raise
            sys.stdout.write("\n")
            return ""
        finally:
            if callable(previous):
                signal.signal(signal.SIGINT, previous)
            if self.readline is not None:
                self.readline.set_startup_hook(None)
        if self.readline is not None and text:
            length = self.readline.get_current_history_length()
            if length:
                self.readline.remove_history_item(length - 1)
        return text

    def save(self) -> None:
        if self.readline is None:
            return
        with contextlib.suppress(OSError):
            self.history.parent.mkdir(parents=True, exist_ok=True)
            self.readline.write_history_file(self.history)


def approval_asker(prompter: Prompter, view: TurnView) -> Approver:
    """Ask at a ``[y/N]`` prompt (``e`` to edit), on the event loop's thread, so that one question is asked at a time.

    ``e`` edits the arguments (TanStack AI's approval with edits): in ``$VISUAL`` or ``$EDITOR``
    when one is set, else on the line; the call then runs with them, validated again.
    """

    async def ask(name: str, arguments: dict[str, Any]) -> bool | Edited:
        view.end_text()
        brief = shorten(write_json(arguments, ensure_ascii=False), SHOWN_ARGUMENTS)
        view.trace.print("   [dim]y runs it, e edits its arguments first, anything else declines[/]")
        answer = prompter.answer(visible(f"Run {name} {brief}? [y/N] ")).strip().lower()
        if answer in _EDIT:
            edited = _edit_arguments(prompter, view, arguments)
            if edited is not None:
                view.trace.print(f"   approved with edited arguments: {shown(write_json(edited, ensure_ascii=False))}")
                return Edited(edited)
        approved = answer in _YES
        view.trace.print("   approved" if approved else "   [yellow]declined[/]")
        return approved

    return ask


def read_answer(text: str) -> Any:
    """A typed result: its JSON value, or the text itself (a string) when it is not JSON."""
    try:
        return read_json(text)
    except (ValueError, RecursionError):
        return text


def client_asker(prompter: Prompter, view: TurnView) -> ClientHandler:
    """Ask the person for a client-side tool's result, on the event loop's thread, one call at a time.

    The tool's timeout bounds the question as any client's answer: past it, the call is a
    ``timeout`` result and the prompt is left.
    """

    async def ask(name: str, arguments: dict[str, Any]) -> Any:
        view.end_text()
        brief = shorten(write_json(arguments, ensure_ascii=False), SHOWN_ARGUMENTS)
        view.trace.print(
            f"   [bold]{shown(name)}[/] is a client-side tool: its result comes from you.\n"
            "   [dim]Type it as JSON, or as text (taken as a string); an empty line gives none.[/]"
        )
        try:
            text = prompter.answer(visible(f"Result of {name} {brief}: "))
        except BaseException:  # the tool's deadline, raised inside the prompt: leave its line first
            sys.stdout.write("\n")
            sys.stdout.flush()
            raise
        if not text.strip():
            view.trace.print("   [yellow]no result given[/]")
            raise ClientError("The user gave no result for this call.")
        return read_answer(text.strip())

    return ask


def _edit_arguments(prompter: Prompter, view: TurnView, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """The arguments as the person edits them (a JSON object), or ``None`` when they give none."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    text = write_json(arguments, indent=2 if editor else None, ensure_ascii=False)
    for _ in range(_EDIT_TRIES):
        if editor:
            edited = _run_editor(editor, text)
            if edited is None:
                view.trace.print(f"   [red]the editor {shown(editor)} failed[/]")
                return None
        else:
            edited = prompter.answer("Arguments (JSON): ", prefill=text)
        if not edited.strip():
            return None
        try:
            value = read_json(edited)
        except (ValueError, RecursionError) as error:
            view.trace.print(f"   [red]not JSON ({shown(str(error))}); edit again[/]")
        else:
            if isinstance(value, dict):
                return value
            view.trace.print("   [red]the arguments must be a JSON object; edit again[/]")
        text = edited
    return None


def _run_editor(editor: str, text: str) -> str | None:
    """``text`` as the person left it in ``editor``; ``None`` when the editor cannot run or fails."""
    with tempfile.TemporaryDirectory(prefix="skill-chat-") as folder:
        path = Path(folder) / "arguments.json"
        path.write_text(text + "\n", encoding="utf-8")
        try:
            finished = subprocess.run([*shlex.split(editor), str(path)], check=False)
        except (OSError, ValueError):
            return None
        if finished.returncode != 0:
            return None
        return path.read_text(encoding="utf-8")
