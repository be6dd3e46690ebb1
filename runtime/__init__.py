"""What runs a tool project: the authoring SDK now, the loader and call path later.

This package never imports the compiler, the CLI or libcst: a deployed runtime needs
none of them.
"""

from .context import Environment, ToolContext
from .errors import SkillError, ToolDefinitionError, UserError
from .sdk import Agent, Condition, FunctionTool, Skill, Tool, ToolFlag, tool

__all__ = [
    "Agent",
    "Condition",
    "Environment",
    "FunctionTool",
    "SkillError",
    "Skill",
    "Tool",
    "ToolContext",
    "ToolDefinitionError",
    "ToolFlag",
    "UserError",
    "tool",
]
