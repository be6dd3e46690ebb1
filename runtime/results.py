"""What one tool call gives back: a ``ToolResult``, never an exception.

The ``output`` is the text the model sees: the tool's result as JSON (a string result
as it is) or, for an error, a message that says what went wrong without echoing the
arguments.  ``error_type`` says which step failed, for programs.  Inside the call path a
step ends the call with ``refuse``; the call turns the ``CallRefused`` into its result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, NoReturn, TypeAlias, get_args

__all__ = ["ERROR_TYPES", "CallRefused", "ErrorType", "ToolResult", "refuse"]

ErrorType: TypeAlias = Literal[
    "unknown_tool",
    "not_offered",
    "invalid_json",
    "validation",
    "execution",
    "timeout",
    "output_validation",
    "serialization",
    "approval_denied",
    "call_limit",
]
#: Every error type, in the order the call path can meet them.
ERROR_TYPES: Final[tuple[ErrorType, ...]] = get_args(ErrorType)


#: How ``ToolResult.of_call`` makes a result without ``__init__`` (bound once: one result per call).
_new: Final = object.__new__


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one call of one tool."""

    call_id: str
    name: str
    is_error: bool
    #: What the model sees: the result as JSON text, or the error message.
    output: str
    error_type: ErrorType | None = None
    duration_ms: float = 0.0
    #: How many times ``execute`` ran (0 when the call failed before it).
    attempts: int = 0

    def __post_init__(self) -> None:
        if self.is_error != (self.error_type is not None):
            raise ValueError("a ToolResult has an error_type exactly when is_error is true")
        if self.error_type is not None and self.error_type not in ERROR_TYPES:
            raise ValueError(f"unknown error_type {self.error_type!r}")

    @classmethod
    def of_call(
        cls, call_id: str, name: str, output: str, error_type: ErrorType | None, duration_ms: float, attempts: int
    ) -> ToolResult:
        """The result the call path makes (``is_error`` follows from ``error_type``, one of ``ERROR_TYPES``).

        Equal to ``ToolResult(...)`` with the same fields, made at a quarter of the cost: one
        is made per call, and the checks of ``__post_init__`` hold by construction here.  The
        fields go into the instance's own dictionary one by one, as ``__init__`` puts them
        (a new dictionary assigned as ``__dict__`` costs a third more).
        """
        result = _new(cls)
        fields = result.__dict__
        fields["call_id"] = call_id
        fields["name"] = name
        fields["is_error"] = error_type is not None
        fields["output"] = output
        fields["error_type"] = error_type
        fields["duration_ms"] = duration_ms
        fields["attempts"] = attempts
        return result

    def to_dict(self) -> dict[str, object]:
        """The result as one JSON-ready object (``skill test --json``)."""
        return {
            "call_id": self.call_id,
            "name": self.name,
            "is_error": self.is_error,
            "output": self.output,
            "error_type": self.error_type,
            "duration_ms": self.duration_ms,
            "attempts": self.attempts,
        }


class CallRefused(Exception):
    """Ends a call with an error result of ``error_type`` whose output is ``message``."""

    def __init__(self, error_type: ErrorType, message: str) -> None:
        super().__init__(message)
        self.error_type: ErrorType = error_type
        self.message = message


def refuse(error_type: ErrorType, message: str) -> NoReturn:
    """End the call in progress with an error result (raises ``CallRefused``)."""
    raise CallRefused(error_type, message)
