"""What runs a tool project: the authoring SDK, and the runtime that loads a compiled
``dist/`` and runs its tools (``load_dist``, ``Runtime.offer``, ``Runtime.call``).

This package never imports the compiler, the CLI or libcst: a deployed runtime needs
none of them.  Its names load on first use, like the top-level package's.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers; at run time __getattr__ imports each name on first use
    from ..contracts.errors import SkillError, ToolDefinitionError, UserError
    from .context import Environment, StateError, ToolContext, ToolState
    from .envfile import load_env
    from .loader import Runtime, load_dist
    from .offer import Offer
    from .results import ErrorType, ToolResult
    from .sdk import Agent, Condition, FunctionTool, Skill, Tool, ToolFlag, tool

__all__ = [
    "Agent",
    "Condition",
    "Environment",
    "ErrorType",
    "FunctionTool",
    "Offer",
    "Runtime",
    "Skill",
    "SkillError",
    "StateError",
    "Tool",
    "ToolContext",
    "ToolDefinitionError",
    "ToolFlag",
    "ToolResult",
    "ToolState",
    "UserError",
    "load_dist",
    "load_env",
    "tool",
]

_EXPORTS = {
    "Agent": ".sdk",
    "Condition": ".sdk",
    "FunctionTool": ".sdk",
    "Skill": ".sdk",
    "Tool": ".sdk",
    "ToolFlag": ".sdk",
    "tool": ".sdk",
    "Environment": ".context",
    "ToolContext": ".context",
    "ToolState": ".context",
    "StateError": ".context",
    "SkillError": "..contracts.errors",
    "ToolDefinitionError": "..contracts.errors",
    "UserError": "..contracts.errors",
    "load_dist": ".loader",
    "Runtime": ".loader",
    "Offer": ".offer",
    "ToolResult": ".results",
    "ErrorType": ".results",
    "load_env": ".envfile",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'skillc.runtime' has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
