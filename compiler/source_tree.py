"""The project's source tree: which module files it holds, and their bytes, read once.

``discover_sources`` walks the import root and names each ``.py`` file's module; it
follows a symbolic link only where it leads inside the project or into a folder of
``[tool.skill] allow_outside``, and never round a loop.  The same walk notes the other
files, the data files bundled with the modules (``DataSet``).  ``read_sources`` reads every
file it finds once, never more than ``max_file_bytes`` of it, into a ``Snapshot``
whose cache keys and digest the later stages key their caches by.  What cannot be
found or read becomes a diagnostic; nothing here raises for the user's files.

The snapshot also notes the identity (``file_identity``) of every folder walked and file
read, each taken before it was read.  Given the previous snapshot (``skill compile
--watch``), ``read_sources`` walks again only when a folder changed, and reads again
only the files that changed or changed too recently to be trusted by their identity.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .data_tree import NOT_DATA, DataFile, DataSet, owner, read_data
from .file_identity import RACY_NS, Identity, identity, identity_of
from .globs import matches_any
from .types import Config, Diagnostic, Severity

__all__ = [
    "RACY_NS",
    "DataFile",
    "DataSet",
    "Identity",
    "Snapshot",
    "SourceFile",
    "discover_data",
    "discover_sources",
    "file_diagnostic",
    "identity",
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
    #: The identity (``identity``) of each folder walked, taken before it was listed.
    folders: dict[str, Identity] = field(default_factory=dict)
    #: Whether the walk met a symbolic link.
    links: bool = False
    #: When the walk started (``time.time_ns``).
    started: int = 0


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
    folders: dict[str, Identity] = {}
    links = False
    started = time.time_ns()
    root = config.root
    allowed = (root.resolve(), *config.outside_roots)

    inside = str(root).rstrip(os.sep) + os.sep

    def relative(path: Path) -> str:
        text = str(path)
        if text.startswith(inside):  # the common case, without pathlib's parsing
            return text[len(inside) :].replace(os.sep, "/")
        return path.relative_to(root).as_posix() if path.is_relative_to(root) else text

    def walk(folder: Path, parts: tuple[str, ...], seen: frozenset[Path]) -> None:
        known = identity(folder)
        if known is not None:
            folders[str(folder)] = known
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
            if entry.is_symlink():
                nonlocal links
                links = True
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
            elif not entry.name.endswith(NOT_DATA):
                others.append(("/".join((*parts, entry.name)), path, entry.is_symlink()))

    if not config.src.is_dir():
        problems.append(
            file_diagnostic(
                "skill/no-agent", relative(config.pyproject), f"the import root {relative(config.src)} is not a folder"
            )
        )
    else:
        walk(config.src, (), frozenset({config.src.resolve()}))
    return _Tree(found, others, module_folders, problems, folders, links, started)


def _cache_key(source_file: SourceFile, content: bytes) -> str:
    digest = hashlib.sha256(content)
    digest.update(f"\0{source_file.path}\0{source_file.module}\0{source_file.is_package}".encode())
    return digest.hexdigest()


def discover_data(config: Config) -> DataSet:
    """The data files under ``config.src``: every file that is no module and that the globs
    ``config.include`` take and ``config.exclude`` do not, found by the rules of
    ``discover_sources`` (no dotfiles, no ``__pycache__``, links only inside the project or
    ``allow_outside``, no loops) and read whole, up to ``max_file_bytes``."""
    return _data_set(config, _walk_tree(config))


def _data_set(
    config: Config, tree: _Tree, identities: dict[str, Identity] | None = None, previous: Snapshot | None = None
) -> DataSet:
    """Read the data files of a walk: apply the globs, refuse links out of the project, read each once.

    Each file's identity goes into ``identities``; one that is still the file ``previous`` read
    and trusted is not read again.
    """
    known = {item.member: item.content for item in previous.data.files} if previous is not None else {}
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
        content: bytes | str | None = known.get(member)
        if content is None or identities is None or not _reuse(path, previous, identities):
            content = read_data(path, config.max_file_bytes, identities)
        if isinstance(content, str):
            skipped.append((member, content))
            continue
        found.append((member, shown, content))
    folders = frozenset(tree.module_folders)
    files = tuple(
        DataFile(
            member,
            path,
            owner(member, folders),
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
    #: The identity of every folder walked and file read, by absolute path, taken before
    #: it was listed or read: what ``changed_since`` compares.
    identities: Mapping[str, Identity] = field(default_factory=dict)
    #: The files whose identity may be trusted to mean the same content (not racy: see
    #: ``RACY_NS``), by absolute path: what the next ``read_sources`` need not read again.
    trusted: frozenset[str] = frozenset()
    #: The walk it was read from, and the identities of the folders walked.
    tree: _Tree | None = field(default=None, compare=False, repr=False)
    #: The files read that are not trusted, with the content read: a change of one may keep
    #: its identity, so ``changed_since`` reads them again.
    racy: tuple[tuple[str, bytes], ...] = field(default=(), compare=False, repr=False)

    def changed_since(self) -> bool:
        """Whether a folder walked or a file read is no longer as it was: a stat of each, and a
        read of the files changed so recently (``RACY_NS``) that another change may keep their identity."""
        if any(identity(path) != known for path, known in self.identities.items()):
            return True
        for path, content in self.racy:
            try:
                with open(path, "rb") as stream:
                    if stream.read(len(content) + 1) != content:
                        return True
            except OSError:
                return True
        return False

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


def _read_source(source_file: SourceFile, limit: int, found: dict[str, Identity]) -> bytes | Diagnostic:
    """The file's bytes, or why not: a file larger than ``limit`` is never read, not even in part.

    The file's identity before the read goes into ``found``.
    """
    path = source_file.path
    try:
        info = source_file.absolute.stat()
        found[str(source_file.absolute)] = identity_of(info)
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


def _reuse(path: Path, previous: Snapshot | None, found: dict[str, Identity]) -> bool:
    """Whether the file at ``path`` is still the very one ``previous`` read and trusted (see
    ``Snapshot.trusted``); its identity now goes into ``found``."""
    if previous is None or str(path) not in previous.trusted:
        return False
    now = identity(path)
    if now is None or now != previous.identities.get(str(path)):
        return False
    found[str(path)] = now
    return True


def read_sources(config: Config, previous: Snapshot | None = None) -> Snapshot:
    """Find and read every module file once; unreadable and oversized ones become diagnostics.

    With the ``previous`` snapshot of the same project (a process that compiles again and
    again), a file that is still the one it read and trusted (``Snapshot.trusted``) is not
    read again: its content is taken from ``previous``.  Everything else is read as new.
    """
    started = time.time_ns()
    tree = _same_tree(previous)
    if tree is None:
        tree = _walk_tree(config)
    sources, problems = tree.sources, list(tree.problems)
    found: dict[str, Identity] = dict(tree.folders)
    known = {str(item.absolute): (item, key, content) for item, key, content in previous.files} if previous else {}
    files: list[tuple[SourceFile, str, bytes]] = []
    unread: set[str] = set()
    for source_file in sources:
        was = known.get(str(source_file.absolute))
        if was is not None and was[0] == source_file and _reuse(source_file.absolute, previous, found):
            files.append(was)
            continue
        content = _read_source(source_file, config.max_file_bytes, found)
        if isinstance(content, Diagnostic):
            problems.append(content)
            unread.add(source_file.module)
            continue
        files.append((source_file, _cache_key(source_file, content), content))
    data = _data_set(config, tree, found, previous)
    problems.extend(data.problems)
    recent = started - RACY_NS
    read = [
        *((str(item.absolute), content) for item, _, content in files),
        *((str(config.src / item.member), item.content) for item in data.files),
    ]
    trusted = frozenset(
        path for path, _ in read if path in found and found[path][2] < recent and found[path][3] < recent
    )
    racy = tuple((path, content) for path, content in read if path not in trusted)
    return Snapshot(tuple(files), tuple(problems), frozenset(unread), data, found, trusted, tree, racy)


def _same_tree(previous: Snapshot | None) -> _Tree | None:
    """The walk ``previous`` was read from, if walking again would find the same: no folder
    walked has changed (an entry added, removed or renamed changes its folder), and the
    walk met no symbolic link, whose target may change without its folder changing."""
    tree = previous.tree if previous is not None else None
    if tree is None or tree.links:
        return None
    racy = tree.started - RACY_NS
    for folder, known in tree.folders.items():
        if known[2] >= racy or known[3] >= racy or identity(folder) != known:
            return None  # changed, or changed so recently that a change may not show yet
    return tree
