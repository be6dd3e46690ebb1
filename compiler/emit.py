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
import math
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
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
    ``sort_keys`` is false (schemas and tool.json keep pydantic's order, as it wrote them).

    Byte for byte what ``json.dumps(document, indent=2, sort_keys=sort_keys,
    ensure_ascii=False)`` writes, made without its pure-Python indenting encoder (a
    thousand documents per compile); anything but plain JSON data goes to ``json.dumps``.
    """
    try:
        text = _indented(document, "\n", sort_keys)
    except (_NotPlain, RecursionError):
        text = json.dumps(document, indent=2, sort_keys=sort_keys, ensure_ascii=False)
    return (text + "\n").encode()


class _NotPlain(Exception):
    """A value ``_indented`` leaves to ``json.dumps``."""


def _indented(value: object, newline: str, sort_keys: bool) -> str:
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return int.__repr__(value)
    if type(value) is float and math.isfinite(value):
        return float.__repr__(value)
    inner = newline + "  "
    if type(value) is dict:
        if not value:
            return "{}"
        items = sorted(value.items()) if sort_keys else value.items()
        parts = []
        for key, item in items:
            if not isinstance(key, str):
                raise _NotPlain
            parts.append(f"{encode_basestring(key)}: {_indented(item, inner, sort_keys)}")
        return "{" + inner + ("," + inner).join(parts) + newline + "}"
    if type(value) is list or type(value) is tuple:
        if not value:
            return "[]"
        return "[" + inner + ("," + inner).join(_indented(item, inner, sort_keys) for item in value) + newline + "]"
    raise _NotPlain


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


class _Writer:
    """Puts the files of a new ``dist/`` into its staging folder.

    A file whose bytes are exactly those of the same file in the previous ``dist/`` is
    linked to it rather than written again (after one file changed, nearly every file is
    unchanged, and a link costs a small fraction of a new file); the bytes are compared,
    never assumed.  ``linked`` tells that the previous folder's files are shared, so that
    it is deleted before the new folder is fingerprinted (unlinking a name changes the
    times of the file it names).
    """

    def __init__(self, staging: Path, previous: Path | None) -> None:
        self.staging = staging
        self.previous = previous
        self.linked = 0
        self._folders: set[str] = set()

    def folder(self, relative: str) -> None:
        parent, _, _ = relative.rpartition("/")
        if parent and parent not in self._folders:
            os.makedirs(self.staging / parent, exist_ok=True)
            self._folders.add(parent)
        os.mkdir(self.staging / relative)

    def put(self, relative: str, data: bytes) -> None:
        target = self.staging / relative
        if self.previous is not None and self._same(self.previous / relative, data):
            try:
                os.link(self.previous / relative, target, follow_symlinks=False)
                self.linked += 1
                return
            except OSError:  # another file system, or no hard links there: write it
                pass
        with open(target, "xb") as stream:
            stream.write(data)

    @staticmethod
    def _same(path: Path, data: bytes) -> bool:
        try:
            info = os.lstat(path)
            # A file with other names (a hard link made from outside dist/) is never shared.
            if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1 or info.st_size != len(data):
                return False
            with open(path, "rb") as stream:
                return stream.read(len(data) + 1) == data
        except OSError:
            return False


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
    previous = out if out.is_dir() and not out.is_symlink() else None
    writer = _Writer(staging, previous)
    try:
        for tool in tools:
            folder = f"tools/{tool.info.name}"
            writer.folder(folder)
            if not tool.info.settings[CLIENT]:
                writer.put(f"{folder}/bundle.zip", tool.files.archive)
            writer.put(f"{folder}/input.schema.json", json_bytes(tool.files.input_schema, sort_keys=False))
            if tool.files.output_schema is not None:
                writer.put(f"{folder}/output.schema.json", json_bytes(tool.files.output_schema, sort_keys=False))
            definition = {
                "type": "function",
                "name": tool.info.name,
                "description": tool.info.description,
                "parameters": tool.files.parameters,
                "strict": tool.info.settings[STRICT],
            }
            writer.put(f"{folder}/tool.json", json_bytes(definition, sort_keys=False))
        for skill in skills:
            if skill.archive is not None:
                writer.folder(f"skills/{skill.info.name}")
                writer.put(f"skills/{skill.info.name}/condition.zip", skill.archive)
        writer.put(MANIFEST, json_bytes(_manifest(agent, skills, tools, warnings, digest).document()))
        found = check(staging) if check is not None else []
        if any(item.severity is Severity.ERROR for item in found):
            shutil.rmtree(staging, ignore_errors=True)
            return found
        _swap(staging, out, config.root / TRASH_DIR, at_once=writer.linked > 0)
        return found
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _swap(staging: Path, out: Path, trash: Path, *, at_once: bool) -> None:
    """Put ``staging`` in the place of ``out`` and delete the previous folder: now if
    ``at_once`` (it shares files with the new one), else after the command has answered."""
    if not out.exists():
        staging.rename(out)
        return
    if _exchange(staging, out):
        retired = staging  # it now holds the previous dist/
    else:
        retired = Path(tempfile.mkdtemp(prefix=retired_prefix(out), dir=out.parent))
        retired.rmdir()
        out.rename(retired)
        staging.rename(out)
    if at_once:
        shutil.rmtree(retired, ignore_errors=True)
    else:
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
