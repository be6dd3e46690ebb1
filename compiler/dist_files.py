"""What ``dist/`` will hold for each tool and skill, as the artifact builder hands it to the writer.

A leaf of plain types, so that checking a project (which builds artifacts but writes
nothing) never imports the writer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Any, NamedTuple

from ..contracts.settings import STRICT
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
    #: ``tool.json``, byte for byte.
    definition: bytes
    #: The tool's manifest entry as ``manifest_text.tool_entry_json`` renders it, made with the
    #: artifacts and cached with them (``""`` where no ``dist/`` is written: a check).
    manifest_json: str = ""


def object_bytes(fields: Sequence[tuple[str, str]]) -> bytes:
    """The file of an object whose values are given as ``indented_json`` text already, in order:
    ``json.dumps(..., indent=2, ensure_ascii=False)`` and a final newline, as everything in ``dist/``.

    A value nests by indenting each of its lines: JSON text has a line break only between
    its parts (one inside a string is written ``\\n``).
    """
    inner = "\n  "
    parts = [encode_basestring(key) + ": " + text.replace("\n", inner) for key, text in fields]
    return ("{" + inner + ("," + inner).join(parts) + "\n}\n").encode()


def tool_files(
    info: ToolInfo,
    archive: bytes,
    entry_module: str,
    requirements: tuple[str, ...],
    input_schema: Mapping[str, Any],
    parameters: Mapping[str, Any],
    output_schema: Mapping[str, Any] | None,
    manifest_json: str = "",
) -> ToolFiles:
    """A tool's ``ToolFiles``, its schemas and ``tool.json`` rendered (a tool that is not strict
    sends its input schema: rendered once)."""
    input_json = indented_json(input_schema)
    parameters_json = input_json if parameters is input_schema else indented_json(parameters)
    definition = object_bytes(
        [
            ("type", '"function"'),
            ("name", indented_json(info.name)),
            ("description", indented_json(info.description)),
            ("parameters", parameters_json),
            ("strict", indented_json(info.settings[STRICT])),
        ]
    )
    return ToolFiles(
        archive,
        entry_module,
        requirements,
        input_schema,
        parameters,
        output_schema,
        input_json,
        parameters_json,
        None if output_schema is None else indented_json(output_schema),
        definition,
        manifest_json,
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
