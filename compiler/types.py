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
    "BinOp",
    "Check",
    "Example",
    "Call",
    "ClassInfo",
    "Config",
    "Const",
    "Container",
    "Diagnostic",
    "Dynamic",
    "EarlyUse",
    "Expr",
    "Finding",
    "FunctionInfo",
    "ImportBinding",
    "ModelRef",
    "ModuleIndex",
    "NodePath",
    "Param",
    "Pos",
    "Ref",
    "Severity",
    "SkillInfo",
    "Source",
    "Subscript",
    "ToolInfo",
    "ValueBinding",
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


# --- Expressions, reduced to what static analysis can reason about -----------------


@dataclass(frozen=True)
class Const:
    """A literal: str, bytes, int, float, complex, bool, None or Ellipsis."""

    value: object
    pos: Pos


@dataclass(frozen=True)
class Ref:
    """A name or a dotted attribute chain: ``Tool``, ``skillc.Tool``, ``models.Input``."""

    dotted: str
    pos: Pos


@dataclass(frozen=True)
class Call:
    """A call with its positional and keyword arguments; ``*``/``**`` make it opaque."""

    func: Expr
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...]
    pos: Pos
    has_star: bool = False

    def keyword(self, name: str) -> Expr | None:
        """The value passed as ``name=``, or ``None``."""
        for key, value in self.kwargs:
            if key == name:
                return value
        return None


@dataclass(frozen=True)
class Container:
    """A list, tuple, set or dict display; a dict's items are (key, value) pairs."""

    kind: Literal["list", "tuple", "set", "dict"]
    items: tuple[Expr, ...]
    pos: Pos
    keys: tuple[Expr | None, ...] = ()
    has_star: bool = False


@dataclass(frozen=True)
class Subscript:
    """``value[item, ...]``, as in ``list[int]`` or ``Annotated[int, Field(ge=0)]``."""

    value: Expr
    items: tuple[Expr, ...]
    pos: Pos


@dataclass(frozen=True)
class BinOp:
    """A binary operation; ``|`` is what matters (unions and flag sets)."""

    op: str
    left: Expr
    right: Expr
    pos: Pos


@dataclass(frozen=True)
class Dynamic:
    """Anything else: its value is only known by running the code."""

    kind: str
    text: str
    pos: Pos


Expr: TypeAlias = Const | Ref | Call | Container | Subscript | BinOp | Dynamic


# --- What one module defines --------------------------------------------------------


@dataclass(frozen=True)
class ImportBinding:
    """A name an import binds: ``from .a import b as c`` binds ``c`` to ``(.a, b)``.

    ``module`` is the module as written (without the leading dots), ``level`` the
    number of leading dots, ``name`` the imported attribute (``None`` for ``import a.b``,
    which binds ``a`` to module ``a``, or ``a.b`` with ``as``).
    """

    local: str
    module: str
    name: str | None
    level: int
    pos: Pos
    star: bool = False
    branch: str | None = None
    #: Under ``if TYPE_CHECKING:``: for type checkers only, never run.
    typing_only: bool = False


@dataclass(frozen=True)
class Param:
    """A function parameter with its annotation and default, as written."""

    name: str
    kind: Literal["positional_only", "normal", "var_positional", "keyword_only", "var_keyword"]
    annotation: Expr | None
    default: Expr | None
    pos: Pos


@dataclass(frozen=True)
class FunctionInfo:
    """A function or method: its decorators, parameters and docstring, and whether its body does anything."""

    name: str
    params: tuple[Param, ...]
    decorators: tuple[Expr, ...]
    is_async: bool
    docstring: str | None
    returns: Expr | None
    pos: Pos
    branch: str | None = None
    #: Where the body first does something beyond a docstring, ``...``, ``pass`` or ``return None``;
    #: ``None`` for a body that does nothing (a client-side tool's function).
    code_at: Pos | None = None
    #: Where the function's own body first yields (``yield`` or ``yield from``: calling it makes a
    #: generator); ``None`` when it never does.
    yields_at: Pos | None = None


@dataclass(frozen=True)
class ValueBinding:
    """``name = value`` or ``name: annotation = value`` at module or class level."""

    name: str
    value: Expr | None
    annotation: Expr | None
    pos: Pos
    branch: str | None = None


@dataclass(frozen=True)
class EarlyUse:
    """A module-level name that code run at import reads before the module binds it.

    Importing the module raises ``NameError`` there (see ``index_early_names``): ``pos``
    is the first such use, ``bound_line`` the line of the statement that binds the name
    after it, and ``annotation`` whether that use is an annotation (which quoting, or
    ``from __future__ import annotations``, keeps from being evaluated).
    """

    name: str
    pos: Pos
    bound_line: int
    annotation: bool = False


@dataclass(frozen=True)
class ClassInfo:
    """A class: its bases, keywords, class-level attributes and methods."""

    name: str
    bases: tuple[Expr, ...]
    keywords: tuple[tuple[str, Expr], ...]
    decorators: tuple[Expr, ...]
    attributes: tuple[ValueBinding, ...]
    methods: tuple[FunctionInfo, ...]
    docstring: str | None
    pos: Pos
    branch: str | None = None
    #: The classes defined in the body, in its order (``Outer.Inner``; pydantic v1's ``class Config:``).
    classes: tuple[ClassInfo, ...] = ()
    #: Statements of the body the index does not read (``if``/``try``/``for``...).
    skipped: tuple[Pos, ...] = ()
    #: The attributes its methods assign on their instance (``self.name = ...``; a classmethod's
    #: ``cls.name = ...``), each with the position of its first assignment.
    self_assignments: tuple[tuple[str, Pos], ...] = ()

    def attribute(self, name: str) -> ValueBinding | None:
        """The last binding of ``name`` in the class body."""
        found = None
        for binding in self.attributes:
            if binding.name == name:
                found = binding
        return found

    def nested_class(self, name: str) -> ClassInfo | None:
        """The class ``name`` defined in the body, if the body's last binding of ``name`` is that class."""
        found = None
        for cls in self.classes:
            if cls.name == name:
                found = cls
        if found is None:
            return None
        later = [item.pos for item in self.attributes if item.name == name]
        later += [item.pos for item in self.methods if item.name == name]
        if any((found.pos.line, found.pos.col) < (pos.line, pos.col) for pos in later):
            return None  # bound again further down the body
        return found

    def method(self, name: str) -> FunctionInfo | None:
        """The last definition of method ``name``."""
        found = None
        for method in self.methods:
            if method.name == name:
                found = method
        return found


@dataclass(frozen=True)
class ModuleIndex:
    """Everything the compiler needs to know about one module, as plain data."""

    name: str
    path: str
    is_package: bool
    docstring: str | None
    imports: tuple[ImportBinding, ...]
    classes: tuple[ClassInfo, ...]
    functions: tuple[FunctionInfo, ...]
    assignments: tuple[ValueBinding, ...]
    calls: tuple[Call, ...]
    #: The imports ``imports`` leaves out, which bind no module-level name: in functions,
    #: classes and loops; and ``importlib.import_module("name")``/``__import__("name")``
    #: calls with a literal name anywhere (bound to ``local`` ``""``).
    inner_imports: tuple[ImportBinding, ...] = ()
    #: ``import_module``/``__import__`` calls whose name only running the code would tell.
    dynamic_imports: tuple[Dynamic, ...] = ()
    #: Whether the module holds only imports, a docstring and a literal ``__all__``.
    reexport_only: bool = False
    #: The names code run at import uses before the module binds them (``index_early_names``).
    early_uses: tuple[EarlyUse, ...] = ()
    #: ``pkgutil.get_data`` calls in function bodies: the package as written, and where (``index_imports``).
    late_data_reads: tuple[tuple[str, Pos], ...] = ()
    #: Where code run at import parses the process's command line: the call as written, and
    #: where (``index_command_line``).
    command_line_parses: tuple[tuple[str, Pos], ...] = ()


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
