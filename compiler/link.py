"""Link module summaries into the agent's skills and tools, and check them.

Names are resolved from the import statements the indexer recorded: absolute, relative
and aliased imports, re-exports through ``__init__.py``, aliases by assignment, and
attribute chains through modules.  Class bases are followed through any number of
project modules to ``skillc.Tool``; attributes resolve along the C3 method resolution
order, subclass first.  Only what the agent reaches becomes a ``ToolInfo``.

Every problem is reported as a ``Finding`` (a diagnostic whose position may still need
refining, see ``locate``); nothing here raises for bad user code.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..runtime.docstrings import parse_docstring
from ..runtime.spec import (
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    case_collision_error,
    folder_key,
    is_conventional_name,
    is_valid_name,
    reserved_name_error,
)
from .cycles import ImportStart, find_import_cycles
from .types import (
    AgentInfo,
    BinOp,
    Call,
    ClassInfo,
    Config,
    Const,
    Container,
    Expr,
    FunctionInfo,
    ImportBinding,
    ModelRef,
    ModuleIndex,
    Pos,
    Ref,
    Severity,
    SkillInfo,
    Source,
    ToolInfo,
    ToolSettings,
    ValueBinding,
)

__all__ = ["Finding", "LinkResult", "link_project"]

#: The names of the authoring SDK, wherever in ``skillc`` they are imported from.
SDK_NAMES = frozenset({"Tool", "tool", "Skill", "Agent", "ToolContext", "ToolFlag", "FunctionTool"})
BUILTINS = frozenset(
    {
        "str", "int", "float", "bool", "bytes", "list", "dict", "set", "frozenset", "tuple",
        "object", "type", "complex", "print", "len", "range", "Exception", "ValueError",
        "property", "staticmethod", "classmethod", "super", "None", "isinstance", "getattr",
    }
)
_MAX_DEPTH = 64
#: Stands for a setting that is given but unusable, whose problem is already reported.
_REPORTED = "\0reported"
_SKILL_FIELDS = ("name", "description", "context", "tools", "condition")
_AGENT_FIELDS = ("name", "persona", "skills")
#: Builtins that run code or bind names given as text (the linker lists no others).
_DYNAMIC_BUILTINS = frozenset({"exec", "eval", "__import__", "globals", "vars", "locals", "setattr", "delattr"})
#: What imports modules by name, or runs them: calls of these may load any project module.
_DYNAMIC_IMPORTS = ("importlib.", "runpy.", "pkgutil.", "builtins.exec", "builtins.eval", "builtins.__import__")
#: Methods that run when a class is instantiated (validators are found by name).
_CONSTRUCTION_HOOKS = frozenset({"__init__", "__new__", "__post_init__", "__attrs_post_init__", "model_post_init"})


@dataclass(frozen=True, slots=True)
class Finding:
    """A diagnostic before its position is made exact."""

    code: str
    message: str
    path: str
    pos: Pos
    hint: str | None = None
    related: tuple[tuple[str, Pos, str], ...] = ()

    @property
    def severity(self) -> Severity:
        from .checks import severity_of  # here, not at the top: checks.py imports schema.py

        return severity_of(self.code)


@dataclass
class LinkResult:
    """What linking found: the agent, its skills and tools, and the findings."""

    agent: AgentInfo | None
    skills: list[SkillInfo]
    tools: list[ToolInfo]
    findings: list[Finding]
    #: The linker that found them, for the stages that resolve more names (schemas).
    linker: Linker | None = None


# --- Symbols: what a name refers to ----------------------------------------------


@dataclass(frozen=True, slots=True)
class ModuleSym:
    name: str


@dataclass(frozen=True, slots=True)
class ClassSym:
    module: str
    info: ClassInfo

    @property
    def key(self) -> tuple[str, str]:
        return (self.module, self.info.name)


@dataclass(frozen=True, slots=True)
class FunctionSym:
    module: str
    info: FunctionInfo


@dataclass(frozen=True, slots=True)
class ValueSym:
    module: str
    binding: ValueBinding


@dataclass(frozen=True, slots=True)
class ExternalSym:
    qualname: str


@dataclass(frozen=True, slots=True)
class UnknownSym:
    """A name whose meaning only running the code would tell (star imports, cycles).

    ``reported`` marks an unknown whose cause already has its own diagnostic (a
    module that does not parse), so that nothing downstream reports it again.
    """

    reason: str
    reported: bool = False


Symbol = ModuleSym | ClassSym | FunctionSym | ValueSym | ExternalSym | UnknownSym


def canonical(qualname: str) -> str:
    """``skillc.runtime.sdk.ToolFlag.NONE`` -> ``skillc.ToolFlag.NONE``."""
    parts = qualname.split(".")
    if parts[0] == "skillc":
        for index, part in enumerate(parts[1:], start=1):
            if part in SDK_NAMES:
                return ".".join(["skillc", *parts[index:]])
    return qualname


class _NotLiteral(Exception):
    """Raised inside literal evaluation; caught where the value is asked for."""

    def __init__(self, expr: Expr) -> None:
        super().__init__()
        self.expr = expr


@dataclass(frozen=True, slots=True)
class _Binding:
    kind: str  # "import", "class", "function", "value"
    item: ImportBinding | ClassInfo | FunctionInfo | ValueBinding
    branch: str | None


@dataclass
class _Draft:
    """A tool definition found in the project, before its settings are checked."""

    form: str
    module: str
    qualname: str
    pos: Pos
    cls: ClassSym | None = None
    function: FunctionInfo | None = None
    call: Call | None = None


class Linker:
    """Resolves names across the project's modules; one instance per compile."""

    def __init__(
        self, modules: dict[str, ModuleIndex], config: Config, failed: frozenset[str] = frozenset()
    ) -> None:
        self.modules = modules
        self.config = config
        #: Modules that exist but could not be indexed (their diagnostics say why).
        self.failed = failed
        self.findings: list[Finding] = []
        known = [*modules, *failed]
        self.roots = {name.split(".")[0] for name in known}
        self.packages = {".".join(name.split(".")[:i]) for name in known for i in range(1, name.count(".") + 1)}
        self._bindings: dict[str, dict[str, list[_Binding]]] = {}
        self._mro: dict[tuple[str, str], list[ClassSym | ExternalSym]] = {}
        self._mro_active: set[tuple[str, str]] = set()
        self._reported: set[tuple[str, str, int, int, str]] = set()
        self._quiet = 0

    # --- reporting ------------------------------------------------------------------

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """Resolve names without reporting what resolving them finds.

        For questions asked about any module-level code (the import-cycle analysis),
        whose names the compiled tools may never use.
        """
        self._quiet += 1
        try:
            yield
        finally:
            self._quiet -= 1

    def report(
        self, code: str, module: str, pos: Pos, message: str, hint: str | None = None,
        related: tuple[tuple[str, Pos, str], ...] = (),
    ) -> None:
        if self._quiet:
            return
        path = self.path_of(module)
        key = (code, path, pos.line, pos.col, repr(pos.path) + message)
        if key in self._reported:
            return
        self._reported.add(key)
        self.findings.append(Finding(code, message, path, pos, hint, related))

    def path_of(self, module: str) -> str:
        index = self.modules.get(module)
        return index.path if index is not None else module

    # --- modules and bindings -------------------------------------------------------

    def is_module(self, name: str) -> bool:
        return name in self.modules or name in self.packages or name in self.failed

    def is_local(self, name: str) -> bool:
        return name.split(".")[0] in self.roots

    def bindings(self, module: str) -> dict[str, list[_Binding]]:
        found = self._bindings.get(module)
        if found is not None:
            return found
        index = self.modules[module]
        items: list[tuple[Pos, _Binding, str]] = []
        for item in index.imports:
            if not item.star:
                items.append((item.pos, _Binding("import", item, item.branch), item.local))
        for cls in index.classes:
            items.append((cls.pos, _Binding("class", cls, cls.branch), cls.name))
        for function in index.functions:
            items.append((function.pos, _Binding("function", function, function.branch), function.name))
        for value in index.assignments:
            items.append((value.pos, _Binding("value", value, value.branch), value.name))
        items.sort(key=lambda entry: (entry[0].line, entry[0].col))
        found = {}
        for _, binding, name in items:
            found.setdefault(name, []).append(binding)
        self._bindings[module] = found
        return found

    def binding(self, module: str, name: str, *, warn: bool = True) -> _Binding | None:
        """The binding of ``name`` that a reader of the module would take.

        The last unconditional binding wins when it comes after every conditional
        one; otherwise the bindings in different branches disagree, which is reported,
        and the first one is taken.
        """
        candidates = self.bindings(module).get(name)
        if not candidates:
            return None
        last = candidates[-1]
        if last.branch is None:
            return last
        branches = {candidate.branch for candidate in candidates}
        if len(branches) > 1 and warn:
            first, second = candidates[0], candidates[1]
            self.report(
                "skill/conditional-definition",
                module,
                _pos_of(second.item),
                f"{name!r} is bound differently in different branches; skillc uses the first one",
                hint="bind it once, unconditionally, so that every reader sees the same definition",
                related=((self.path_of(module), _pos_of(first.item), "first bound here"),),
            )
        return candidates[0]

    # --- resolution -----------------------------------------------------------------

    def absolute(self, module: str, item: ImportBinding) -> str | None:
        """The absolute module an import names, or ``None`` if it climbs above the root."""
        if item.level == 0:
            return item.module
        index = self.modules[module]
        parts = module.split(".") if index.is_package else module.split(".")[:-1]
        if item.level - 1 > len(parts):
            return None
        base = parts[: len(parts) - (item.level - 1)]
        return ".".join([*base, item.module] if item.module else base) or None

    def resolve_import(self, module: str, item: ImportBinding, depth: int = 0) -> Symbol | None:
        target = self.absolute(module, item)
        if target is None:
            return None
        if item.name is None:
            # ``import a.b`` binds ``a``; ``import a.b as c`` binds ``a.b``.
            bound = target if item.local != target.split(".")[0] else target.split(".")[0]
            if not self.is_local(target):
                return ExternalSym(canonical(bound))
            if target in self.failed:
                return UnknownSym(f"module {target!r} does not parse", reported=True)
            return ModuleSym(bound) if self.is_module(target) else None
        if not self.is_local(target):
            return ExternalSym(canonical(f"{target}.{item.name}"))
        if not self.is_module(target):
            return None
        if target in self.failed:
            return UnknownSym(f"module {target!r} does not parse", reported=True)
        if target in self.modules:
            own = self.binding(target, item.name, warn=False)
            # ``from . import x`` in a package's __init__ binds x to its submodule:
            # the binding found is this very import, which must not resolve to itself.
            if (own is not None and own.item is not item) or (own is None and self._star_sources(target)):
                found = self.resolve_name(target, item.name, depth + 1)
                if found is not None:
                    return found
        submodule = f"{target}.{item.name}"
        if self.is_module(submodule):
            return ModuleSym(submodule)
        return None

    def _star_sources(self, module: str) -> list[ImportBinding]:
        return [item for item in self.modules[module].imports if item.star]

    def resolve_name(self, module: str, name: str, depth: int = 0) -> Symbol | None:
        if depth > _MAX_DEPTH:
            return UnknownSym(f"{name!r} is imported in a cycle")
        if module not in self.modules:
            return None
        found = self.binding(module, name)
        if found is None:
            for star in self._star_sources(module):
                target = self.absolute(module, star)
                if target is None:
                    continue
                if not self.is_local(target):
                    return UnknownSym(f"{name!r} may come from 'from {target} import *'")
                if target in self.modules and self.bindings(target).get(name):
                    return self.resolve_name(target, name, depth + 1)
            if name in BUILTINS:
                return ExternalSym(f"builtins.{name}")
            return None
        item = found.item
        if found.kind == "import":
            assert isinstance(item, ImportBinding)
            return self.resolve_import(module, item, depth + 1)
        if found.kind == "class":
            assert isinstance(item, ClassInfo)
            return ClassSym(module, item)
        if found.kind == "function":
            assert isinstance(item, FunctionInfo)
            return FunctionSym(module, item)
        assert isinstance(item, ValueBinding)
        if isinstance(item.value, Ref) and item.annotation is None:
            # ``Alias = Other`` makes the alias mean what ``Other`` means.
            return self.resolve_ref(module, item.value.dotted, depth + 1)
        return ValueSym(module, item)

    def resolve_ref(self, module: str, dotted: str, depth: int = 0) -> Symbol | None:
        head, *rest = dotted.split(".")
        symbol = self.resolve_name(module, head, depth)
        for attribute in rest:
            if symbol is None:
                return None
            symbol = self.member(symbol, attribute, depth)
        return symbol

    def member(self, symbol: Symbol, attribute: str, depth: int = 0) -> Symbol | None:
        if isinstance(symbol, ModuleSym) and f"{symbol.name}.{attribute}" in self.failed:
            return UnknownSym(f"module {symbol.name}.{attribute!r} does not parse", reported=True)
        if isinstance(symbol, ModuleSym) and symbol.name in self.failed:
            return UnknownSym(f"module {symbol.name!r} does not parse", reported=True)
        if isinstance(symbol, UnknownSym):
            return symbol
        if isinstance(symbol, ModuleSym):
            if symbol.name in self.modules and self.bindings(symbol.name).get(attribute):
                return self.resolve_name(symbol.name, attribute, depth + 1)
            submodule = f"{symbol.name}.{attribute}"
            return ModuleSym(submodule) if self.is_module(submodule) else None
        if isinstance(symbol, ExternalSym):
            return ExternalSym(canonical(f"{symbol.qualname}.{attribute}"))
        if isinstance(symbol, ClassSym):
            found = self.class_attribute(symbol, attribute)
            return ValueSym(found[0].module, found[1]) if found else None
        return UnknownSym(f"attribute {attribute!r} of a value")

    def resolve_expr(self, module: str, expr: Expr | None) -> Symbol | None:
        if isinstance(expr, Ref):
            return self.resolve_ref(module, expr.dotted)
        return None

    def is_sdk(self, module: str, expr: Expr | None, name: str) -> bool:
        symbol = self.resolve_expr(module, expr)
        return isinstance(symbol, ExternalSym) and symbol.qualname == f"skillc.{name}"

    # --- what module-level code may run ---------------------------------------------

    def call_runs_project_code(self, module: str, call: Call) -> bool:
        """Whether ``call``, made while ``module`` is imported, may run project code.

        Or import modules by name.  The import-cycle analysis sees no function bodies,
        so it cannot follow either.  Calls of the SDK, the standard library and other
        distributions are taken not to call back into the project.
        """
        func = call.func
        if not isinstance(func, Ref):
            return True  # ``f()()``, ``handlers[0]()``: what is called is unknown
        head, *rest = func.dotted.split(".")
        with self.quiet():
            owner = self.resolve_name(module, head)
            symbol = self.resolve_ref(module, func.dotted) if rest else owner
        if owner is None:
            return head in _DYNAMIC_BUILTINS  # another builtin, or undefined
        if isinstance(symbol, ExternalSym):
            return symbol.qualname.startswith(_DYNAMIC_IMPORTS)
        if isinstance(symbol, ClassSym):
            return self.instantiation_runs_code(symbol)
        if isinstance(owner, ValueSym) and rest:
            return not self._external_value(owner)  # a method of a module-level value
        return True  # a project function, a value called, or what cannot be resolved

    def _external_value(self, symbol: ValueSym) -> bool:
        """Whether a module-level value is a literal, or made by code outside the project."""
        value = symbol.binding.value
        if isinstance(value, Const | Container):
            return True
        if isinstance(value, Call) and isinstance(value.func, Ref):
            with self.quiet():
                made_by = self.resolve_ref(symbol.module, value.func.dotted)
            return isinstance(made_by, ExternalSym) and not made_by.qualname.startswith(_DYNAMIC_IMPORTS)
        return False

    def instantiation_runs_code(self, cls: ClassSym) -> bool:
        """Whether ``cls()`` may run project code: a constructor, a validator, a metaclass."""
        with self.quiet():
            for item in self.mro(cls):
                if not isinstance(item, ClassSym):
                    continue
                if any(key == "metaclass" for key, _ in item.info.keywords):
                    return True
                for method in item.info.methods:
                    if method.name in _CONSTRUCTION_HOOKS or any(
                        self._validator(item.module, decorator) for decorator in method.decorators
                    ):
                        return True
        return False

    def _validator(self, module: str, decorator: Expr) -> bool:
        target = decorator.func if isinstance(decorator, Call) else decorator
        if not isinstance(target, Ref):
            return True
        symbol = self.resolve_ref(module, target.dotted)
        return target.dotted.endswith("validator") or not isinstance(symbol, ExternalSym)

    def class_runs_project_code(self, module: str, cls: ClassInfo) -> bool:
        """Whether defining ``cls`` runs project code: a base's ``__init_subclass__``, a metaclass."""
        with self.quiet():
            for item in self.mro(ClassSym(module, cls)):
                if not isinstance(item, ClassSym):
                    continue
                if item.info is not cls and item.info.method("__init_subclass__") is not None:
                    return True
                for key, value in item.info.keywords:
                    if key == "metaclass" and not isinstance(self.resolve_expr(item.module, value), ExternalSym):
                        return True
        return False

    # --- classes --------------------------------------------------------------------

    def mro(self, cls: ClassSym) -> list[ClassSym | ExternalSym]:
        """The C3 linearisation of a project class; external bases are leaves."""
        cached = self._mro.get(cls.key)
        if cached is not None:
            return cached
        if cls.key in self._mro_active:
            self.report(
                "skill/inheritance-cycle",
                cls.module,
                cls.info.pos,
                f"class {cls.info.name} inherits from itself through its bases",
                hint="break the cycle: a class cannot be its own ancestor",
            )
            return [cls]
        self._mro_active.add(cls.key)
        try:
            sequences: list[list[ClassSym | ExternalSym]] = []
            direct: list[ClassSym | ExternalSym] = []
            for base in cls.info.bases:
                symbol = self.resolve_expr(cls.module, base)
                if isinstance(symbol, ClassSym):
                    sequences.append(self.mro(symbol))
                    direct.append(symbol)
                elif isinstance(symbol, ExternalSym):
                    sequences.append([symbol])
                    direct.append(symbol)
            result = [cls, *_c3_merge([*sequences, direct])]
        finally:
            self._mro_active.discard(cls.key)
        self._mro[cls.key] = result
        return result

    def is_subclass(self, cls: ClassSym, qualname: str) -> bool:
        return any(isinstance(item, ExternalSym) and item.qualname == qualname for item in self.mro(cls))

    def class_attribute(self, cls: ClassSym, name: str) -> tuple[ClassSym, ValueBinding] | None:
        for item in self.mro(cls):
            if isinstance(item, ClassSym):
                found = item.info.attribute(name)
                if found is not None:
                    return item, found
        return None

    def class_method(self, cls: ClassSym, name: str) -> tuple[ClassSym, FunctionInfo] | None:
        for item in self.mro(cls):
            if isinstance(item, ClassSym):
                found = item.info.method(name)
                if found is not None:
                    return item, found
        return None

    # --- literal values -------------------------------------------------------------

    def literal(self, module: str, expr: Expr, depth: int = 0) -> object:
        """The value of a literal, or of a module-level constant bound to one."""
        if depth > _MAX_DEPTH:
            raise _NotLiteral(expr)
        if isinstance(expr, Const):
            return expr.value
        if isinstance(expr, Container) and not expr.has_star:
            values = [self.literal(module, item, depth + 1) for item in expr.items]
            if expr.kind == "dict":
                keys = []
                for key in expr.keys:
                    if key is None:
                        raise _NotLiteral(expr)
                    keys.append(self.literal(module, key, depth + 1))
                return dict(zip(keys, values, strict=True))
            return tuple(values) if expr.kind == "tuple" else values
        if isinstance(expr, Ref):
            symbol = self._constant(module, expr.dotted)
            if isinstance(symbol, ValueSym) and symbol.binding.value is not None:
                try:
                    return self.literal(symbol.module, symbol.binding.value, depth + 1)
                except _NotLiteral:
                    raise _NotLiteral(expr) from None
        raise _NotLiteral(expr)

    def _constant(self, module: str, dotted: str) -> Symbol | None:
        """Resolve a name to a module-level binding, without following value aliases."""
        head, *rest = dotted.split(".")
        found = self.binding(module, head, warn=False)
        if found is not None and found.kind == "value" and not rest:
            assert isinstance(found.item, ValueBinding)
            return ValueSym(module, found.item)
        return self.resolve_ref(module, dotted)


def _pos_of(item: object) -> Pos:
    pos = getattr(item, "pos", None)
    return pos if isinstance(pos, Pos) else Pos(1, 0)


def _c3_merge(sequences: list[list[ClassSym | ExternalSym]]) -> list[ClassSym | ExternalSym]:
    """C3 merge; an inconsistent hierarchy falls back to depth-first order."""
    pending = [list(sequence) for sequence in sequences if sequence]
    result: list[ClassSym | ExternalSym] = []
    while pending:
        for sequence in pending:
            head = sequence[0]
            if not any(head in other[1:] for other in pending):
                break
        else:
            seen = set(result)
            for sequence in sequences:
                for item in sequence:
                    if item not in seen:
                        result.append(item)
                        seen.add(item)
            return result
        result.append(head)
        pending = [[item for item in sequence if item != head] for sequence in pending]
        pending = [sequence for sequence in pending if sequence]
    return result


# --- From the agent down --------------------------------------------------------------


class ProjectLinker(Linker):
    """Walks ``Agent -> skills -> tools`` from the entry module and checks each tool."""

    def __init__(
        self, modules: dict[str, ModuleIndex], config: Config, entry: str, failed: frozenset[str]
    ) -> None:
        super().__init__(modules, config, failed)
        self.entry = entry
        self.tools: list[ToolInfo] = []
        self.skills: list[SkillInfo] = []
        self.registered: set[tuple[str, str]] = set()
        #: By ``folder_key``: names that differ only in case share a folder of dist/ on
        #: macOS and Windows.  Each holds the name as written and where it is.
        self.tool_names: dict[str, tuple[str, str, Pos]] = {}
        self.skill_names: dict[str, tuple[str, str, Pos]] = {}

    def run(self) -> LinkResult:
        self.check_imports()
        agent = self.find_agent()
        if agent is not None:
            # Without an agent every tool would be "unreachable": the no-agent error says it all.
            self.report_unreachable()
        self.report_import_cycles()
        self.findings.sort(key=lambda finding: (finding.path, finding.pos.line, finding.pos.col, finding.code))
        return LinkResult(agent, self.skills, self.tools, self.findings, self)

    # --- imports --------------------------------------------------------------------

    def check_imports(self) -> None:
        for name in sorted(self.modules):
            missing_reported: set[tuple[str, int]] = set()
            for item in self.modules[name].imports:
                written = f"{'.' * item.level}{item.module}"
                if item.star:
                    target = self.absolute(name, item)
                    local = target is not None and self.is_local(target)
                    self.report(
                        "skill/star-import", name, item.pos,
                        f"'from {written} import *' hides which names this module takes from it"
                        if local else
                        f"'from {written} import *' cannot be resolved statically: "
                        "the names it binds are unknown to the compiler",
                        hint="import the names you use explicitly",
                    )
                    continue
                if item.level == 0 and not self.is_local(item.module):
                    continue
                target = self.absolute(name, item)
                if target is None:
                    self.report(
                        "skill/unresolved-import", name, item.pos,
                        f"relative import {written!r} goes above the import root",
                    )
                elif not self.is_module(target):
                    if (target, item.pos.line) in missing_reported:
                        continue  # one report per statement for a module that is missing
                    missing_reported.add((target, item.pos.line))
                    self.report(
                        "skill/unresolved-import", name, item.pos,
                        f"no module {target!r} in the project",
                        hint=f"the import root is {self.config.src.relative_to(self.config.root).as_posix()}/",
                    )
                elif target in self.failed:
                    continue  # the module does not parse: its syntax error is the report
                elif item.name is not None and self.resolve_import(name, item) is None:
                    self.report(
                        "skill/unresolved-import", name, item.pos,
                        f"module {target!r} has no {item.name!r}",
                    )

    def report_import_cycles(self) -> None:
        """Report the from-imports that fail in a cycle, from each module imported first.

        The entry module is what importing the agent runs; each tool's bundle imports the
        tool's module first, and each skill condition's bundle the skill's module.
        """
        starts = [ImportStart(self.entry, f"when the entry module {self.entry} is imported")]
        starts += [
            ImportStart(tool.module, f"when the bundle of tool {tool.name!r} imports {tool.module} first")
            for tool in self.tools
        ]
        starts += [
            ImportStart(skill.module, f"when the condition of skill {skill.name!r} imports {skill.module} first")
            for skill in self.skills
            if skill.has_condition
        ]
        for cycle in find_import_cycles(self, starts):
            self.report(
                "skill/import-cycle", cycle.module, cycle.pos, cycle.message, hint=cycle.hint,
                related=tuple((self.path_of(module), pos, note) for module, pos, note in cycle.related),
            )

    # --- the agent ------------------------------------------------------------------

    def find_agent(self) -> AgentInfo | None:
        relative_entry = self.config.entry.relative_to(self.config.root).as_posix()
        if self.entry not in self.modules:
            if self.config.entry.exists():
                return None  # it did not index: its own diagnostics say why
            self.findings.append(
                Finding(
                    "skill/no-agent",
                    f"the entry module {relative_entry} does not exist",
                    self.config.pyproject.relative_to(self.config.root).as_posix(),
                    Pos(self.config.entry_line, 0),
                    "set [tool.skill] entry to the file that defines the Agent",
                )
            )
            return None
        for binding in self.modules[self.entry].assignments:
            value = binding.value
            if isinstance(value, Call) and self.is_sdk(self.entry, value.func, "Agent"):
                return self.agent(binding, value)
        self.report(
            "skill/no-agent", self.entry, Pos(1, 0),
            f"{relative_entry} defines no Agent",
            hint="add `agent = Agent(name=..., persona=..., skills=[...])` at module level",
        )
        return None

    def arguments(self, call: Call, names: Sequence[str]) -> dict[str, Expr]:
        found = dict(zip(names, call.args))
        found.update(call.kwargs)
        return found

    def text(self, module: str, expr: Expr | None, what: str, *, code_if_bad: str = "skill/dynamic-value") -> str | None:
        """A literal string setting, or ``None`` after reporting why it is not one."""
        if expr is None:
            return None
        try:
            value = self.literal(module, expr)
        except _NotLiteral as error:
            self.report(
                code_if_bad, module, error.expr.pos if hasattr(error.expr, "pos") else expr.pos,
                f"{what} must be a literal string or a module-level constant bound to one",
                hint="the compiler reads it without running your code",
            )
            return None
        if not isinstance(value, str):
            self.report("skill/invalid-setting", module, expr.pos, f"{what} must be a string, not {type(value).__name__}")
            return None
        return value

    def agent(self, binding: ValueBinding, call: Call) -> AgentInfo | None:
        arguments = self.arguments(call, _AGENT_FIELDS)
        name = self.text(self.entry, arguments.get("name"), "the agent's name")
        if name is not None and not is_valid_name(name):
            self.report(
                "skill/invalid-skill-name", self.entry, arguments["name"].pos,
                f"invalid agent name {name!r}: use letters, digits, '_' and '-' only",
            )
        persona = self.text(self.entry, arguments.get("persona"), "the agent's persona") or ""
        skills: list[str] = []
        for module, entry in self.entries(self.entry, arguments.get("skills"), "skills"):
            skill = self.skill(module, entry)
            if skill is not None:
                skills.append(skill.name)
        return AgentInfo(
            name=name or "",
            persona=persona,
            skills=tuple(skills),
            module=self.entry,
            qualname=binding.name,
            source=Source(self.path_of(self.entry), binding.pos.line, binding.pos.col),
        )

    def entries(self, module: str, expr: Expr | None, what: str) -> Iterator[tuple[str, Expr]]:
        """The items of a ``tools=[...]``/``skills=[...]`` list, through constants."""
        if expr is None:
            return
        if isinstance(expr, Ref):
            symbol = self.resolve_ref(module, expr.dotted)
            if isinstance(symbol, ValueSym) and isinstance(symbol.binding.value, Container):
                yield from self.entries(symbol.module, symbol.binding.value, what)
                return
        if not isinstance(expr, Container) or expr.kind not in ("list", "tuple") or expr.has_star:
            self.report(
                "skill/dynamic-value", module, expr.pos,
                f"{what}= must be a literal list, or a module-level constant bound to one",
                hint="list the entries where the compiler can read them",
            )
            return
        for item in expr.items:
            yield module, item

    # --- skills ---------------------------------------------------------------------

    def skill(self, module: str, entry: Expr) -> SkillInfo | None:
        found = self.skill_call(module, entry)
        if found is None:
            if not self.explained(module, entry):
                self.report(
                    "skill/unresolved-reference", module, entry.pos,
                    f"{_describe(entry)} is not a Skill",
                    hint="list Skill(...) objects, or names bound to them, in skills=[...]",
                )
            return None
        skill_module, call, qualname, pos = found
        arguments = self.arguments(call, _SKILL_FIELDS)
        name = self.text(skill_module, arguments.get("name"), "a skill's name")
        valid = name is not None
        if name is None and "name" not in arguments:
            self.report("skill/missing-name", skill_module, call.pos, "Skill must have a name")
        if name is not None and not is_valid_name(name):
            self.report(
                "skill/invalid-skill-name", skill_module, arguments["name"].pos,
                f"invalid skill name {name!r}: use letters, digits, '_' and '-' only",
            )
        reserved = reserved_name_error("skill", name) if name is not None and is_valid_name(name) else None
        if reserved is not None:
            self.report(
                "skill/reserved-skill-name", skill_module, arguments["name"].pos, reserved,
                hint="choose another name; Windows reserves CON, PRN, AUX, NUL, COM1-9 and LPT1-9",
            )
            valid = False
        first = self.skill_names.get(folder_key(name)) if name is not None and valid else None
        if name is not None and first is not None:
            first_name, first_path, first_pos = first
            self.report(
                "skill/duplicate-skill-name", skill_module, arguments["name"].pos,
                f"skill name {name!r} is used twice" if first_name == name
                else case_collision_error("skill", first_name, name),
                related=((first_path, first_pos, "first used here"),),
            )
            valid = False
        if name is not None and valid:
            self.skill_names[folder_key(name)] = (name, self.path_of(skill_module), arguments["name"].pos)
        # The tools of a skill that cannot be kept are still checked (and not "unreachable").
        tools: list[str] = []
        tools_expr = arguments.get("tools")
        for tool_module, item in self.entries(skill_module, tools_expr, "tools"):
            tool = self.tool_entry(tool_module, item, name or "", keep=valid)
            if tool is not None:
                tools.append(tool.name)
        if tools_expr is None or (isinstance(tools_expr, Container) and not tools_expr.items and not tools_expr.has_star):
            self.report("skill/empty-skill", skill_module, pos, f"skill {name!r} has no tools")
        if not valid or name is None:
            return None
        condition = arguments.get("condition")
        info = SkillInfo(
            name=name,
            description=self.text(skill_module, arguments.get("description"), "a skill's description") or "",
            context=self.text(skill_module, arguments.get("context"), "a skill's context") or "",
            tools=tuple(tools),
            has_condition=condition is not None and not (isinstance(condition, Const) and condition.value is None),
            module=skill_module,
            qualname=qualname,
            source=Source(self.path_of(skill_module), pos.line, pos.col),
        )
        self.skills.append(info)
        return info

    def skill_call(self, module: str, entry: Expr) -> tuple[str, Call, str, Pos] | None:
        if isinstance(entry, Call) and self.is_sdk(module, entry.func, "Skill"):
            return module, entry, "", entry.pos
        symbol = self.resolve_expr(module, entry)
        if isinstance(symbol, ValueSym):
            value = symbol.binding.value
            if isinstance(value, Call) and self.is_sdk(symbol.module, value.func, "Skill"):
                return symbol.module, value, symbol.binding.name, value.pos
        return None

    # --- tools ----------------------------------------------------------------------

    def tool_entry(self, module: str, entry: Expr, skill: str, *, keep: bool = True) -> ToolInfo | None:
        draft = self.draft_of(module, entry)
        if draft is None:
            return None
        self.registered.add((draft.module, draft.qualname))
        info = self.tool_info(draft, skill)
        if info is None or not keep:
            return None
        previous = self.tool_names.get(folder_key(info.name))
        if previous is not None:
            first_name, first_path, first_pos = previous
            self.report(
                "skill/duplicate-tool-name", draft.module, self.name_pos(draft),
                f"tool name {info.name!r} is used twice" if first_name == info.name
                else case_collision_error("tool", first_name, info.name),
                hint="tool names must be unique within an agent, ignoring case",
                related=((first_path, first_pos, "first used here"),),
            )
            return None
        self.tool_names[folder_key(info.name)] = (info.name, self.path_of(draft.module), self.name_pos(draft))
        self.tools.append(info)
        return info

    def draft_of(self, module: str, entry: Expr) -> _Draft | None:
        """What a ``tools=[...]`` entry registers, or ``None`` after reporting why nothing."""
        if isinstance(entry, Call):
            if self.is_sdk(module, entry.func, "Tool"):
                return _Draft("object", module, f"<inline tool at line {entry.pos.line}>", entry.pos, call=entry)
            symbol = self.resolve_expr(module, entry.func)
            if isinstance(symbol, ClassSym) and self.is_subclass(symbol, "skillc.Tool"):
                if entry.args or entry.kwargs or entry.has_star:
                    self.report(
                        "skill/constructor-args-dropped", module, entry.pos,
                        f"{symbol.info.name}(...) is registered with arguments, but the compiled "
                        f"tool is created as {symbol.info.name}() and never receives them",
                        hint="set the values as class attributes, or read them from ctx.env",
                    )
                return self.class_draft(symbol)
            if isinstance(symbol, ClassSym):
                self.report(
                    "skill/unresolved-reference", module, entry.pos,
                    f"{symbol.info.name} does not derive from skillc.Tool, so {symbol.info.name}() is not a tool",
                    hint="derive the class from Tool (directly or through a project base class)",
                )
                return None
            if not isinstance(symbol, FunctionSym | ValueSym):
                self.unresolved(module, entry.func, symbol, entry.pos, called=True)
                return None
            inner = [arg for arg in entry.args if self.draft_probe(module, arg)]
            for arg in inner:  # listed, though wrongly: not "unreachable" on top of this error
                draft = self.draft_from_symbol(self.resolve_expr(module, arg.func if isinstance(arg, Call) else arg))
                if draft is not None:
                    self.registered.add((draft.module, draft.qualname))
            what = f" around the tool {_describe(inner[0])}" if inner else ""
            self.report(
                "skill/wrapped-tool-ref", module, entry.pos,
                f"{_describe(entry)} wraps the entry in a call{what}; the compiler cannot see "
                "what it returns, so it would register nothing",
                hint="list the tool itself in tools=[...]; apply wrappers inside the tool",
            )
            return None
        symbol = self.resolve_expr(module, entry)
        draft = self.draft_from_symbol(symbol)
        if draft is not None:
            return draft
        if isinstance(symbol, ClassSym) and self.is_subclass(symbol, "skillc.Tool"):
            self.registered.add((symbol.module, symbol.info.name))
            self.report(
                "skill/unresolved-reference", module, entry.pos,
                f"{symbol.info.name} is a Tool class; register an instance: {symbol.info.name}()",
            )
            return None
        if symbol is None or isinstance(symbol, UnknownSym | ExternalSym):
            self.unresolved(module, entry, symbol, entry.pos, called=False)
            return None
        if isinstance(symbol, FunctionSym):
            hint = "decorate it with @tool"
        else:
            hint = "list tool instances, @tool functions or Tool(...) objects in tools=[...]"
        self.report(
            "skill/unresolved-reference", module, entry.pos, f"{_describe(entry)} is not a tool", hint=hint
        )
        return None

    def explained(self, module: str, expr: Expr) -> bool:
        """Whether a name that does not resolve already has a diagnostic of its own.

        That is the case when it comes from a broken project-local import (reported as
        unresolved-import) or from a module that does not parse (a syntax error).
        """
        target = expr.func if isinstance(expr, Call) else expr
        if not isinstance(target, Ref):
            return False
        symbol = self.resolve_ref(module, target.dotted)
        if isinstance(symbol, UnknownSym) and symbol.reported:
            return True
        found = self.binding(module, target.dotted.split(".")[0], warn=False)
        if found is None or found.kind != "import":
            return False
        assert isinstance(found.item, ImportBinding)
        imported = self.absolute(module, found.item)
        return imported is not None and self.is_local(imported) and self.resolve_import(module, found.item) is None

    def unresolved(self, module: str, expr: Expr, symbol: Symbol | None, pos: Pos, *, called: bool) -> None:
        """Report an entry whose name means nothing the compiler can use as a tool."""
        if self.explained(module, expr):
            return
        shown = _describe(expr) + ("()" if called else "")
        if isinstance(symbol, ExternalSym):
            message = f"{shown} comes from outside the project ({symbol.qualname}); only tools defined in the project can be compiled"
            hint = "define the tool in the project (a Tool subclass, a @tool function or a Tool(...) object)"
        elif isinstance(symbol, UnknownSym):
            message = f"{shown} cannot be resolved statically: {symbol.reason}"
            hint = "import the tool by name from the module that defines it"
        else:
            message = f"{_describe(expr)} is not defined"
            hint = "import it from the module that defines it"
        self.report("skill/unresolved-reference", module, pos, message, hint=hint)

    def draft_probe(self, module: str, expr: Expr) -> bool:
        if isinstance(expr, Call):
            symbol = self.resolve_expr(module, expr.func)
            return isinstance(symbol, ClassSym) and self.is_subclass(symbol, "skillc.Tool")
        return self.draft_from_symbol(self.resolve_expr(module, expr)) is not None

    def draft_from_symbol(self, symbol: Symbol | None) -> _Draft | None:
        if isinstance(symbol, FunctionSym):
            if self.tool_decorator(symbol.module, symbol.info) is not None:
                return _Draft("function", symbol.module, symbol.info.name, symbol.info.pos, function=symbol.info)
            return None
        if isinstance(symbol, ValueSym) and isinstance(symbol.binding.value, Call):
            call = symbol.binding.value
            if self.is_sdk(symbol.module, call.func, "Tool"):
                return _Draft("object", symbol.module, symbol.binding.name, symbol.binding.pos, call=call)
            target = self.resolve_expr(symbol.module, call.func)
            if isinstance(target, ClassSym) and self.is_subclass(target, "skillc.Tool"):
                return self.class_draft(target)
        return None

    def class_draft(self, cls: ClassSym) -> _Draft:
        return _Draft("class", cls.module, cls.info.name, cls.info.pos, cls=cls)

    def tool_decorator(self, module: str, function: FunctionInfo) -> Expr | None:
        for decorator in function.decorators:
            target = decorator.func if isinstance(decorator, Call) else decorator
            if self.is_sdk(module, target, "tool"):
                return decorator
        return None

    # --- one tool's settings --------------------------------------------------------

    def setting(self, draft: _Draft, name: str) -> tuple[str, Expr] | None:
        """Where a setting is given and its expression, for any form."""
        if draft.cls is not None:
            found = self.class_attribute(draft.cls, name)
            if found is None or found[1].value is None:
                return None
            return found[0].module, found[1].value
        if draft.call is not None:
            value = draft.call.keyword(name)
            return (draft.module, value) if value is not None else None
        assert draft.function is not None
        decorator = self.tool_decorator(draft.module, draft.function)
        if isinstance(decorator, Call):
            value = decorator.keyword(name)
            return (draft.module, value) if value is not None else None
        return None

    def name_pos(self, draft: _Draft) -> Pos:
        found = self.setting(draft, "name")
        return found[1].pos if found is not None else draft.pos

    def tool_info(self, draft: _Draft, skill: str) -> ToolInfo | None:
        ok = True
        if draft.call is not None and (draft.call.args or draft.call.has_star):
            self.report(
                "skill/invalid-setting", draft.module, draft.call.pos,
                "Tool(...) takes keyword arguments only: name=, description=, execute=, ...",
            )
            ok = False
        name_setting = self.setting(draft, "name")
        name: str | None
        if name_setting is None and draft.function is not None:
            name = draft.function.name
        elif name_setting is None:
            self.report(
                "skill/missing-name", draft.module, draft.pos, "Tool must have a name",
                hint='set name = "..." (letters, digits, "_" and "-")',
            )
            return None
        else:
            name = self.text(name_setting[0], name_setting[1], "a tool's name")
            if name is None:
                return None
            where = (name_setting[0], name_setting[1].pos)
            if not is_valid_name(name):
                self.report(
                    "skill/invalid-tool-name", where[0], where[1],
                    f"invalid tool name {name!r}: use letters, digits, '_' and '-' only "
                    "(at most 64 characters)",
                    hint="the name becomes a folder of dist/ and the function name the model sees",
                )
                ok = False
        reserved = reserved_name_error("tool", name) if name is not None and is_valid_name(name) else None
        if reserved is not None:
            self.report(
                "skill/reserved-tool-name", name_setting[0] if name_setting else draft.module,
                name_setting[1].pos if name_setting else draft.pos, reserved,
                hint="choose another name; Windows reserves CON, PRN, AUX, NUL, COM1-9 and LPT1-9",
            )
            ok = False
        if ok and name is not None and not is_conventional_name(name):
            where_pos = name_setting[1].pos if name_setting else draft.pos
            self.report(
                "skill/tool-name-style", name_setting[0] if name_setting else draft.module, where_pos,
                f"tool name {name!r} is not lower_snake_case",
                hint="by convention tool names match ^[a-z][a-z0-9_-]*$",
            )
        description = self.description(draft)
        if description is _REPORTED:
            ok = False  # not a literal: the dynamic-value error says so
        elif not description:
            self.report(
                "skill/missing-description", draft.module, draft.pos,
                f"tool {name!r} has no description, so the model cannot tell when to use it",
                hint="describe what the tool does and when to call it",
            )
        is_async = False
        if draft.cls is not None:
            execute = self.class_method(draft.cls, "execute")
            if execute is None:
                self.report(
                    "skill/missing-execute", draft.module, draft.pos, "Tool must have an execute function",
                    hint="define `def execute(self, input, ctx)` (or `async def`)",
                )
                ok = False
            else:
                is_async = execute[1].is_async
            init = self.class_method(draft.cls, "__init__")
            if init is not None:
                required = [
                    param.name
                    for param in init[1].params[1:]
                    if param.default is None and param.kind in ("positional_only", "normal", "keyword_only")
                ]
                if required:
                    self.report(
                        "skill/init-requires-arguments", init[0].module, init[1].pos,
                        f"{draft.cls.info.name}.__init__ requires {', '.join(map(repr, required))}, but the "
                        f"compiled tool is created as {draft.cls.info.name}() with no arguments",
                        hint="give the parameters defaults, or read the values from ctx.env in execute",
                    )
                    ok = False
        elif draft.call is not None:
            execute_expr = draft.call.keyword("execute")
            if execute_expr is None or (isinstance(execute_expr, Const) and execute_expr.value is None):
                self.report(
                    "skill/missing-execute", draft.module, draft.call.pos, "Tool must have an execute function",
                    hint="pass execute=a_function(input, ctx)",
                )
                ok = False
            else:
                target = self.resolve_expr(draft.module, execute_expr)
                is_async = isinstance(target, FunctionSym) and target.info.is_async
        else:
            assert draft.function is not None
            is_async = draft.function.is_async
            for param in draft.function.params:
                if param.kind in ("var_positional", "var_keyword", "positional_only"):
                    self.report(
                        "skill/invalid-setting", draft.module, param.pos,
                        f"parameter {param.name!r} of a @tool function must be a plain or keyword-only parameter",
                    )
                    ok = False
        input_model = self.model(draft, "input_schema")
        output_model = self.model(draft, "output_schema")
        if draft.function is None and input_model is None and self.setting(draft, "input_schema") is None:
            self.report(
                "skill/missing-input-schema", draft.module, draft.pos,
                "Tool should have an input_schema for type safety",
                hint="set input_schema to a pydantic model; the model's arguments are validated against it",
            )
        settings = self.settings(draft)
        if settings is None or not ok or name is None:
            return None
        qualname = draft.qualname
        source_pos = draft.pos
        return ToolInfo(
            name=name,
            skill=skill,
            form=draft.form,  # type: ignore[arg-type]
            description=description if description and description is not _REPORTED else "",
            module=draft.module,
            qualname=qualname,
            source=Source(self.path_of(draft.module), source_pos.line, source_pos.col),
            settings=settings,
            input_model=input_model,
            output_model=output_model,
            is_async=is_async,
        )

    def description(self, draft: _Draft) -> str | None:
        """The tool's description; ``_REPORTED`` when it is given but unusable."""
        found = self.setting(draft, "description")
        if found is not None:
            text = self.text(found[0], found[1], "a tool's description")
            return _REPORTED if text is None else text
        if draft.function is not None:
            return parse_docstring(draft.function.docstring).description or None
        return None

    def model(self, draft: _Draft, setting: str) -> ModelRef | None:
        found = self.setting(draft, setting)
        if found is None or (isinstance(found[1], Const) and found[1].value is None):
            return None
        module, expr = found
        symbol = self.resolve_expr(module, expr)
        if isinstance(symbol, ClassSym):
            return ModelRef(symbol.module, symbol.info.name)
        if isinstance(symbol, ExternalSym):
            head, _, tail = symbol.qualname.rpartition(".")
            return ModelRef(head, tail)
        self.report(
            "skill/invalid-setting" if symbol is not None else "skill/dynamic-value",
            module, expr.pos,
            f"{setting} must name a pydantic model class",
            hint=f"set {setting} = SomeModel, a class deriving from pydantic.BaseModel",
        )
        return None

    def settings(self, draft: _Draft) -> ToolSettings | None:
        values: dict[str, object] = {}
        ok = True
        rules: dict[str, tuple[Callable[[Any], bool], str, object]] = {
            "timeout": (lambda v: not isinstance(v, bool) and isinstance(v, int | float) and math.isfinite(v) and v > 0,
                        "a positive number of seconds", float(DEFAULT_TIMEOUT)),
            "retries": (lambda v: not isinstance(v, bool) and isinstance(v, int) and v >= 0,
                        "a whole number >= 0", DEFAULT_RETRIES),
            "strict": (lambda v: isinstance(v, bool), "True or False", False),
            "needs_approval": (lambda v: isinstance(v, bool), "True or False", False),
            "required": (lambda v: isinstance(v, bool), "True or False", False),
            "metadata": (lambda v: isinstance(v, dict) and all(isinstance(k, str) for k in v),
                         "a dict with string keys", {}),
        }
        for key, (valid, expected, default) in rules.items():
            found = self.setting(draft, key)
            if found is None:
                values[key] = default
                continue
            module, expr = found
            try:
                value = self.literal(module, expr)
            except _NotLiteral as error:
                self.report(
                    "skill/dynamic-value", module, expr.pos,
                    f"{key} must be a literal or a module-level constant bound to one",
                    hint="the compiler reads settings without running your code",
                )
                ok = False
                del error
                continue
            if not valid(value):
                self.report("skill/invalid-setting", module, expr.pos, f"{key} must be {expected}, not {value!r}")
                ok = False
                continue
            values[key] = float(value) if key == "timeout" else value  # type: ignore[arg-type]
        voice = self.voice(draft)
        if voice is None:
            ok = False
        if not ok:
            return None
        return ToolSettings(
            timeout=values["timeout"],  # type: ignore[arg-type]
            retries=values["retries"],  # type: ignore[arg-type]
            strict=values["strict"],  # type: ignore[arg-type]
            needs_approval=values["needs_approval"],  # type: ignore[arg-type]
            required=values["required"],  # type: ignore[arg-type]
            metadata=values["metadata"],  # type: ignore[arg-type]
            voice=voice or (),
            has_condition=self.has_condition(draft),
        )

    def voice(self, draft: _Draft) -> tuple[str, ...] | None:
        found = self.setting(draft, "voice")
        if found is None:
            return ()
        module, expr = found
        flags: list[str] = []

        def collect(item: Expr) -> bool:
            if isinstance(item, BinOp) and item.op == "|":
                return collect(item.left) and collect(item.right)
            symbol = self.resolve_expr(module, item)
            if isinstance(symbol, ExternalSym) and symbol.qualname.startswith("skillc.ToolFlag."):
                flag = symbol.qualname.rsplit(".", 1)[1]
                if flag in ("NONE", "IGNORE_ON_ENTER", "DISALLOW_INTERRUPTION"):
                    if flag != "NONE":
                        flags.append(flag.lower())
                    return True
            return False

        if not collect(expr):
            self.report(
                "skill/invalid-setting", module, expr.pos,
                "voice must be ToolFlag members combined with |",
            )
            return None
        return tuple(sorted(set(flags)))

    def has_condition(self, draft: _Draft) -> bool:
        if draft.cls is not None:
            return self.class_method(draft.cls, "condition") is not None
        found = self.setting(draft, "condition")
        return found is not None and not (isinstance(found[1], Const) and found[1].value is None)

    # --- tools the agent never reaches ---------------------------------------------

    def report_unreachable(self) -> None:
        for module in sorted(self.modules):
            index = self.modules[module]
            for cls in index.classes:
                symbol = ClassSym(module, cls)
                if (module, cls.name) in self.registered or cls.attribute("name") is None:
                    continue
                if self.is_subclass(symbol, "skillc.Tool"):
                    self.unreachable(module, cls.name, cls.pos)
            for function in index.functions:
                if (module, function.name) not in self.registered and self.tool_decorator(module, function):
                    self.unreachable(module, function.name, function.pos)
            for binding in index.assignments:
                value = binding.value
                if (
                    (module, binding.name) not in self.registered
                    and isinstance(value, Call)
                    and self.is_sdk(module, value.func, "Tool")
                ):
                    self.unreachable(module, binding.name, binding.pos)

    def unreachable(self, module: str, name: str, pos: Pos) -> None:
        self.report(
            "skill/unreachable-tool", module, pos,
            f"tool {name} is defined but the agent never reaches it",
            hint="add it to a skill's tools=[...], or delete it",
        )


def _describe(expr: Expr | None) -> str:
    if expr is None:
        return "the entry"
    if isinstance(expr, Ref):
        return expr.dotted
    if isinstance(expr, Call):
        return f"{_describe(expr.func)}(...)"
    if isinstance(expr, Const):
        return repr(expr.value)
    return "this entry"


def link_project(
    modules: dict[str, ModuleIndex], config: Config, failed: frozenset[str] = frozenset()
) -> LinkResult:
    """Find the agent in the entry module and everything it reaches.

    ``failed`` names the modules that exist but could not be indexed: names taken
    from them are not reported again, their own diagnostics say what is wrong.
    """
    relative = config.entry.relative_to(config.src).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ProjectLinker(modules, config, ".".join(parts), failed).run()
