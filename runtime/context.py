"""The context a tool runs in: who called it, where, and with which variables.

``execute(input, ctx)`` receives it as an argument.  ``condition()`` takes no argument,
so the same context is published in a context variable for the duration of a call or an
offer, and ``ToolContext.current()`` reads it there.

``ctx.state`` is the conversation's own data (``ToolState``): one object per thread,
shared by every call and condition of it, kept in the thread file by ``skill chat``.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from contextvars import Token
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal

from ..contracts.errors import SkillError, ToolDefinitionError
from ..contracts.spec import ENVIRONMENTS, TOOL_LOGGER
from .data.api import DataStore
from .data.open import scratch_store
from .ownjson import read_json, write_json
from .running import Running, now, replaced, stop
from .serialize import human_size

__all__ = [
    "MAX_STATE_BYTES",
    "STATE_LOCK_WAIT",
    "Environment",
    "StateError",
    "ToolContext",
    "ToolState",
    "make_current",
    "stop_current",
]

Environment = Literal["sandbox", "production"]

#: The largest state, in bytes of its compact JSON (non-ASCII characters counted as escapes).
MAX_STATE_BYTES: Final = 256 * 1024
#: How long (seconds) an operation on a state waits for another call's ``edit()`` block to end.
STATE_LOCK_WAIT: Final = 10.0
#: Values nested deeper than this are refused.
_MAX_DEPTH: Final = 64
#: Integers this large or larger have more than 4,300 digits, which JSON readers refuse.
_HUGE: Final = 10**4300
_ALLOWED: Final = "dicts with string keys, lists, strings, finite numbers, booleans and None"


class StateError(SkillError, ValueError):
    """A value ``ctx.state`` cannot keep (not JSON data, or past the size limit), or a state locked too long.

    Raised in the tool's code at the operation, so an ``execute`` that lets it escape
    ends with an ``execution`` error result that says which key and why.
    """


def _label(key: str) -> str:
    text = repr(key)
    return f"ctx.state[{text if len(text) <= 60 else text[:57] + '...'}]"


def _path(key: str, steps: tuple[int | str, ...]) -> str:
    return _label(key) + "".join(f"[{step!r}]" if len(repr(step)) <= 40 else "[...]" for step in steps)


def _unicode(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (no lone surrogates)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check(key: object, value: object, limit: int) -> None:
    """Refuse, with a ``StateError`` that says where, a ``value`` that is not plain JSON data."""
    if not isinstance(key, str) or not _unicode(key):
        raise StateError(f"ctx.state keys are strings of valid Unicode, not {type(key).__name__} {key!r:.60}")
    pending: list[tuple[object, tuple[int | str, ...]]] = [(value, ())]
    budget = limit  # each value takes at least one byte of JSON
    while pending:
        item, steps = pending.pop()
        budget -= 1
        if budget < 0:
            raise StateError(f"{_label(key)} is too large: the state holds at most {human_size(limit)} of JSON")
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, str):
            if not _unicode(item):
                raise StateError(f"{_path(key, steps)} is a string that is not valid Unicode (a lone surrogate)")
        elif isinstance(item, int):
            if abs(item) >= _HUGE:
                raise StateError(
                    f"{_path(key, steps)} is an integer of more than 4,300 digits, which JSON readers refuse"
                )
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise StateError(f"{_path(key, steps)} is {item!r}: JSON has no NaN or infinity")
        elif len(steps) >= _MAX_DEPTH:
            raise StateError(f"{_label(key)} is nested more than {_MAX_DEPTH} levels deep")
        elif isinstance(item, dict):
            for name, child in item.items():
                if not isinstance(name, str) or not _unicode(name):
                    raise StateError(
                        f"{_path(key, steps)} has a key of type {type(name).__name__}: JSON object keys are strings"
                    )
                pending.append((child, (*steps, name)))
        elif isinstance(item, list | tuple):
            pending.extend((child, (*steps, index)) for index, child in enumerate(item))
        else:
            raise StateError(
                f"{_path(key, steps)} is a {type(item).__name__}, which is not JSON data: the state keeps {_ALLOWED} "
                "(a pydantic model: store model.model_dump(mode='json'))"
            )


def _encoded(key: object, value: object, limit: int) -> str:
    """``value`` as the JSON text the state keeps for ``key``; a ``StateError`` if it is not JSON data."""
    _check(key, value, limit)
    return write_json(value)


def _entry_size(key: str, text: str) -> int:
    """The bytes ``"key": value, `` takes in the state's compact JSON."""
    return len(write_json(key)) + len(text) + 4


class ToolState(MutableMapping[str, Any]):
    """A conversation's own data, kept by its tools between calls: JSON values by name.

    ``ctx.state["seat"] = "14C"``, ``ctx.state.get("seat")``, ``del ctx.state["seat"]``,
    ``"seat" in ctx.state`` work as on a dict, with these guarantees:

    - *JSON only*: a value is checked when it is stored; anything but dicts with string
      keys, lists (tuples become lists), strings, finite numbers, booleans and ``None``
      raises ``StateError`` naming the key and the place inside the value.  So does a
      state that would grow past ``limit`` bytes (``MAX_STATE_BYTES``, 256 KiB, by
      default): a tool cannot grow a thread file without bound.
    - *copies*: a value is copied in when stored and out when read, so changing what
      ``ctx.state["cart"]`` returned changes nothing until it is stored again.
    - *atomic*: every operation holds the state's lock, so calls running at once (sync
      tools in worker threads, async ones on the event loop) never see half an update.
      A read-modify-write is atomic inside ``with ctx.state.edit() as state:`` (see
      ``edit``); ``update`` stores several keys at once, or none.
    """

    __slots__ = ("_lock", "_owner", "_size", "_values", "limit")

    def __init__(self, values: Mapping[str, Any] | None = None, *, limit: int = MAX_STATE_BYTES) -> None:
        self.limit = limit
        self._values: dict[str, str] = {}  # each value as its JSON text
        self._size = 2
        self._lock = threading.Lock()
        self._owner: int | None = None
        if values:
            self.update(values)

    def __repr__(self) -> str:
        count = len(self._values)
        return f"<ToolState: {count} key{'' if count == 1 else 's'}, {self._size} bytes of JSON>"

    @contextmanager
    def _locked(self) -> Iterator[None]:
        me = threading.get_ident()
        if self._owner == me:  # this thread holds it: waiting would never end
            raise StateError(
                "ctx.state is being edited by code on this thread whose `with ctx.state.edit()` block has not "
                "ended: use the dict the block gives, and do not await inside the block"
            )
        if not self._lock.acquire(timeout=STATE_LOCK_WAIT):
            raise StateError(f"ctx.state stayed locked by another call's edit() for more than {STATE_LOCK_WAIT:g} s")
        self._owner = me
        try:
            yield
        finally:
            self._owner = None
            self._lock.release()

    def _store(self, entries: Mapping[str, str], *, replace: bool = False) -> None:
        """Store encoded ``entries`` (all the state with ``replace``), or none past the limit; lock held."""
        kept = {} if replace else self._values
        size = (2 if replace else self._size) + sum(_entry_size(key, text) for key, text in entries.items())
        size -= sum(_entry_size(key, kept[key]) for key in entries if key in kept)
        if size > self.limit:
            keys = ", ".join(_label(key) for key in list(entries)[:3]) or "ctx.state"
            raise StateError(
                f"storing {keys} would make the state {human_size(size)} of JSON, "
                f"more than its limit of {human_size(self.limit)}"
            )
        if replace:
            self._values = dict(entries)
        else:
            self._values.update(entries)
        self._size = size

    def __getitem__(self, key: str) -> Any:
        with self._locked():
            text = self._values[key]
        return self._handed_out(key, text)

    def _handed_out(self, key: str, text: str) -> Any:
        """A copy of the value ``text`` holds; a list or dict is told to the call reading it (``Owner.handed_out``),
        which warns, at its end, of one changed in place and not stored again (``unsaved_change``)."""
        value = read_json(text)
        if type(value) is list or type(value) is dict:
            owner = now().owner
            if owner is not None:
                owner.handed_out(self, key, value, text)
        return value

    def unsaved_change(self, key: str, value: Any, text: str) -> bool:
        """Whether ``value``, handed out as ``text`` for ``key``, was changed since and is not what ``key`` holds now."""
        try:
            changed = _encoded(key, value, self.limit)
        except StateError:
            return True  # it holds what no state can: it cannot have been stored
        if changed == text:
            return False
        with self._locked():
            return self._values.get(key) != changed

    def __setitem__(self, key: str, value: Any) -> None:
        text = _encoded(key, value, self.limit)
        with self._locked():
            self._store({key: text})

    def __delitem__(self, key: str) -> None:
        with self._locked():
            text = self._values.pop(key)
            self._size -= _entry_size(key, text)

    def __iter__(self) -> Iterator[str]:
        with self._locked():
            keys = list(self._values)
        return iter(keys)

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: object) -> bool:
        with self._locked():
            return key in self._values

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` (a copy), or ``default``."""
        with self._locked():
            text = self._values.get(key)
        return default if text is None else self._handed_out(key, text)

    def pop(self, key: str, *default: Any) -> Any:
        """Remove ``key`` and return its value, atomically; ``default`` (or ``KeyError``) when absent."""
        with self._locked():
            text = self._values.pop(key, None)
            if text is not None:
                self._size -= _entry_size(key, text)
        if text is None:
            if default:
                return default[0]
            raise KeyError(key)
        return read_json(text)

    def setdefault(self, key: str, default: Any = None) -> Any:
        """The value of ``key``; if there is none, store ``default`` first, atomically."""
        text = _encoded(key, default, self.limit)
        with self._locked():
            if key not in self._values:
                self._store({key: text})
            text = self._values[key]
        return self._handed_out(key, text)

    def clear(self) -> None:
        """Remove every key."""
        with self._locked():
            self._values, self._size = {}, 2

    def update(self, other: Mapping[str, Any] | Iterable[tuple[str, Any]] = (), /, **values: Any) -> None:  # type: ignore[override]
        """Store every key given, all at once: a value that cannot be kept stores none of them."""
        given = dict(other, **values)
        entries = {key: _encoded(key, value, self.limit) for key, value in given.items()}
        with self._locked():
            self._store(entries)

    @contextmanager
    def edit(self) -> Iterator[dict[str, Any]]:
        """A read-modify-write of the whole state, atomic against every other call::

            with ctx.state.edit() as state:
                state["count"] = state.get("count", 0) + 1

        The block gets a plain ``dict`` copy of the state and holds the state's lock:
        other calls wait (at most ``STATE_LOCK_WAIT`` seconds) until it ends.  When the
        block ends normally the dict becomes the state, checked as a whole (a value that
        cannot be kept raises ``StateError`` and changes nothing); when it raises, the
        state is left as it was.  Keep the block short and do not ``await`` inside it:
        an async tool holding the lock across an ``await`` would stall the other calls,
        so one that tries to use the state meanwhile gets a ``StateError`` instead.
        """
        with self._locked():
            draft = {key: read_json(text) for key, text in self._values.items()}
            yield draft
            self._store({key: _encoded(key, value, self.limit) for key, value in draft.items()}, replace=True)

    def to_dict(self) -> dict[str, Any]:
        """A copy of the whole state as plain JSON data (what a thread file keeps)."""
        with self._locked():
            values = dict(self._values)
        return {key: read_json(text) for key, text in values.items()}

    @property
    def size(self) -> int:
        """What ``limit`` bounds: the bytes of ``{"key": value, ...}`` in ASCII-escaped JSON, a separator per key."""
        return self._size


def _frozen(data: Mapping[str, Any] | None) -> Mapping[str, Any]:
    # A context made from another (dataclasses.replace, once per call) keeps its views.
    if isinstance(data, MappingProxyType):
        return data
    return MappingProxyType(dict(data or {}))


#: How ``ToolContext.for_call`` makes a context without ``__init__`` (bound once: one per call).
_new: Final = object.__new__
_set: Final = object.__setattr__


@dataclass(frozen=True)
class ToolContext:
    """Everything a tool may know about the call it is serving.

    ``env`` holds the variables of the environment (from ``.env.<environment>`` and
    ``.env`` in the project); its values are secrets as often as not, so its ``repr``
    shows only the names.

    ``state`` is the conversation's writable data (see ``ToolState``): a context copied
    for a call (``dataclasses.replace``) shares it, so every call and condition of a
    thread reads and writes the same one.  A plain mapping given as ``state`` becomes a
    new ``ToolState`` holding a copy of it.
    """

    call_id: str = "local"
    tool: str | None = None
    skill: str | None = None
    environment: Environment = "sandbox"
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    user: Mapping[str, Any] = field(default_factory=dict)
    session: Mapping[str, Any] = field(default_factory=dict)
    logger: logging.Logger = field(default_factory=lambda: logging.getLogger(TOOL_LOGGER))
    state: ToolState = field(default_factory=ToolState)
    #: The document store of the environment (``skillc.runtime.data``), shared by every call of the
    #: project; a context built by hand gets a temporary one of its own.
    data: DataStore = field(default_factory=scratch_store, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.environment not in ENVIRONMENTS:
            raise ToolDefinitionError(f"environment must be one of {', '.join(ENVIRONMENTS)}, not {self.environment!r}")
        object.__setattr__(self, "env", _frozen(self.env))
        object.__setattr__(self, "user", _frozen(self.user))
        object.__setattr__(self, "session", _frozen(self.session))
        if not isinstance(self.state, ToolState):  # shared by reference when it is one already
            object.__setattr__(self, "state", ToolState(self.state))

    def for_call(self, call_id: str, tool: str, skill: str) -> ToolContext:
        """This context for one call of ``tool`` of ``skill``: the same ``state`` and ``data``, shared.

        What ``dataclasses.replace`` would give, at a tenth of the cost: the copied
        fields were checked when this context was made, so they are not checked again.
        """
        copy = _new(ToolContext)
        fields = self.__dict__.copy()
        fields["call_id"], fields["tool"], fields["skill"] = call_id, tool, skill
        _set(copy, "__dict__", fields)
        return copy

    def __repr__(self) -> str:
        return (
            f"ToolContext(call_id={self.call_id!r}, tool={self.tool!r}, skill={self.skill!r}, "
            f"environment={self.environment!r}, env=<{len(self.env)} variables>)"
        )

    @classmethod
    def current(cls) -> ToolContext:
        """Return the context of the call or offer in progress.

        Raises ``LookupError`` outside of one: a condition that needs the context must
        be run inside ``ctx.activate()`` (the runtime does that for every offer).
        """
        context = now().context
        if not isinstance(context, ToolContext):
            raise LookupError("no ToolContext is active: run the code inside `with ctx.activate():`")
        return context

    def activate(self) -> _Activation:
        """Make this context the current one inside the ``with`` block."""
        return _Activation(self)


class _Activation:
    """``ToolContext.activate()``: a plain context manager, as it runs around every call."""

    __slots__ = ("_context", "_token")

    def __init__(self, context: ToolContext) -> None:
        self._context = context

    def __enter__(self) -> ToolContext:
        self._token = make_current(self._context)
        return self._context

    def __exit__(self, *exc_info: object) -> None:
        stop_current(self._token)


def make_current(context: ToolContext) -> Token[Running]:
    """What ``context.activate()`` does on entering: ``context`` is ``ToolContext.current()``
    until ``stop_current(token)``.
    """
    return replaced(context=context)


def stop_current(token: Token[Running]) -> None:
    """Undo the ``make_current`` that gave ``token``."""
    stop(token)
