"""Read ``dist/manifest.json`` into checked values, or say clearly why it cannot be used.

The manifest is the only file read when a ``dist/`` is loaded: every bundle and schema
it names is opened later, when it is first needed.  Keys the runtime does not use are
ignored (a newer compiler may add some); the ones it uses are validated, including
that every path stays inside ``dist/``.  Every file of ``dist/`` is read through
``read_dist_file``, which refuses a symbolic link: skillc never writes one, so a link
there leads to bytes nobody compiled.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from ..contracts.errors import UserError
from ..contracts.spec import MANIFEST, MANIFEST_FORMAT, MAX_NAME_LENGTH
from .serialize import describe_validation_error

__all__ = [
    "MANIFEST",
    "MANIFEST_FORMAT",
    "AgentEntry",
    "ConditionEntry",
    "EntryPoint",
    "LinkedDistFile",
    "Manifest",
    "SchemaPaths",
    "SkillEntry",
    "ToolEntry",
    "read_dist_file",
    "read_manifest",
]

_RECOMPILE = "run `skill compile` to rebuild dist/"


def _inside(path: str) -> str:
    """Refuse a path that could point outside ``dist/``."""
    pure = PurePosixPath(path)
    if not path or "\\" in path or pure.is_absolute() or ".." in pure.parts:
        raise ValueError("must be a relative path inside dist/")
    return path


DistPath = Annotated[str, AfterValidator(_inside)]
Name = Annotated[str, Field(pattern=r"^[a-zA-Z0-9_-]+$", max_length=MAX_NAME_LENGTH)]
ModuleName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")]
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class LinkedDistFile(OSError):
    """A file of ``dist/`` that is a symbolic link, or inside a linked folder: skillc writes neither."""


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0))


def read_dist_file(dist: Path, relative: str) -> bytes:
    """The bytes of ``dist/relative``, refusing a symbolic link anywhere below ``dist``.

    A link could lead anywhere, so what it points to is never read: ``LinkedDistFile``
    says so.  Any other failure is the ``OSError`` that reading raised.
    """
    path = dist / relative
    try:
        linked = path.resolve() != dist.resolve() / relative
    except RuntimeError:  # a loop of links (Python before 3.13)
        linked = True
    if linked:
        raise LinkedDistFile(errno.ELOOP, "it is a symbolic link, or inside a linked folder", str(path))
    try:
        with open(path, "rb", opener=_no_follow) as file:
            return file.read()
    except OSError as error:
        if error.errno == errno.ELOOP:  # made a link after the check above
            raise LinkedDistFile(errno.ELOOP, "it is a symbolic link", str(path)) from None
        raise


class _Entry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class EntryPoint(_Entry):
    """Where, inside a bundle, the tool object (or condition) is bound."""

    module: ModuleName
    qualname: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


class SchemaPaths(_Entry):
    """The schema files of a tool, relative to ``dist/``."""

    tool: DistPath
    input: DistPath
    output: DistPath | None = None


class ToolEntry(_Entry):
    """One tool of the manifest."""

    name: Name
    skill: Name
    description: str = ""
    form: Literal["class", "function", "object"]
    entry: EntryPoint
    bundle: DistPath
    sha256: Sha256
    schemas: SchemaPaths = Field(alias="schema")
    timeout: Annotated[float, Field(gt=0, allow_inf_nan=False)]
    retries: Annotated[int, Field(ge=0)]
    strict: bool = False
    needs_approval: bool = False
    required: bool = False
    has_condition: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)
    is_async: bool = False
    requirements: tuple[str, ...] = ()


class ConditionEntry(_Entry):
    """The archive a skill's ``condition()`` is imported from."""

    bundle: DistPath
    sha256: Sha256
    entry: EntryPoint


class SkillEntry(_Entry):
    """One skill of the manifest."""

    name: Name
    description: str = ""
    context: str = ""
    tools: tuple[Name, ...] = ()
    condition: ConditionEntry | None = None


class AgentEntry(_Entry):
    """The agent: its persona and its skills in order."""

    name: Name
    persona: str = ""
    skills: tuple[Name, ...] = ()


class Manifest(_Entry):
    """What ``dist/manifest.json`` says, checked."""

    format: int
    agent: AgentEntry
    skills: tuple[SkillEntry, ...]
    tools: tuple[ToolEntry, ...]
    source_digest: str = ""

    def tool_map(self) -> Mapping[str, ToolEntry]:
        return {tool.name: tool for tool in self.tools}


def _consistency(manifest: Manifest) -> list[str]:
    """What the schema cannot say: unique names, and tools and skills that refer to each other."""
    problems: list[str] = []
    skills = {skill.name: skill for skill in manifest.skills}
    if len(skills) != len(manifest.skills):
        problems.append("skills: two skills have the same name")
    tools = manifest.tool_map()
    if len(tools) != len(manifest.tools):
        problems.append("tools: two tools have the same name")
    for tool in manifest.tools:
        if tool.skill not in skills:
            problems.append(f"tools: {tool.name!r} belongs to skill {tool.skill!r}, which is not listed")
    for skill in manifest.skills:
        for name in skill.tools:
            if name not in tools:
                problems.append(f"skills: {skill.name!r} lists tool {name!r}, which is not listed")
    return problems


def read_manifest(dist: Path) -> Manifest:
    """Read and check ``dist/manifest.json``; a ``UserError`` says what is wrong with it."""
    path = dist / MANIFEST
    try:
        data = read_dist_file(dist, MANIFEST)
    except LinkedDistFile as error:
        raise UserError(f"{path} is not the manifest skillc wrote: {error.strerror}", hint=_RECOMPILE) from None
    except FileNotFoundError:
        hint = _RECOMPILE if dist.is_dir() else "compile the project first with `skill compile`"
        raise UserError(f"{path} does not exist: {dist} is not a compiled dist/ folder", hint=hint) from None
    except OSError as error:
        raise UserError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as error:
        raise UserError(f"{path} is not valid JSON ({error})", hint=_RECOMPILE) from None
    if not isinstance(document, dict):
        raise UserError(f"{path} is not a manifest: it holds no JSON object", hint=_RECOMPILE)
    found = document.get("format")
    if found != MANIFEST_FORMAT:
        raise UserError(
            f"{path} has manifest format {found!r}; this runtime reads format {MANIFEST_FORMAT}",
            hint="compile the project with the same skillc version that runs it",
        )
    try:
        manifest = Manifest.model_validate(document)
    except ValidationError as error:
        details = "\n".join(f"  {line}" for line in describe_validation_error(error))
        raise UserError(f"{path} is malformed:\n{details}", hint=_RECOMPILE) from None
    problems = _consistency(manifest)
    if problems:
        details = "\n".join(f"  {line}" for line in problems)
        raise UserError(f"{path} is inconsistent:\n{details}", hint=_RECOMPILE)
    return manifest
