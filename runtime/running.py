"""What code runs now, in this context: whose it is, for which call, and where its prints go.

One context variable holds a ``Running`` record for the user code in progress (a
condition, validators, ``execute``, serializers, an approver, a bundle's import):

- ``scope``: the import scope of the tool whose code it is (``imports``), or ``None``
  for code that is no tool's;
- ``context``: the ``ToolContext`` that ``ToolContext.current()`` returns (``context``);
- ``capture``: the ``Capture`` that receives what the code prints (``capture``), or
  ``None`` for the real streams;
- ``owner``: the call the code runs for, told of the coroutines the code makes and drops
  without awaiting (``unawaited``) and of the copies of ``ctx.state`` values it is handed
  (``context.ToolState``), or ``None`` for code that no call answers for.

One variable rather than one per fact: a context variable costs an allocation each
time it is set and again when it is reset, and the call path sets these around every
call.  Code that changes one fact (``ctx.activate()``, ``capture.active()``) sets a
record that keeps the other two (``Running.replacing``).  The record is read, never
changed, once it is set: a task or thread that copied the context sees what was
running when it was copied.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Final, Protocol

__all__ = ["KEEP", "NOTHING", "Owner", "Printed", "Running", "now", "replaced", "running_tool_label", "start", "stop"]


class _Keep:
    """The type of ``KEEP``."""

    __slots__ = ()


#: Given to ``Running.replacing`` for a field that stays as it is.
KEEP: Final = _Keep()


class Printed(Protocol):
    """Where what the code prints goes: a ``capture.Capture``."""

    def write(self, text: str) -> None:
        """Keep ``text``."""

    @property
    def text(self) -> str:
        """Everything kept so far."""


class Owner(Protocol):
    """The call that answers for the code running: a ``call._Call``."""

    def dropped(self, what: str) -> None:
        """The code made a coroutine and let go of it unawaited: ``what`` says which, and where."""

    def handed_out(self, state: object, key: str, value: object, text: str) -> None:
        """The code read ``key`` of a ``context.ToolState``: ``value``, a list or dict copied from ``text``."""


class Running:
    """Whose code runs, for which context, printing where, for which call (see the module).

    The scope and the context are typed loosely (``imports.ImportScope``,
    ``context.ToolContext``): the modules that read them import this one, so this one
    cannot import them; each checks the type of what it reads.
    """

    __slots__ = ("capture", "context", "owner", "scope")

    def __init__(self, scope: object, context: object, capture: Printed | None, owner: Owner | None = None) -> None:
        self.scope = scope
        self.context = context
        self.capture = capture
        self.owner = owner

    def replacing(
        self,
        *,
        scope: object = KEEP,
        context: object = KEEP,
        capture: Printed | None | _Keep = KEEP,
    ) -> Running:
        """A record like this one with the fields given changed (``KEEP`` keeps one), for the same owner."""
        return Running(
            self.scope if isinstance(scope, _Keep) else scope,
            self.context if isinstance(context, _Keep) else context,
            self.capture if isinstance(capture, _Keep) else capture,
            self.owner,
        )


#: No user code runs: no tool's scope, no context, the real streams.
NOTHING: Final = Running(None, None, None)

_NOW: Final[ContextVar[Running]] = ContextVar("skillc_running", default=NOTHING)

#: The record of the code running in this context (``NOTHING`` outside of any).
now: Final = _NOW.get
#: Make ``running`` the record of this context until ``stop(token)``; returns the token.
start: Final = _NOW.set
#: Undo the ``start`` that returned ``token``.
stop: Final = _NOW.reset


def replaced(
    *,
    scope: object = KEEP,
    context: object = KEEP,
    capture: Printed | None | _Keep = KEEP,
) -> Token[Running]:
    """``start`` a record like the current one with the fields given changed; undo with ``stop``."""
    return _NOW.set(_NOW.get().replacing(scope=scope, context=context, capture=capture))


def running_tool_label() -> str:
    """``tool 'lookup'``: the tool whose call's code runs in this context, as log lines name it (``a tool``
    when its context names none)."""
    tool = getattr(_NOW.get().context, "tool", None)
    return f"tool {tool!r}" if isinstance(tool, str) else "a tool"
