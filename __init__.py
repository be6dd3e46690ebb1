"""skillc: write, check and ship LLM tools in Python.

What a skill author imports lives here::

    from skillc import Agent, Skill, Tool, ToolContext, tool
"""

from importlib.metadata import PackageNotFoundError, version

from .runtime import (
    Agent,
    Condition,
    Environment,
    FunctionTool,
    Skill,
    SkillError,
    Tool,
    ToolContext,
    ToolDefinitionError,
    ToolFlag,
    UserError,
    tool,
)

try:
    __version__ = version("skillc")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

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
    "__version__",
    "tool",
]
