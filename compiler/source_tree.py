"""The project's source tree: which module files it holds, and their bytes, read once.

``discover_sources`` walks the import root and names each ``.py`` file's module; it
follows a symbolic link only where it leads inside the project or into a folder of
``[tool.skill] allow_outside``, and never round a loop.  ``read_sources`` reads every
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

from .types import Config, Diagnostic, Severity

__all__ = ["Snapshot", "SourceFile", "discover_sources", "file_diagnostic", "read_sources"]


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


def _link_problem(link: Path, shown: str, root: Path, allowed: tuple[Path, ...]) -> Diagnostic | None:
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


def discover_sources(config: Config) -> tuple[list[SourceFile], list[Diagnostic]]:
    """List the ``.py`` files under ``config.src``, following symlinks but not loops.

    A link is followed only where it leads inside the project or into a folder of
    ``config.outside_roots``; any other link, and a dangling one, is a warning.
    """
    found: list[SourceFile] = []
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
                problem = _link_problem(path, relative(path), root, allowed)
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
                stem = entry.name[:-3]
                is_package = stem == "__init__"
                module_parts = parts if is_package else (*parts, stem)
                if not module_parts:
                    continue  # an __init__.py in the import root itself is no module
                found.append(SourceFile(relative(path), path, ".".join(module_parts), is_package))

    if not config.src.is_dir():
        problems.append(
            file_diagnostic(
                "skill/no-agent", relative(config.pyproject), f"the import root {relative(config.src)} is not a folder"
            )
        )
        return found, problems
    walk(config.src, (), frozenset({config.src.resolve()}))
    return found, problems


def _cache_key(source_file: SourceFile, content: bytes) -> str:
    digest = hashlib.sha256(content)
    digest.update(f"\0{source_file.path}\0{source_file.module}\0{source_file.is_package}".encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Snapshot:
    """The project's sources as read now: each file with its cache key and content."""

    files: tuple[tuple[SourceFile, str, bytes], ...]
    problems: tuple[Diagnostic, ...]
    #: The modules of the files found but not read: importing one is no error of its own.
    unread: frozenset[str] = frozenset()

    def digest(self, *extra: bytes) -> str:
        """One hash of every file's key and of ``extra``: equal digests, equal results."""
        digest = hashlib.sha256()
        for part in extra:
            digest.update(hashlib.sha256(part).digest())
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
    sources, problems = discover_sources(config)
    files: list[tuple[SourceFile, str, bytes]] = []
    unread: set[str] = set()
    for source_file in sources:
        content = _read_source(source_file, config.max_file_bytes)
        if isinstance(content, Diagnostic):
            problems.append(content)
            unread.add(source_file.module)
            continue
        files.append((source_file, _cache_key(source_file, content), content))
    return Snapshot(tuple(files), tuple(problems), frozenset(unread))
