"""skillc: write, check and ship LLM tools in Python.

What a skill author imports lives here::

    from skillc import Agent, Skill, Tool, ToolContext, tool

The names are loaded on first use, so that commands which do not need the authoring
SDK (``skill compile`` among them) do not pay for importing pydantic.
"""

from __future__ import annotations

from importlib import import_module

# Absolute, not relative: test runners import a repository's root __init__.py under the
# folder's name (a clone may be called anything), and this line must work there too.
from skillc.contracts.version import __version__

# Not typing's: importing typing takes ~8 ms, and ``skill`` reaches the handler of an early
# Ctrl-C (cli/entry.py) only after this module has run.  Type checkers read the name alike.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .contracts.errors import SkillError, ToolDefinitionError, UserError
    from .runtime.context import Environment, StateError, ToolContext, ToolState
    from .runtime.sdk import Agent, Condition, FunctionTool, Skill, Tool, ToolFlag, tool

__all__ = [
    "Agent",
    "Condition",
    "Environment",
    "FunctionTool",
    "Skill",
    "SkillError",
    "StateError",
    "Tool",
    "ToolContext",
    "ToolDefinitionError",
    "ToolFlag",
    "ToolState",
    "UserError",
    "__version__",
    "tool",
]


def __getattr__(name: str) -> Any:
    # The runtime package knows where each name lives and loads it on first use.
    if name not in __all__:
        raise AttributeError(f"module 'skillc' has no attribute {name!r}")
    value = getattr(import_module(".runtime", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
