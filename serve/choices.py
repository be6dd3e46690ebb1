"""The values ``skill serve`` offers as choices: how a host reaches the server, and the hosts it knows.

A module of its own, importing nothing but ``enum``: the command line declares its
options with these on every start of ``skill``, whatever the command.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Host", "Transport"]


class Transport(str, Enum):
    """How a host reaches the server: it starts it (stdio), or it is given its URL (http)."""

    stdio = "stdio"
    http = "http"


class Host(str, Enum):
    """The hosts ``--print-config`` knows."""

    claude = "claude"
    claude_code = "claude-code"
    cursor = "cursor"
    vscode = "vscode"
    openai_agents = "openai-agents"
