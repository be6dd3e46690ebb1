"""Conversations kept between sessions: ``.skill/threads/<id>.json`` in the project.

A thread file holds the conversation's messages as Chat Completions messages (user,
assistant with its tool calls, tool results), without the system prompt, which is
rebuilt every turn from the agent's persona and the skills offered then::

    {"format": 1, "id": "support-42", "agent": "shop",
     "created": "2026-05-01T09:30:00Z", "updated": "2026-05-01T09:31:12Z",
     "state": {"seat": "14C"},
     "messages": [{"role": "user", "content": "..."}, ...]}

``state`` is what the thread's tools kept in ``ctx.state`` (``ToolState``), written only
when it holds something; a file without it (as older versions wrote) has an empty state.
It is written whole and atomically (a temporary file renamed over the old one), so an
interrupted write leaves the previous version.  A file that is not a thread is never
overwritten: reading it is an error that says where it is and what is wrong, checked in
full (every message, every tool call, the state as ``ctx.state`` would take it) before
anything is used.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from ..contracts.errors import UsageError, UserError
from .context import StateError, ToolState
from .models import Message
from .ownjson import read_json, write_json

__all__ = [
    "THREAD_FORMAT",
    "THREADS_FOLDER",
    "Thread",
    "check_thread_id",
    "load_thread",
    "save_thread",
    "thread_path",
]

THREAD_FORMAT: Final = 1
#: Where threads live, relative to the project's root.
THREADS_FOLDER: Final = Path(".skill") / "threads"
_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_ROLES: Final = frozenset({"user", "assistant", "tool"})
#: The fields each role's message may have (skill chat writes no others).
_KEYS: Final = {
    "user": frozenset({"role", "content", "name"}),
    "assistant": frozenset({"role", "content", "tool_calls", "name", "refusal"}),
    "tool": frozenset({"role", "content", "tool_call_id"}),
}
_CALL_KEYS: Final = frozenset({"id", "type", "function"})
_FUNCTION_KEYS: Final = frozenset({"name", "arguments"})


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Thread:
    """One conversation: its id and its messages, oldest first."""

    id: str
    agent: str
    messages: list[Message] = field(default_factory=list)
    created: str = field(default_factory=_now)
    updated: str = ""
    #: What the tools keep in ``ctx.state``, as plain JSON data.
    state: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The thread file's JSON document (``state`` only when it holds something)."""
        document: dict[str, Any] = {
            "format": THREAD_FORMAT,
            "id": self.id,
            "agent": self.agent,
            "created": self.created,
            "updated": self.updated or self.created,
        }
        if self.state:
            document["state"] = self.state
        document["messages"] = self.messages
        return document


def check_thread_id(thread_id: str) -> str:
    """Return ``thread_id`` if it is a plain file name; a ``UsageError`` otherwise."""
    if _ID.fullmatch(thread_id) is None or thread_id.endswith("."):
        raise UsageError(
            f"--thread {thread_id!r} is not a valid thread id",
            hint="use up to 100 letters, digits, '.', '_' and '-', starting with a letter or digit "
            "(no path separators)",
        )
    return thread_id


def thread_path(root: Path, thread_id: str) -> Path:
    """The file of thread ``thread_id``; a ``UsageError`` for an id that is not a plain name."""
    return root / THREADS_FOLDER / f"{check_thread_id(thread_id)}.json"


class _Malformed(Exception):
    """What is wrong with a thread file, in words."""


def _string(message: Message, key: str, where: str, *, optional: bool = False) -> None:
    value = message.get(key)
    if not (isinstance(value, str) or (optional and value is None)):
        raise _Malformed(f"{where}: {key} must be a string{' or null' if optional else ''}")


def _only(item: Message, keys: frozenset[str], where: str) -> None:
    unknown = sorted(str(key) for key in item if key not in keys)
    if unknown:
        raise _Malformed(f"{where}: unknown field {unknown[0]!r}")


def _tool_calls(message: Message, where: str) -> set[str]:
    """The ids of an assistant message's tool calls, each checked."""
    calls = message.get("tool_calls", [])
    if not isinstance(calls, list):
        raise _Malformed(f"{where}: tool_calls must be a list")
    ids: set[str] = set()
    for index, item in enumerate(calls):
        at = f"{where}, tool call {index + 1}"
        if not isinstance(item, dict):
            raise _Malformed(f"{at}: it must be an object")
        _only(item, _CALL_KEYS, at)
        _string(item, "id", at)
        if item.get("type", "function") != "function":
            raise _Malformed(f"{at}: type must be 'function'")
        function = item.get("function")
        if not isinstance(function, dict):
            raise _Malformed(f"{at}: function must be an object")
        _only(function, _FUNCTION_KEYS, f"{at}, function")
        _string(function, "name", f"{at}, function")
        _string(function, "arguments", f"{at}, function")
        if item["id"] in ids:
            raise _Malformed(f"{at}: the id {item['id']!r} is used twice")
        ids.add(item["id"])
    return ids


def _check_messages(messages: object) -> list[Message]:
    """``messages`` if they are a conversation skill chat could have written; ``_Malformed`` if not."""
    if not isinstance(messages, list):
        raise _Malformed("messages must be a list")
    answerable: set[str] = set()  # the calls of the last assistant message, not answered yet
    for index, message in enumerate(messages):
        where = f"message {index + 1}"
        if not isinstance(message, dict):
            raise _Malformed(f"{where}: it must be an object")
        role = message.get("role")
        if role not in _ROLES:
            raise _Malformed(f"{where}: role must be one of {', '.join(sorted(_ROLES))}")
        _only(message, _KEYS[role], where)
        if role == "user":
            _string(message, "content", where)
            answerable = set()
        elif role == "assistant":
            _string(message, "content", where, optional=True)
            answerable = _tool_calls(message, where)
        else:
            _string(message, "content", where)
            _string(message, "tool_call_id", where)
            if message["tool_call_id"] not in answerable:
                raise _Malformed(f"{where}: it answers no tool call of the assistant message before it")
            answerable.discard(message["tool_call_id"])
    return messages


def _check_state(state: object) -> dict[str, Any]:
    """``state`` if ``ctx.state`` could hold it (a JSON object within the limit); ``_Malformed`` if not."""
    if not isinstance(state, dict):
        raise _Malformed(f"state must be an object, not {type(state).__name__}")
    try:
        ToolState(state)
    except StateError as error:
        raise _Malformed(f"state: {error}") from None
    return state


def load_thread(root: Path, thread_id: str, agent: str) -> Thread | None:
    """The thread ``thread_id`` of the project at ``root``, or ``None`` if it does not exist yet."""
    path = thread_path(root, thread_id)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise UserError(f"cannot read the thread {path}: {error.strerror or error}") from None
    hint = f"move {path} away, or use another --thread id"
    try:
        document = read_json(data.decode("utf-8"))
    except (ValueError, RecursionError) as error:
        raise UserError(f"{path} is not a thread file: it is not valid JSON ({error})", hint=hint) from None
    if not isinstance(document, dict) or document.get("format") != THREAD_FORMAT:
        raise UserError(f"{path} is not a thread file of format {THREAD_FORMAT}", hint=hint)
    try:
        messages = _check_messages(document.get("messages"))
        state = _check_state(document.get("state", {}))
        for key in ("id", "agent", "created", "updated"):
            if not isinstance(document.get(key, ""), str):
                raise _Malformed(f"{key} must be a string")
    except _Malformed as malformed:
        raise UserError(f"{path} is not a thread file: {malformed}", hint=hint) from None
    created = document.get("created")
    return Thread(
        id=thread_id,
        agent=str(document.get("agent") or agent),
        messages=messages,
        created=created if isinstance(created, str) else _now(),
        updated=str(document.get("updated") or ""),
        state=state,
    )


def save_thread(root: Path, thread: Thread) -> Path:
    """Write ``thread`` to its file, atomically; return the file's path."""
    path = thread_path(root, thread.id)
    thread.updated = _now()
    text = write_json(thread.to_dict(), indent=2, ensure_ascii=False) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{thread.id}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise UserError(f"cannot save the thread {path}: {error.strerror or error}") from None
    return path
