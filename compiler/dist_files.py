"""What ``dist/`` will hold for each tool and skill, as the artifact builder hands it to the writer.

A leaf of plain types, so that checking a project (which builds artifacts but writes
nothing) never imports the writer and the manifest models it needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from .json_text import indented_json
from .types import SkillInfo, ToolInfo

__all__ = ["EmittedSkill", "EmittedTool", "ToolFiles", "tool_files"]


class ToolFiles(NamedTuple):
    """What ``dist/tools/<name>/`` holds for one tool, and what its manifest entry says of them
    (a tuple: the artifacts cache loads hundreds per compile)."""

    archive: bytes
    entry_module: str
    requirements: tuple[str, ...]
    input_schema: Mapping[str, Any]
    parameters: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None
    #: The three as ``dist/`` writes them (``json_text.indented_json``, no final newline):
    #: rendered once, with the rest of the artifacts, and cached with them.
    input_json: str
    parameters_json: str
    output_json: str | None


def tool_files(
    archive: bytes,
    entry_module: str,
    requirements: tuple[str, ...],
    input_schema: Mapping[str, Any],
    parameters: Mapping[str, Any],
    output_schema: Mapping[str, Any] | None,
) -> ToolFiles:
    """A tool's ``ToolFiles``, its schemas rendered (a tool that is not strict sends its input schema: rendered once)."""
    input_json = indented_json(input_schema)
    return ToolFiles(
        archive,
        entry_module,
        requirements,
        input_schema,
        parameters,
        output_schema,
        input_json,
        input_json if parameters is input_schema else indented_json(parameters),
        None if output_schema is None else indented_json(output_schema),
    )


@dataclass(frozen=True)
class EmittedTool:
    """A tool, and its files in ``dist/``."""

    info: ToolInfo
    files: ToolFiles


@dataclass(frozen=True)
class EmittedSkill:
    """A skill, and the archive its ``condition()`` runs from, if it has one."""

    info: SkillInfo
    archive: bytes | None
    entry_module: str | None
