"""Which data files go into a bundle, and which data paths its modules name but it lacks.

The rule: a data file belongs to the package of its folder, the nearest folder at or
above it (inside ``src``) that holds a module; it goes into every bundle that holds a
module of that folder.  ``src/tools/data/x.json`` goes with ``tools/orders.py``
whenever the bundle holds ``tools/orders.py`` or any other module of ``src/tools/``.
Which files are data at all is ``source_tree.discover_data``'s (``[tool.skill]
include`` and ``exclude``).

A path a bundled module names literally (``data_refs``) that is not in its bundle is
a ``skill/missing-data-file`` error at the expression: the file does not exist, the
globs leave it out, or it belongs to a package the bundle does not import.

A call that changes such a path (``NOTES.write_text(...)``) is a ``skill/write-into-bundle``
error at the call: the module runs from its tool's bundle, extracted once per tool, so no
other tool reads what it writes there, and the next compile's bundle starts from the
project's file again; what a tool keeps belongs in ``ctx.data``.  A path the module writes
is not also reported missing: writing it is the mistake to fix.  A database opened there
(``sqlite3.connect(HERE / "notes.db")``) is a ``skill/database-in-bundle`` warning: it may only be
read (a read-only URI, which names no path the compiler follows, is not reported).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from .data_refs import DataWrite, data_references, data_writes
from .resolve import Linker
from .source_tree import DataSet
from .types import Finding

__all__ = ["MISSING_DATA_FILE", "WRITE_INTO_BUNDLE", "bundle_data", "data_key"]

MISSING_DATA_FILE = "skill/missing-data-file"
DATABASE_IN_BUNDLE = "skill/database-in-bundle"
WRITE_INTO_BUNDLE = "skill/write-into-bundle"


@functools.lru_cache(maxsize=8)
def _src_prefix(src: Path, root: Path) -> str:
    return src.relative_to(root).as_posix() + "/"


def _members(linker: Linker, names: Iterable[str]) -> dict[str, str]:
    """Each module's path relative to the project -> its path relative to ``src``."""
    prefix = _src_prefix(linker.config.src, linker.config.root)
    paths = [linker.path_of(name) for name in names if name in linker.modules]
    return {path: path.removeprefix(prefix) for path in paths}


def _folders(members: Iterable[str]) -> set[str]:
    return {member.rpartition("/")[0] for member in members}


def data_key(linker: Linker, names: Iterable[str], data: DataSet, memo: dict[frozenset[str], str] | None = None) -> str:
    """What the data of a bundle of the modules ``names`` depends on: the contents of its
    files, and the names (not the contents) of every other one.

    It depends on the folders of those modules only, and not even on those in a project
    without data files: ``memo`` (for one ``data`` and one configuration) keeps it by
    folders, which most tools share.
    """
    folders = frozenset(_folders(_members(linker, names).values())) if data.files else frozenset()
    known = memo.get(folders) if memo is not None else None
    if known is None:
        known = _data_key(linker.config.include, linker.config.exclude, data, folders)
        if memo is not None:
            memo[folders] = known
    return known


def _data_key(include: tuple[str, ...], exclude: tuple[str, ...], data: DataSet, folders: frozenset[str]) -> str:
    digest = hashlib.sha256(repr((include, exclude)).encode())
    for item in data.files:
        digest.update(f"{item.member}\0{item.owner}\0{item.key if item.owner in folders else ''}\0".encode())
    digest.update(repr((data.skipped, sorted(data.module_folders))).encode())
    return digest.hexdigest()


def bundle_data(
    linker: Linker, names: Iterable[str], sources: Mapping[str, bytes], data: DataSet
) -> tuple[list[tuple[str, bytes]], list[Finding]]:
    """The data files (archive name, bytes) of a bundle of the modules ``names``, and a
    finding for each data path those modules name that the bundle would not hold."""
    members = _members(linker, names)
    folders = _folders(members.values())
    files = [(item.member, item.content) for item in data.files if item.owner in folders]
    present = {member for member, _ in files} | set(members.values())
    findings: list[Finding] = []
    for path, member in members.items():
        source = sources.get(path)
        if source is None:
            continue
        # A folder the bundle holds is there already: making it changes nothing.
        writes = [write for write in data_writes(source, member) if not _bundled_folder(write, present)]
        written = {write.target for write in writes if write.exact}
        for write in writes:
            findings.append(_write_finding(linker, path, write))
        for reference in data_references(source, member):
            if reference.target in written:
                continue
            problem = _problem(linker, reference.target, present, data)
            if problem is not None:
                message, hint = problem
                findings.append(Finding(MISSING_DATA_FILE, message, path, reference.pos, hint=hint))
    return files, findings


def _bundled_folder(write: DataWrite, present: set[str]) -> bool:
    """Whether ``write`` only makes a folder that the bundle holding ``present`` holds."""
    target = write.target
    if not write.makes_folder or not write.exact or target is None:
        return False
    return target == "" or any(item.startswith(target + "/") for item in present)


def _write_finding(linker: Linker, path: str, write: DataWrite) -> Finding:
    if write.database:
        return _database_finding(linker, path, write)
    config = linker.config
    src = config.src.relative_to(config.root).as_posix()
    if write.target is None:
        where = "a path above the module's package, beside the bundle the module runs from"
    else:
        shown = f"{src}/{write.target}" if src != "." else write.target
        where = shown if write.exact else f"a path under {shown}"
        where += ", inside the bundle the module runs from"
    return Finding(
        WRITE_INTO_BUNDLE,
        f"{write.shown} changes {where}: each tool runs from its own extracted copy of its bundle, so no other "
        "tool sees the change, and the next compile's bundle starts from the project's files again",
        path,
        write.pos,
        hint="keep what tools write in ctx.data (the project's data store, shared by every tool and kept across "
        "compiles), or in a folder outside the project's code",
    )


def _database_finding(linker: Linker, path: str, write: DataWrite) -> Finding:
    """A database opened inside the bundle: whatever the code stores stays in one tool's copy, for one compile."""
    config = linker.config
    src = config.src.relative_to(config.root).as_posix()
    shown = f"{src}/{write.target}" if src != "." and write.target is not None else write.target or "a path above src"
    return Finding(
        DATABASE_IN_BUNDLE,
        f"{write.shown} opens a database inside the bundle the module runs from ({shown}): it makes the file when "
        "it is missing, and what the calls store stays in this tool's own extracted copy, which no other tool "
        "reads and the next compile's bundle replaces with the project's file",
        path,
        write.pos,
        hint="keep what tools store in ctx.data (shared by every tool and kept across compiles); to read a database "
        'shipped with the tool, open it read-only: sqlite3.connect(f"file:{path}?mode=ro", uri=True)',
    )


def _problem(linker: Linker, target: str | None, present: set[str], data: DataSet) -> tuple[str, str] | None:
    """Why the bundle holding ``present`` lacks ``target``: a message and a hint, or ``None``."""
    config = linker.config
    src = config.src.relative_to(config.root).as_posix()
    shown_src = f"{src}/" if src != "." else "the project folder"
    if target is None:
        return (
            f"the path leads outside {shown_src}; nothing outside it is bundled, so the tool cannot read it",
            f"move the file into {shown_src}, next to the module that reads it",
        )
    if target in present or any(item.startswith(target + "/") for item in present):
        return None
    shown = f"{src}/{target}" if src != "." else target
    owner = next((item.owner for item in data.files if item.member == target), False)
    if owner is not False:
        where = f"{src}/{owner}" if owner else shown_src
        if owner is None:
            return (
                f"{shown} is not bundled: no folder at or above it holds a module, so it belongs to no package",
                "move it next to the module that reads it",
            )
        return (
            f"{shown} is not bundled with this module: it belongs to the package in {where}, "
            "none of whose modules the bundle holds",
            "move it next to the module that reads it",
        )
    reason = next((why for member, why in data.skipped if member == target), None)
    if reason is None and (config.src / target).exists():
        reason = "skillc bundles no dotfiles, caches or modules as data"
    if reason is not None:
        hint = (
            "change [tool.skill] include / exclude in pyproject.toml so that they take it"
            if "include and exclude" in reason
            else "raise [tool.skill] max_file_bytes"
            if "max_file_bytes" in reason
            else "make it a regular file inside the project"
        )
        return f"{shown} is not bundled: {reason}", hint
    return (
        f"{shown} does not exist, so the bundle has no such data file",
        "add the file, or correct the path (it is relative to the module's folder)",
    )
