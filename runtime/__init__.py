"""What runs a tool project: the authoring SDK now, the loader and call path later.

This package never imports the compiler, the CLI or libcst: a deployed runtime needs
none of them.  Its names load on first use, like the top-level package's.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .context import Environment, ToolContext
    from .errors import SkillError, ToolDefinitionError, UserError
    from .sdk import Agent, Condition, FunctionTool, Skill, Tool, ToolFlag, tool

__all__ = [
    "Agent",
    "Condition",
    "Environment",
    "FunctionTool",
    "Skill",
    "SkillError",
    "Tool",
    "ToolContext",
    "ToolDefinitionError",
    "ToolFlag",
    "UserError",
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
    "SkillError": ".errors",
    "ToolDefinitionError": ".errors",
    "UserError": ".errors",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'skillc.runtime' has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
