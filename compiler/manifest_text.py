"""The text of ``dist/manifest.json``, assembled from each entry's JSON rendered once.

The documents are the ones ``contracts.manifest``'s models read, made here from the
compiler's own values without those models: building them (and importing pydantic) would
cost a compile about a tenth of a second, and every value here was checked already by the
compiler's diagnostics.  That a written manifest is exactly what the models read and
render again is the test suite's to prove (``tests/test_emit_manifest.py``), for every
shape of entry.

``tool_entry_json`` renders one tool's entry when its artifacts are built, and that text
is cached with them (``dist_files.ToolFiles.manifest_json``), so a compile after a change
of one tool renders one entry, not hundreds.  The rest of the manifest (its format, the
compiler, the agent, the skills, the warnings) is ``manifest_skeleton``'s document, into
which ``manifest_reuse.manifest_bytes`` splices the tool entries.  The bytes are exactly
``emit.json_bytes`` of the whole document: keys sorted, two-space indent.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from ..contracts.settings import CLIENT
from ..contracts.spec import MANIFEST_FORMAT
from ..contracts.version import __version__
from .json_text import indented_json
from .types import AgentInfo, Diagnostic, SkillInfo, Source, ToolInfo

__all__ = ["manifest_skeleton", "tool_entry", "tool_entry_json"]


def _source(source: Source) -> dict[str, Any]:
    return {"path": source.path, "line": source.line}


def tool_entry(
    info: ToolInfo, archive: bytes, entry_module: str, requirements: tuple[str, ...], has_output: bool
) -> dict[str, Any]:
    """The manifest entry of one tool (``contracts.manifest.ToolEntry``'s document)."""
    folder, client = f"tools/{info.name}", info.settings[CLIENT]
    entry: dict[str, Any] = {
        "name": info.name,
        "skill": info.skill,
        "description": info.description,
        "form": info.form,
        "source": _source(info.source),
        "definition": {"module": info.module, "qualname": info.qualname},
        # A client-side tool ships no code: no entry, no bundle.
        "entry": None if client else {"module": entry_module, "qualname": "tool"},
        "bundle": None if client else f"{folder}/bundle.zip",
        "sha256": None if client else hashlib.sha256(archive).hexdigest(),
        "schema": {
            "tool": f"{folder}/tool.json",
            "input": f"{folder}/input.schema.json",
            "output": f"{folder}/output.schema.json" if has_output else None,
        },
        "has_condition": info.has_condition,
        "is_async": info.is_async,
        "requirements": list(requirements),
    }
    entry.update(info.settings.to_json())  # each setting a key of the entry itself
    return entry


def tool_entry_json(
    info: ToolInfo, archive: bytes, entry_module: str, requirements: tuple[str, ...], has_output: bool
) -> str:
    """``tool_entry`` as the manifest writes it (keys sorted, no indent of its own, no final newline)."""
    return indented_json(tool_entry(info, archive, entry_module, requirements, has_output), sort_keys=True)


def _skill_entry(skill: SkillInfo, archive: bytes | None, entry_module: str | None) -> dict[str, Any]:
    condition = None
    if archive is not None and entry_module is not None:
        condition = {
            "bundle": f"skills/{skill.name}/condition.zip",
            "sha256": hashlib.sha256(archive).hexdigest(),
            "entry": {"module": entry_module, "qualname": "condition"},
        }
    return {
        "name": skill.name,
        "description": skill.description,
        "context": skill.context,
        "tools": list(skill.tools),
        "source": _source(skill.source),
        "condition": condition,
    }


def manifest_skeleton(
    agent: AgentInfo,
    skills: Sequence[tuple[SkillInfo, bytes | None, str | None]],
    warnings: Sequence[Diagnostic],
    digest: str,
) -> dict[str, Any]:
    """The manifest's document without its tools: each skill with its condition's archive and entry module."""
    return {
        "format": MANIFEST_FORMAT,
        "compiler": {"name": "skillc", "version": __version__},
        "source_digest": digest,
        "agent": {"name": agent.name, "persona": agent.persona, "skills": list(agent.skills)},
        "skills": [_skill_entry(*skill) for skill in skills],
        "tools": [],
        "warnings": [
            {"code": item.code, "message": item.message, "path": item.path, "line": item.line, "column": item.col + 1}
            for item in warnings
        ],
    }
