"""The text of ``dist/manifest.json``, assembled from each entry's JSON rendered once.

Every entry is made by the models the runtime reads the manifest with
(``contracts.manifest``): ``tool_entry_json`` renders one tool's entry when its artifacts
are built, and that text is cached with them (``dist_files.ToolFiles.manifest_json``), so a
compile after a change of one tool validates and renders one entry, not hundreds.  The
rest of the manifest (its format, the compiler, the agent, the skills, the warnings) is
one ``Manifest`` made with no tools, into which ``manifest_reuse.manifest_bytes`` splices
the cached tool entries.  The bytes are exactly ``emit.json_bytes`` of the whole ``Manifest``
document: keys sorted, two-space indent.  (Where only a digest changed since the last
compile, ``manifest_reuse`` reuses what these models rendered then, without them.)
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from ..contracts.manifest import (
    AgentEntry,
    CompilerEntry,
    ConditionEntry,
    Definition,
    EntryPoint,
    Manifest,
    SchemaPaths,
    SkillEntry,
    SourceEntry,
    ToolEntry,
    WarningEntry,
)
from ..contracts.settings import CLIENT
from ..contracts.spec import MANIFEST_FORMAT
from ..contracts.version import __version__
from .json_text import indented_json
from .types import AgentInfo, Diagnostic, SkillInfo, ToolInfo

__all__ = ["manifest_skeleton", "tool_entry", "tool_entry_json"]


def tool_entry(
    info: ToolInfo, archive: bytes, entry_module: str, requirements: tuple[str, ...], has_output: bool
) -> ToolEntry:
    """The manifest entry of one tool, checked by its model."""
    folder, client = f"tools/{info.name}", info.settings[CLIENT]
    return ToolEntry(
        name=info.name,
        skill=info.skill,
        description=info.description,
        form=info.form,
        source=SourceEntry(path=info.source.path, line=info.source.line),
        definition=Definition(module=info.module, qualname=info.qualname),
        # A client-side tool ships no code: no entry, no bundle.
        entry=None if client else EntryPoint(module=entry_module, qualname="tool"),
        bundle=None if client else f"{folder}/bundle.zip",
        sha256=None if client else hashlib.sha256(archive).hexdigest(),
        schemas=SchemaPaths(
            tool=f"{folder}/tool.json",
            input=f"{folder}/input.schema.json",
            output=f"{folder}/output.schema.json" if has_output else None,
        ),
        settings=info.settings,
        has_condition=info.has_condition,
        is_async=info.is_async,
        requirements=requirements,
    )


def tool_entry_json(
    info: ToolInfo, archive: bytes, entry_module: str, requirements: tuple[str, ...], has_output: bool
) -> str:
    """``tool_entry`` as the manifest writes it (keys sorted, no indent of its own, no final newline)."""
    entry = tool_entry(info, archive, entry_module, requirements, has_output)
    return indented_json(entry.model_dump(mode="json", by_alias=True), sort_keys=True)


def _skill_entry(skill: SkillInfo, archive: bytes | None, entry_module: str | None) -> SkillEntry:
    condition = None
    if archive is not None and entry_module is not None:
        condition = ConditionEntry(
            bundle=f"skills/{skill.name}/condition.zip",
            sha256=hashlib.sha256(archive).hexdigest(),
            entry=EntryPoint(module=entry_module, qualname="condition"),
        )
    return SkillEntry(
        name=skill.name,
        description=skill.description,
        context=skill.context,
        tools=skill.tools,
        source=SourceEntry(path=skill.source.path, line=skill.source.line),
        condition=condition,
    )


def manifest_skeleton(
    agent: AgentInfo,
    skills: Sequence[tuple[SkillInfo, bytes | None, str | None]],
    warnings: Sequence[Diagnostic],
    digest: str,
) -> Manifest:
    """The manifest without its tools: each skill with its condition's archive and entry module."""
    return Manifest(
        format=MANIFEST_FORMAT,
        compiler=CompilerEntry(name="skillc", version=__version__),
        source_digest=digest,
        agent=AgentEntry(name=agent.name, persona=agent.persona, skills=agent.skills),
        skills=tuple(_skill_entry(*skill) for skill in skills),
        tools=(),
        warnings=tuple(
            WarningEntry(code=item.code, message=item.message, path=item.path, line=item.line, column=item.col + 1)
            for item in warnings
        ),
    )
