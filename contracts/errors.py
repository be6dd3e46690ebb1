"""The one error hierarchy of skillc.

Every error that skillc raises on purpose is a ``SkillError``.  ``UserError`` is the
branch whose message is meant for the person at the keyboard: the CLI prints it without
a traceback and exits with its ``exit_code``.  Anything else that escapes is a bug in
skillc and is reported as one.
"""

from __future__ import annotations

__all__ = [
    "EXIT_ERRORS",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "INTERRUPTED",
    "EXIT_USAGE",
    "ConfigError",
    "SkillError",
    "ToolDefinitionError",
    "UsageError",
    "UserError",
]

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2
#: A Ctrl-C that the command did not handle itself; the CLI says ``INTERRUPTED`` on stderr.
EXIT_INTERRUPTED = 130
INTERRUPTED = "interrupted"


class SkillError(Exception):
    """Base class of every error skillc raises on purpose."""


class UserError(SkillError):
    """An error caused by the user's input, shown as a message without a traceback."""

    exit_code: int = EXIT_ERRORS

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(UserError):
    """The command line asked for something that cannot be done as asked."""

    exit_code = EXIT_USAGE


class ConfigError(UserError):
    """The project's configuration is missing or malformed."""

    exit_code = EXIT_USAGE


class ToolDefinitionError(SkillError, ValueError):
    """A tool, skill or agent was defined in a way that can never work.

    It is also a ``ValueError`` so that code catching the usual built-in error for bad
    arguments keeps working.
    """
