"""Write ``dist/``: every tool's bundle, schemas and definition, and the manifest.

Everything is written into a folder beside ``dist/`` (``staging``: a new one, or the
``dist/`` the last compile replaced, recycled) and swapped in only when all of it
succeeded (``swap``), so a compile that fails or is killed leaves the previous ``dist/``
as it was; tools that disappeared from the project disappear from ``dist/`` with it.
The output depends only on the sources: JSON in a fixed key order, archives with fixed
dates, no timestamps anywhere.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from json.encoder import encode_basestring
from pathlib import Path

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
from ..contracts.settings import CLIENT, STRICT
from ..contracts.spec import MANIFEST, MANIFEST_FORMAT
from ..contracts.version import __version__
from .dist_files import EmittedSkill, EmittedTool
from .json_text import indented_json
from .output import Fingerprint, check_output_folder, remove_leftovers
from .staging import spare_folder, stage_dist
from .swap import TRASH_DIR, discard_staging, swap_in
from .types import AgentInfo, Config, Diagnostic, Severity

__all__ = [
    "MANIFEST",
    "MANIFEST_FORMAT",
    "emit_dist",
    "json_bytes",
]


def json_bytes(document: object, *, sort_keys: bool = True) -> bytes:
    """The one JSON form of everything in ``dist/``: two-space indent, keys sorted unless
    ``sort_keys`` is false (schemas and tool.json keep pydantic's order, as it wrote them).

    Byte for byte what ``json.dumps(document, indent=2, sort_keys=sort_keys,
    ensure_ascii=False)`` writes, made without its pure-Python indenting encoder (a
    thousand documents per compile); anything but plain JSON data goes to ``json.dumps``.
    """
    return (indented_json(document, sort_keys=sort_keys) + "\n").encode()


def _object_bytes(fields: Sequence[tuple[str, str]]) -> bytes:
    """``json_bytes`` of an object whose values are given as ``indented_json`` text already, in order.

    A value nests by indenting each of its lines: JSON text has a line break only between
    its parts (one inside a string is written ``\\n``).
    """
    inner = "\n  "
    parts = [encode_basestring(key) + ": " + text.replace("\n", inner) for key, text in fields]
    return ("{" + inner + ("," + inner).join(parts) + "\n}\n").encode()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _manifest(
    agent: AgentInfo,
    skills: Sequence[EmittedSkill],
    tools: Sequence[EmittedTool],
    warnings: Sequence[Diagnostic],
    digest: str,
) -> Manifest:
    def tool_entry(tool: EmittedTool) -> ToolEntry:
        info, files, folder = tool.info, tool.files, f"tools/{tool.info.name}"
        client = info.settings[CLIENT]
        return ToolEntry(
            name=info.name,
            skill=info.skill,
            description=info.description,
            form=info.form,
            source=SourceEntry(path=info.source.path, line=info.source.line),
            definition=Definition(module=info.module, qualname=info.qualname),
            # A client-side tool ships no code: no entry, no bundle.
            entry=None if client else EntryPoint(module=files.entry_module, qualname="tool"),
            bundle=None if client else f"{folder}/bundle.zip",
            sha256=None if client else _sha256(files.archive),
            schemas=SchemaPaths(
                tool=f"{folder}/tool.json",
                input=f"{folder}/input.schema.json",
                output=f"{folder}/output.schema.json" if files.output_schema is not None else None,
            ),
            settings=info.settings,
            has_condition=info.has_condition,
            is_async=info.is_async,
            requirements=files.requirements,
        )

    def skill_entry(skill: EmittedSkill) -> SkillEntry:
        condition = None
        if skill.archive is not None and skill.entry_module is not None:
            condition = ConditionEntry(
                bundle=f"skills/{skill.info.name}/condition.zip",
                sha256=_sha256(skill.archive),
                entry=EntryPoint(module=skill.entry_module, qualname="condition"),
            )
        return SkillEntry(
            name=skill.info.name,
            description=skill.info.description,
            context=skill.info.context,
            tools=skill.info.tools,
            source=SourceEntry(path=skill.info.source.path, line=skill.info.source.line),
            condition=condition,
        )

    return Manifest(
        format=MANIFEST_FORMAT,
        compiler=CompilerEntry(name="skillc", version=__version__),
        source_digest=digest,
        agent=AgentEntry(name=agent.name, persona=agent.persona, skills=agent.skills),
        skills=tuple(skill_entry(skill) for skill in skills),
        tools=tuple(tool_entry(tool) for tool in tools),
        warnings=tuple(
            WarningEntry(code=item.code, message=item.message, path=item.path, line=item.line, column=item.col + 1)
            for item in warnings
        ),
    )


def emit_dist(
    config: Config,
    agent: AgentInfo,
    skills: Sequence[EmittedSkill],
    tools: Sequence[EmittedTool],
    warnings: Sequence[Diagnostic],
    digest: str,
    check: Callable[[Path], list[Diagnostic]] | None = None,
    recorded: Fingerprint | None = None,
) -> list[Diagnostic]:
    """Write the whole of ``dist/`` beside it, then swap it in; call it holding ``output_lock``.

    The folder it replaces is proven to be skillc's output first (``UsageError``
    otherwise, with nothing touched; ``recorded`` is the fingerprint of the last
    ``dist/`` written, see ``check_output_folder``).  ``check`` looks at the finished folder before
    the swap; if it reports an error, the folder is thrown away and the previous
    ``dist/`` stays.  Returns what it said.
    """
    out = config.out
    check_output_folder(out, recorded)
    remove_leftovers(out)
    files: dict[str, bytes] = {}
    for tool in tools:
        folder, schemas = f"tools/{tool.info.name}", tool.files
        if not tool.info.settings[CLIENT]:
            files[f"{folder}/bundle.zip"] = schemas.archive
        files[f"{folder}/input.schema.json"] = (schemas.input_json + "\n").encode()
        if schemas.output_json is not None:
            files[f"{folder}/output.schema.json"] = (schemas.output_json + "\n").encode()
        files[f"{folder}/tool.json"] = _object_bytes(
            [
                ("type", '"function"'),
                ("name", indented_json(tool.info.name)),
                ("description", indented_json(tool.info.description)),
                ("parameters", schemas.parameters_json),
                ("strict", indented_json(tool.info.settings[STRICT])),
            ]
        )
    for skill in skills:
        if skill.archive is not None:
            files[f"skills/{skill.info.name}/condition.zip"] = skill.archive
    files[MANIFEST] = json_bytes(_manifest(agent, skills, tools, warnings, digest).document())
    spare = spare_folder(config.root, out)
    staged = stage_dist(out, spare, files)
    try:
        found = check(staged.path) if check is not None else []
    except BaseException:
        discard_staging(staged, spare)
        raise
    if any(item.severity is Severity.ERROR for item in found):
        discard_staging(staged, spare)
        return found
    try:
        swap_in(staged, out, spare, config.root / TRASH_DIR)
    except BaseException:
        if staged.path.exists():  # the swap did not happen, or the retired folder is still beside dist/
            discard_staging(staged, spare)
        raise
    return found
