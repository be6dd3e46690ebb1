"""What ``dist/`` will hold for each tool and skill, as the artifact builder hands it to the writer.

A leaf of plain types, so that checking a project (which builds artifacts but writes
nothing) never imports the writer and the manifest models it needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from .types import SkillInfo, ToolInfo

__all__ = ["EmittedSkill", "EmittedTool", "ToolFiles"]


class ToolFiles(NamedTuple):
    """What ``dist/tools/<name>/`` holds for one tool, and what its manifest entry says of them
    (a tuple: the artifacts cache loads hundreds per compile)."""

    archive: bytes
    entry_module: str
    requirements: tuple[str, ...]
    input_schema: Mapping[str, Any]
    parameters: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None


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
