"""The context a tool runs in: who called it, where, and with which variables.

``execute(input, ctx)`` receives it as an argument.  ``condition()`` takes no argument,
so the same context is published in a context variable for the duration of a call or an
offer, and ``ToolContext.current()`` reads it there.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from ..contracts.errors import ToolDefinitionError
from ..contracts.spec import ENVIRONMENTS

__all__ = ["Environment", "ToolContext"]

Environment = Literal["sandbox", "production"]

_CURRENT: ContextVar[ToolContext] = ContextVar("skillc_tool_context")


def _frozen(data: Mapping[str, Any] | None) -> Mapping[str, Any]:
    # A context made from another (dataclasses.replace, once per call) keeps its views.
    if isinstance(data, MappingProxyType):
        return data
    return MappingProxyType(dict(data or {}))


@dataclass(frozen=True)
class ToolContext:
    """Everything a tool may know about the call it is serving.

    ``env`` holds the variables of the environment (from ``.env.<environment>`` and
    ``.env`` in the project); its values are secrets as often as not, so its ``repr``
    shows only the names.
    """

    call_id: str = "local"
    tool: str | None = None
    skill: str | None = None
    environment: Environment = "sandbox"
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    user: Mapping[str, Any] = field(default_factory=dict)
    session: Mapping[str, Any] = field(default_factory=dict)
    logger: logging.Logger = field(default_factory=lambda: logging.getLogger("skillc.tool"))

    def __post_init__(self) -> None:
        if self.environment not in ENVIRONMENTS:
            raise ToolDefinitionError(f"environment must be one of {', '.join(ENVIRONMENTS)}, not {self.environment!r}")
        object.__setattr__(self, "env", _frozen(self.env))
        object.__setattr__(self, "user", _frozen(self.user))
        object.__setattr__(self, "session", _frozen(self.session))

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
        try:
            return _CURRENT.get()
        except LookupError:
            raise LookupError("no ToolContext is active: run the code inside `with ctx.activate():`") from None

    @contextmanager
    def activate(self) -> Iterator[ToolContext]:
        """Make this context the current one inside the ``with`` block."""
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)
