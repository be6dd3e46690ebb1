"""Render the project template into a new folder: what ``skill init`` does.

Rendering happens in memory first, so a broken template writes nothing; writing then
records every file and folder it creates, so a failure half-way removes them again and
puts back any file that ``--force`` overwrote.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path, PurePosixPath

from jinja2 import StrictUndefined, TemplateError
from jinja2.sandbox import SandboxedEnvironment

from ..contracts.errors import SkillError, UsageError
from ..contracts.version import __version__

__all__ = [
    "PROJECT_NAME_PATTERN",
    "PlannedFile",
    "default_template",
    "plan_project",
    "scaffold_project",
    "write_project",
]

#: An agent name: a letter, then letters, digits, '_' or '-'; it also names the package.
PROJECT_NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
TEMPLATE_SUFFIX = ".jinja"


@dataclass(frozen=True)
class PlannedFile:
    """One file of the new project: where it goes (relative, POSIX) and its bytes."""

    path: PurePosixPath
    content: bytes


def default_template() -> Traversable:
    """The project template shipped inside skillc."""
    return resources.files("skillc.templates") / "project"


def _skillc_version() -> str:
    return __version__.split("+")[0]


def _walk(folder: Traversable, prefix: PurePosixPath) -> list[tuple[PurePosixPath, Traversable]]:
    found: list[tuple[PurePosixPath, Traversable]] = []
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if entry.name == "__pycache__":
            continue
        if entry.is_dir():
            found.extend(_walk(entry, prefix / entry.name))
        else:
            found.append((prefix / entry.name, entry))
    return found


def plan_project(template: Traversable, variables: Mapping[str, str]) -> list[PlannedFile]:
    """Render every file of ``template``: ``*.jinja`` files and all file names through jinja.

    Other files are copied as they are.  A template error is a ``SkillError`` naming the
    template file.
    """
    environment = SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)
    planned: list[PlannedFile] = []
    for relative, entry in _walk(template, PurePosixPath()):
        try:
            parts = [environment.from_string(part).render(variables) for part in relative.parts]
            if parts[-1].endswith(TEMPLATE_SUFFIX):
                parts[-1] = parts[-1][: -len(TEMPLATE_SUFFIX)]
                text = environment.from_string(entry.read_text(encoding="utf-8")).render(variables)
                content = text.encode("utf-8")
            else:
                content = entry.read_bytes()
        except TemplateError as error:
            raise SkillError(f"template {relative} cannot be rendered: {error}") from error
        target = PurePosixPath(*parts)
        if any(part in ("", ".", "..") for part in parts) or target.is_absolute():
            raise SkillError(f"template {relative} renders to an unsafe path {target}")
        planned.append(PlannedFile(target, content))
    return planned


def _links_in_the_way(target: Path, files: list[PlannedFile]) -> list[PurePosixPath]:
    """The paths under ``target`` where writing ``files`` would go through a symbolic link.

    Each is a planned file that is a link, or a folder on the way to one; a path below
    a link is not listed again.
    """
    links: set[PurePosixPath] = set()
    for planned in files:
        for depth in range(1, len(planned.path.parts) + 1):
            relative = PurePosixPath(*planned.path.parts[:depth])
            if target.joinpath(*relative.parts).is_symlink():
                links.add(relative)
                break
    return sorted(links)


def _refuse_links(target: Path, shown: Path, files: list[PlannedFile]) -> None:
    """Refuse to write anything when a file of the project would be written through a link."""
    links = _links_in_the_way(target, files)
    if links:
        listed = "\n".join(f"  {link} -> {os.readlink(target.joinpath(*link.parts))}" for link in links)
        raise UsageError(
            f"refusing to write into {shown} through symbolic links; nothing was written:\n{listed}",
            hint="skill init never writes what a link points to; remove the links, or choose a new folder",
        )


def write_project(target: Path, files: list[PlannedFile]) -> None:
    """Write ``files`` under ``target``; on any failure undo everything this call did.

    Nothing is written through a symbolic link: ``UsageError`` lists any in the way first.
    """
    _refuse_links(target, target, files)
    created_dirs: list[Path] = []
    written: list[tuple[Path, bytes | None]] = []
    try:
        for planned in files:
            destination = target.joinpath(*planned.path.parts)
            missing = [p for p in (destination.parent, *destination.parent.parents) if not p.exists()]
            for folder in reversed(missing):
                folder.mkdir()
                created_dirs.append(folder)
            previous = destination.read_bytes() if destination.is_file() else None
            written.append((destination, previous))
            destination.write_bytes(planned.content)
    except OSError as error:
        for path, previous in reversed(written):
            if previous is None:
                if path.is_file() or path.is_symlink():
                    path.unlink()
            else:
                path.write_bytes(previous)
        for folder in reversed(created_dirs):
            folder.rmdir()
        raise SkillError(f"could not write the project, nothing was left behind: {error}") from error


def _first_link(target: Path, cwd: Path) -> Path | None:
    """The first symbolic link on the way from ``cwd`` down to ``target`` (itself included)."""
    for base in (cwd, cwd.resolve()):
        if target.is_relative_to(base):
            current = base
            for part in target.relative_to(base).parts:
                current = current / part
                if current.is_symlink():
                    return current
            return None
    return target if target.is_symlink() else None


def _check_target(target: Path, shown: Path, cwd: Path, force: bool) -> None:
    """Refuse a target outside ``cwd`` or reached through a link, a file, or a non-empty folder without ``force``."""
    resolved = target.resolve()
    if not resolved.is_relative_to(cwd.resolve()):
        raise UsageError(
            f"refusing to create a project at {shown}: it is outside the current folder",
            hint="run `skill init` from the folder that should contain the project",
        )
    link = _first_link(target, cwd)
    if link is not None:
        where = "it is" if link == target else f"{link.relative_to(cwd) if link.is_relative_to(cwd) else link} is"
        raise UsageError(
            f"refusing to create a project at {shown}: {where} a symbolic link to {os.readlink(link)}",
            hint="skill init never writes through a link; name the folder it points to instead",
        )
    if resolved.exists() and not resolved.is_dir():
        raise UsageError(f"refusing to create a project at {shown}: it is a file")
    if resolved.is_dir() and any(resolved.iterdir()) and not force:
        raise UsageError(
            f"refusing to create a project in {shown}: the folder is not empty",
            hint="choose a new folder, or pass --force to write into this one",
        )


def scaffold_project(
    target: Path,
    *,
    name: str | None = None,
    force: bool = False,
    pretend: bool = False,
    template: Traversable | None = None,
    cwd: Path | None = None,
) -> list[PlannedFile]:
    """Create a new project at ``target`` and return the files written (or, with ``pretend``, the files that would be)."""
    cwd = Path.cwd() if cwd is None else cwd
    shown = target
    target = target if target.is_absolute() else cwd / target
    agent_name = name if name is not None else target.resolve().name
    if not PROJECT_NAME_PATTERN.fullmatch(agent_name):
        raise UsageError(
            f"invalid project name {agent_name!r}: start with a letter, then use letters, "
            "digits, '_' or '-' (at most 64 characters)",
            hint="pass --name to name the agent differently from its folder",
        )
    _check_target(target, shown, cwd, force)
    variables = {
        "name": agent_name,
        "package": agent_name.lower().replace("_", "-"),
        "skillc_version": _skillc_version(),
    }
    files = plan_project(template or default_template(), variables)
    _refuse_links(target, shown, files)
    if pretend:
        return files
    write_project(target, files)
    return files
