"""The project's source tree: which module files it holds, and their bytes, read once.

``discover_sources`` walks the import root and names each ``.py`` file's module; it
follows a symbolic link only where it leads inside the project or into a folder of
``[tool.skill] allow_outside``, and never round a loop.  The same walk notes the other
files, the data files bundled with the modules (``DataSet``).  ``read_sources`` reads every
file it finds once, never more than ``max_file_bytes`` of it, into a ``Snapshot``
whose cache keys and digest the later stages key their caches by.  What cannot be
found or read becomes a diagnostic; nothing here raises for the user's files.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from .globs import matches_any
from .types import Config, Diagnostic, Severity

__all__ = [
    "DataFile",
    "DataSet",
    "Snapshot",
    "SourceFile",
    "discover_data",
    "discover_sources",
    "file_diagnostic",
    "link_problem",
    "read_sources",
]


@dataclass(frozen=True)
class SourceFile:
    """A module file: its path relative to the project, and its dotted module name."""

    path: str
    absolute: Path
    module: str
    is_package: bool


def file_diagnostic(
    code: str,
    path: str,
    message: str,
    line: int = 1,
    col: int = 0,
    severity: Severity = Severity.ERROR,
) -> Diagnostic:
    """A diagnostic about the file at ``path``: an error at its start unless told otherwise."""
    return Diagnostic(code, severity, message, path, line, col)


def link_problem(link: Path, shown: str, root: Path, allowed: tuple[Path, ...]) -> Diagnostic | None:
    """Why the symbolic link ``link`` is not followed, or ``None`` when it may be.

    A link may lead anywhere inside the project, or into a folder that
    ``[tool.skill] allow_outside`` names; one that leads elsewhere is skipped (its code
    would be bundled without anyone having seen it), and so is one that leads nowhere.
    """
    try:
        written = os.readlink(link)
    except OSError:
        return None  # no longer a link: the walk reads whatever is there now
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):  # missing, or a loop of links (RuntimeError before 3.13)
        return file_diagnostic(
            "skill/dangling-symlink",
            shown,
            f"{shown} is a symbolic link to {written}, which does not exist; not followed",
            severity=Severity.WARNING,
        )
    if any(target.is_relative_to(folder) for folder in allowed):
        return None
    folder = Path(os.path.relpath(target if target.is_dir() else target.parent, root)).as_posix()
    return Diagnostic(
        "skill/symlink-outside-project",
        Severity.WARNING,
        f"{shown} is a symbolic link to {written}, outside the project; not followed, so nothing in it is compiled",
        shown,
        1,
        0,
        hint=f'to compile what it points to, allow its folder in pyproject.toml: [tool.skill] allow_outside = ["{folder}"]',
    )


@dataclass
class _Tree:
    """What one walk of the import root found: module files, the other files, and what is wrong."""

    sources: list[SourceFile]
    #: ``(member, path, is_link)`` of every file that is no module: the data files before globs and reading.
    others: list[tuple[str, Path, bool]]
    #: The folders (relative to ``src``) that hold a module.
    module_folders: set[str]
    problems: list[Diagnostic]


def discover_sources(config: Config) -> tuple[list[SourceFile], list[Diagnostic]]:
    """List the ``.py`` files under ``config.src``, following symlinks but not loops.

    A link is followed only where it leads inside the project or into a folder of
    ``config.outside_roots``; any other link, and a dangling one, is a warning.
    """
    tree = _walk_tree(config)
    return tree.sources, tree.problems


def _walk_tree(config: Config) -> _Tree:
    """Walk ``config.src`` once, by the rules of ``discover_sources``, noting every file on the way."""
    found: list[SourceFile] = []
    others: list[tuple[str, Path, bool]] = []
    module_folders: set[str] = set()
    problems: list[Diagnostic] = []
    root = config.root
    allowed = (root.resolve(), *config.outside_roots)

    def relative(path: Path) -> str:
        return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)

    def walk(folder: Path, parts: tuple[str, ...], seen: frozenset[Path]) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as error:
            problems.append(
                file_diagnostic("skill/unreadable-file", relative(folder), f"cannot read folder: {error.strerror}")
            )
            return
        for entry in entries:
            path = Path(entry.path)
            if entry.name.startswith(".") or entry.name == "__pycache__":
                continue
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            wanted = is_dir or entry.name.endswith(".py")
            if entry.is_symlink() and (wanted or not os.path.exists(path)):
                problem = link_problem(path, relative(path), root, allowed)
                if problem is not None:
                    problems.append(problem)
                    continue
            if is_dir:
                real = path.resolve()
                if real in seen:
                    problems.append(
                        file_diagnostic(
                            "skill/symlink-loop",
                            relative(path),
                            f"symbolic link loop: {relative(path)} leads back to {relative(real)}; not followed",
                            severity=Severity.WARNING,
                        )
                    )
                    continue
                walk(path, (*parts, entry.name), seen | {real})
            elif entry.name.endswith(".py"):
                module_folders.add("/".join(parts))
                stem = entry.name[:-3]
                is_package = stem == "__init__"
                module_parts = parts if is_package else (*parts, stem)
                if not module_parts:
                    continue  # an __init__.py in the import root itself is no module
                found.append(SourceFile(relative(path), path, ".".join(module_parts), is_package))
            elif not entry.name.endswith(_NOT_DATA):
                others.append(("/".join((*parts, entry.name)), path, entry.is_symlink()))

    if not config.src.is_dir():
        problems.append(
            file_diagnostic(
                "skill/no-agent", relative(config.pyproject), f"the import root {relative(config.src)} is not a folder"
            )
        )
    else:
        walk(config.src, (), frozenset({config.src.resolve()}))
    return _Tree(found, others, module_folders, problems)


def _cache_key(source_file: SourceFile, content: bytes) -> str:
    digest = hashlib.sha256(content)
    digest.update(f"\0{source_file.path}\0{source_file.module}\0{source_file.is_package}".encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class DataFile:
    """A non-Python file of the source tree, bundled with the modules of the folder that owns it."""

    #: Its path relative to ``src``: its name in a bundle.
    member: str
    #: Its path relative to the project, as diagnostics show it.
    path: str
    #: The folder (relative to ``src``, ``""`` for ``src`` itself) of the package it belongs to:
    #: the nearest folder at or above it that holds a module; ``None`` when none does.
    owner: str | None
    key: str
    content: bytes


@dataclass(frozen=True)
class DataSet:
    """The data files of the source tree, and the files there that are not bundled, with why."""

    files: tuple[DataFile, ...] = ()
    #: ``(member, reason)`` of each file under ``src`` left out (globs, size, a link outside).
    skipped: tuple[tuple[str, str], ...] = ()
    #: The folders (relative to ``src``) that hold a module.
    module_folders: frozenset[str] = frozenset()
    problems: tuple[Diagnostic, ...] = ()

    def key(self) -> str:
        """One hash of what the data files are: names, contents, and what was left out."""
        digest = hashlib.sha256()
        for item in self.files:
            digest.update(f"{item.key}\0{item.owner}\0".encode())
        digest.update(repr((self.skipped, sorted(self.module_folders))).encode())
        return digest.hexdigest()


#: Never data: modules, their caches and compiled extension modules, which Python would import.
_NOT_DATA = (".py", ".pyc", ".pyo", ".so", ".pyd")


def _owner(member: str, module_folders: frozenset[str]) -> str | None:
    folder = member.rpartition("/")[0]
    while folder not in module_folders:
        if not folder:
            return None
        folder = folder.rpartition("/")[0]
    return folder


def _read_data(path: Path, limit: int) -> bytes | str:
    """The bytes of a data file, or why it is not bundled."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            return "it is not a regular file"
        if info.st_size > limit:
            return f"it is {info.st_size:,} bytes, more than [tool.skill] max_file_bytes ({limit:,})"
        with path.open("rb") as stream:
            content = stream.read(limit + 1)
    except OSError as error:
        return f"it cannot be read: {error.strerror or error}"
    return content if len(content) <= limit else f"it is more than [tool.skill] max_file_bytes ({limit:,})"


def discover_data(config: Config) -> DataSet:
    """The data files under ``config.src``: every file that is no module and that the globs
    ``config.include`` take and ``config.exclude`` do not, found by the rules of
    ``discover_sources`` (no dotfiles, no ``__pycache__``, links only inside the project or
    ``allow_outside``, no loops) and read whole, up to ``max_file_bytes``."""
    return _data_set(config, _walk_tree(config))


def _data_set(config: Config, tree: _Tree) -> DataSet:
    """Read the data files of a walk: apply the globs, refuse links out of the project, read each once."""
    root = config.root
    allowed = (root.resolve(), *config.outside_roots)
    found: list[tuple[str, str, bytes]] = []
    skipped: list[tuple[str, str]] = []
    problems: list[Diagnostic] = []
    for member, path, is_link in tree.others:
        if not matches_any(member, config.include) or matches_any(member, config.exclude):
            skipped.append((member, "[tool.skill] include and exclude leave it out"))
            continue
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        if is_link:
            problem = link_problem(path, shown, root, allowed)
            if problem is not None:
                problems.append(problem)
                skipped.append((member, "it is a symbolic link that leads outside the project"))
                continue
        content = _read_data(path, config.max_file_bytes)
        if isinstance(content, str):
            skipped.append((member, content))
            continue
        found.append((member, shown, content))
    folders = frozenset(tree.module_folders)
    files = tuple(
        DataFile(
            member,
            path,
            _owner(member, folders),
            hashlib.sha256(member.encode() + b"\0" + content).hexdigest(),
            content,
        )
        for member, path, content in found
    )
    return DataSet(files, tuple(skipped), folders, tuple(problems))


@dataclass(frozen=True)
class Snapshot:
    """The project's sources as read now: each file with its cache key and content."""

    files: tuple[tuple[SourceFile, str, bytes], ...]
    problems: tuple[Diagnostic, ...]
    #: The modules of the files found but not read: importing one is no error of its own.
    unread: frozenset[str] = frozenset()
    #: The data files, bundled with the modules (``discover_data``).
    data: DataSet = DataSet()

    def digest(self, *extra: bytes) -> str:
        """One hash of every file's key and of ``extra``: equal digests, equal results."""
        digest = hashlib.sha256()
        for part in extra:
            digest.update(hashlib.sha256(part).digest())
        digest.update(self.data.key().encode())
        for _, key, _ in self.files:
            digest.update(key.encode())
        for problem in self.problems:
            digest.update(repr(problem).encode())
        return digest.hexdigest()


def _too_large(path: str, size: int, limit: int) -> Diagnostic:
    return Diagnostic(
        "skill/file-too-large",
        Severity.ERROR,
        f"the file is {size:,} bytes, more than the {limit:,} bytes skillc reads "
        "([tool.skill] max_file_bytes); it was not read",
        path,
        1,
        0,
        hint=f"move generated data out of Python source, or raise the limit in pyproject.toml: "
        f"[tool.skill] max_file_bytes = {size}",
    )


def _read_source(source_file: SourceFile, limit: int) -> bytes | Diagnostic:
    """The file's bytes, or why not: a file larger than ``limit`` is never read, not even in part."""
    path = source_file.path
    try:
        info = source_file.absolute.stat()
        if not stat.S_ISREG(info.st_mode):  # a FIFO would block the read, a device never end it
            return file_diagnostic("skill/unreadable-file", path, "cannot read the file: it is not a regular file")
        if info.st_size > limit:
            return _too_large(path, info.st_size, limit)
        with source_file.absolute.open("rb") as stream:
            content = stream.read(limit + 1)  # and no more, should it have grown since
            if len(content) > limit:
                return _too_large(path, max(os.fstat(stream.fileno()).st_size, len(content)), limit)
    except OSError as error:
        return file_diagnostic("skill/unreadable-file", path, f"cannot read the file: {error.strerror or error}")
    return content


def read_sources(config: Config) -> Snapshot:
    """Find and read every module file once; unreadable and oversized ones become diagnostics."""
    tree = _walk_tree(config)
    sources, problems = tree.sources, tree.problems
    files: list[tuple[SourceFile, str, bytes]] = []
    unread: set[str] = set()
    for source_file in sources:
        content = _read_source(source_file, config.max_file_bytes)
        if isinstance(content, Diagnostic):
            problems.append(content)
            unread.add(source_file.module)
            continue
        files.append((source_file, _cache_key(source_file, content), content))
    data = _data_set(config, tree)
    problems.extend(data.problems)
    return Snapshot(tuple(files), tuple(problems), frozenset(unread), data)
