"""Write ``dist/``: every tool's bundle, schemas and definition, and the manifest.

Everything is written into a fresh folder beside ``dist/`` and swapped in only when
all of it succeeded, so a compile that fails or is killed leaves the previous
``dist/`` as it was; tools that disappeared from the project disappear from ``dist/``
with it.  The output depends only on the sources: JSON in a fixed key order, archives
with fixed dates, no timestamps anywhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
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
from ..contracts.settings import STRICT
from ..contracts.spec import MANIFEST, MANIFEST_FORMAT
from ..contracts.version import __version__
from .dist_files import EmittedSkill, EmittedTool
from .output import Fingerprint, check_output_folder, remove_leftovers, retired_prefix, staging_prefix
from .types import AgentInfo, Config, Diagnostic, Severity

__all__ = [
    "MANIFEST",
    "MANIFEST_FORMAT",
    "emit_dist",
    "json_bytes",
]

#: Where a replaced ``dist/`` waits to be deleted, inside the project.
TRASH_DIR = Path(".skill") / "trash"


def json_bytes(document: object, *, sort_keys: bool = True) -> bytes:
    """The one JSON form of everything in ``dist/``: two-space indent, keys sorted unless
    ``sort_keys`` is false (schemas and tool.json keep pydantic's order, as it wrote them)."""
    return (json.dumps(document, indent=2, sort_keys=sort_keys, ensure_ascii=False) + "\n").encode()


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
        return ToolEntry(
            name=info.name,
            skill=info.skill,
            description=info.description,
            form=info.form,
            source=SourceEntry(path=info.source.path, line=info.source.line),
            definition=Definition(module=info.module, qualname=info.qualname),
            entry=EntryPoint(module=files.entry_module, qualname="tool"),
            bundle=f"{folder}/bundle.zip",
            sha256=_sha256(files.archive),
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


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths in one atomic step (Linux ``renameat2``); ``False`` if unavailable."""
    import ctypes  # loads a C library: only replacing an existing dist/ needs it
    import ctypes.util

    library = ctypes.util.find_library("c")
    if library is None:
        return False
    libc = ctypes.CDLL(library, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    result = renameat2(at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange)
    return bool(result == 0)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


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
    staging = Path(tempfile.mkdtemp(prefix=staging_prefix(out), dir=out.parent))
    staging.chmod(0o755)  # mkdtemp makes it private; dist/ is as readable as the sources
    try:
        for tool in tools:
            folder = staging / "tools" / tool.info.name
            _write(folder / "bundle.zip", tool.files.archive)
            _write(folder / "input.schema.json", json_bytes(tool.files.input_schema, sort_keys=False))
            if tool.files.output_schema is not None:
                _write(folder / "output.schema.json", json_bytes(tool.files.output_schema, sort_keys=False))
            definition = {
                "type": "function",
                "name": tool.info.name,
                "description": tool.info.description,
                "parameters": tool.files.parameters,
                "strict": tool.info.settings[STRICT],
            }
            _write(folder / "tool.json", json_bytes(definition, sort_keys=False))
        for skill in skills:
            if skill.archive is not None:
                _write(staging / "skills" / skill.info.name / "condition.zip", skill.archive)
        _write(staging / MANIFEST, json_bytes(_manifest(agent, skills, tools, warnings, digest).document()))
        found = check(staging) if check is not None else []
        if any(item.severity is Severity.ERROR for item in found):
            shutil.rmtree(staging, ignore_errors=True)
            return found
        _swap(staging, out, config.root / TRASH_DIR)
        return found
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _swap(staging: Path, out: Path, trash: Path) -> None:
    if not out.exists():
        staging.rename(out)
        return
    if _exchange(staging, out):
        _discard(staging, trash)  # it now holds the previous dist/
        return
    retired = Path(tempfile.mkdtemp(prefix=retired_prefix(out), dir=out.parent))
    retired.rmdir()
    out.rename(retired)
    staging.rename(out)
    _discard(retired, trash)


def _discard(folder: Path, trash: Path) -> None:
    """Delete a retired ``dist/`` without making the compile wait for it.

    Removing hundreds of folders costs as much as writing them; a detached process
    does it after the command has answered.  The folder first moves into ``trash`` (in
    ``.skill/``), so that nothing half-deleted is ever left beside ``dist/``.
    """
    try:
        if trash.is_symlink() or trash.parent.is_symlink():
            raise OSError("the trash folder is a symbolic link")  # never write or delete where a link points
        trash.mkdir(parents=True, exist_ok=True)
        target = Path(tempfile.mkdtemp(prefix="dist-", dir=trash))
        target.rmdir()
        folder.rename(target)
    except OSError:  # another file system, or no usable trash: delete it here and now
        shutil.rmtree(folder, ignore_errors=True)
        return
    deleter = subprocess.Popen(
        [sys.executable, "-c", "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)", str(target)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    # Reap it when it ends, should this process live that long (watch mode, a test run).
    threading.Thread(target=deleter.wait, daemon=True).start()
