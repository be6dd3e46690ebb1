"""The nouns that cross the compiler's stages: configuration, module summaries, diagnostics.

Everything here is a frozen, picklable value.  A module summary (``ModuleIndex``) is
plain data about one file, so it can be cached by content hash and built in a worker
process; linking and checking work on these summaries only, never on syntax trees.

Positions follow LibCST's convention: lines are 1-based, columns 0-based; they are
converted only when printed.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple, TypeAlias

from ..contracts.settings import SettingValues

__all__ = [
    "AgentInfo",
    "Check",
    "Example",
    "Config",
    "Diagnostic",
    "Finding",
    "IndexStats",
    "ModelRef",
    "NodePath",
    "Pos",
    "Severity",
    "SkillInfo",
    "Source",
    "ToolInfo",
]

#: Steps from a module's root node to one node: attribute names and list indexes.
NodePath: TypeAlias = tuple[str | int, ...]


class Pos(NamedTuple):
    """Where a node starts (a tuple: tens of thousands of them are cached per project).

    ``line``/``col`` are exact whenever ``ast`` could parse the file; otherwise they
    are the enclosing statement's, and ``path`` (the node path as dotted text, e.g.
    ``"body.3.value.args.0"``) lets ``locate`` find the node's own position on demand.
    """

    line: int
    col: int
    path: str = ""
    exact: bool = True

    @staticmethod
    def encode(path: NodePath) -> str:
        """``("body", 3, "value")`` -> ``"body.3.value"``."""
        return ".".join(map(str, path))

    def steps(self) -> NodePath:
        """The node path as attribute names and list indexes."""
        if not self.path:
            return ()
        return tuple(int(step) if step.isdigit() else step for step in self.path.split("."))


# --- Diagnostics -------------------------------------------------------------------


class Severity(enum.Enum):
    """How bad a diagnostic is: errors stop the compile, warnings do not."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Diagnostic:
    """One problem, with where it is and what to do about it."""

    code: str
    severity: Severity
    message: str
    path: str
    line: int
    col: int
    hint: str | None = None
    related: tuple[tuple[str, int, int, str], ...] = ()

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.col, self.code, self.message)


@dataclass(frozen=True, slots=True)
class Finding:
    """A problem a stage found: a diagnostic before ``report.Reporter`` gives it its
    severity (from ``checks``) and its exact position (see ``locate``)."""

    code: str
    message: str
    path: str
    pos: Pos
    hint: str | None = None
    related: tuple[tuple[str, Pos, str], ...] = ()


@dataclass(frozen=True)
class IndexStats:
    """How the index was built: files seen, parsed, served from the cache, and workers."""

    files: int
    parsed: int
    cached: int
    workers: int


# --- Configuration -----------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    """``[tool.skill]`` of a project, with every path made absolute."""

    root: Path
    pyproject: Path
    entry: Path
    src: Path
    out: Path
    schema: Literal["static", "import"] = "static"
    chat: Mapping[str, object] = field(default_factory=dict)
    #: ``[tool.skill.defaults]``: plain values of settings for the tools that do not set them.
    defaults: Mapping[str, object] = field(default_factory=dict)
    warnings: tuple[Diagnostic, ...] = ()
    #: Line of ``entry =`` in pyproject.toml (or of the table when it is not set).
    entry_line: int = 1
    #: ``[project] dependencies``: what a tool's third-party imports may come from.
    dependencies: tuple[str, ...] = ()
    #: ``max-file-size``: a source file larger than this many bytes is not parsed.
    max_file_bytes: int = 2_000_000
    #: ``allow_outside``: folders outside the project that source symlinks may lead into.
    outside_roots: tuple[Path, ...] = ()
    #: ``include``: globs (relative to ``src``) of the data files bundled with the modules.
    include: tuple[str, ...] = ("**/*",)
    #: ``exclude``: globs (relative to ``src``) of files never bundled as data.
    exclude: tuple[str, ...] = ()
    #: ``[tool.skill.data] url``: the PostgreSQL database of ``ctx.data`` (``SKILL_DATA_URL`` wins over it).
    data_url: str | None = field(default=None, repr=False)
    #: ``[tool.skill.data] path``: the folder of the SQLite databases, one per environment.
    data_folder: Path | None = None


# --- What linking finds: the agent, its skills and tools -------------------------


@dataclass(frozen=True)
class Source:
    """Where something is defined: a path relative to the project, a line, a column."""

    path: str
    line: int
    col: int


@dataclass(frozen=True)
class ModelRef:
    """A pydantic model class in the project (or outside it, when ``module`` is external)."""

    module: str
    qualname: str


@dataclass(frozen=True)
class ToolInfo:
    """One tool the agent reaches, ready for schemas and bundling."""

    name: str
    skill: str
    form: Literal["class", "function", "object"]
    description: str
    module: str
    qualname: str
    source: Source
    settings: SettingValues
    has_condition: bool
    input_model: ModelRef | None
    output_model: ModelRef | None
    is_async: bool
    #: The literal arguments a class-form tool is registered with (``Files("data")``), passed again in the bundle.
    init_arguments: tuple[object, ...] = ()
    init_keywords: tuple[tuple[str, object], ...] = ()
    #: The name of a function-form tool's function, where it differs from ``qualname`` (``lookup_tool =
    #: tool(lookup)``: the tool is ``lookup_tool``, its parameters ``lookup``'s); else ``None``.
    function: str | None = None


@dataclass(frozen=True)
class SkillInfo:
    """One skill of the agent, with the names of its tools in order."""

    name: str
    description: str
    context: str
    tools: tuple[str, ...]
    has_condition: bool
    module: str
    qualname: str
    source: Source


@dataclass(frozen=True)
class AgentInfo:
    """The agent defined by the entry module."""

    name: str
    persona: str
    skills: tuple[str, ...]
    module: str
    qualname: str
    source: Source


# --- Checks: what each diagnostic code means, with examples ---------------------------


@dataclass(frozen=True)
class Example:
    """A project under ``src/`` (file name -> source); ``at`` is where the diagnostic is."""

    files: Mapping[str, str | bytes]
    at: tuple[str, int, int] | None = None


@dataclass(frozen=True)
class Check:
    """One diagnostic code and what it means."""

    code: str
    severity: Severity
    summary: str
    valid: tuple[Example, ...] = field(default=())
    invalid: tuple[Example, ...] = field(default=())
