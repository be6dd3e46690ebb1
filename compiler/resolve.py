"""Resolve names across the project's module summaries: what a name, an import or a class means.

Names are resolved from the import statements the indexer recorded: absolute, relative
and aliased imports, re-exports through ``__init__.py``, aliases by assignment, and
attribute chains through modules.  Class bases are followed through any number of
project modules; attributes resolve along the C3 method resolution order, subclass
first.  What resolving finds wrong (a name bound differently in two branches, a class
that is its own ancestor) is a ``Finding``; nothing here raises for bad user code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from .index_types import ClassInfo, Expr, FunctionInfo, ImportBinding, ModuleIndex, Ref, Subscript, ValueBinding
from .symbols import ClassSym, ExternalSym, FunctionSym, ModuleSym, Symbol, UnknownSym, ValueSym, canonical
from .types import Config, Finding, Pos

if TYPE_CHECKING:
    from .types import ToolInfo

__all__ = ["Linker"]

BUILTINS = frozenset(
    {
        "str",
        "int",
        "float",
        "bool",
        "bytes",
        "list",
        "dict",
        "set",
        "frozenset",
        "tuple",
        "object",
        "type",
        "complex",
        "print",
        "len",
        "range",
        "Exception",
        "ValueError",
        "property",
        "staticmethod",
        "classmethod",
        "super",
        "None",
        "isinstance",
        "getattr",
        "open",
    }
)
_MAX_DEPTH = 64
_T = TypeVar("_T")


# --- Symbols: what a name refers to ----------------------------------------------


@dataclass(frozen=True, slots=True)
class Binding:
    """One statement that binds a name at module level."""

    kind: str  # "import", "class", "function", "value"
    item: ImportBinding | ClassInfo | FunctionInfo | ValueBinding
    branch: str | None


class Linker:
    """Resolves each name to what Python would bind it to, or says it cannot know; never guesses.

    A name that is not defined resolves to ``None``, one whose meaning only running the code
    would tell to an ``UnknownSym``.  One instance per compile: bindings and MROs are computed
    once per module and class, and each problem resolving finds is reported once.
    """

    def __init__(
        self,
        modules: Mapping[str, ModuleIndex],
        config: Config,
        failed: frozenset[str] = frozenset(),
        paths: Mapping[str, str] | None = None,
    ) -> None:
        self.modules = modules
        #: Each module's ``ModuleIndex.path``, where it is known without loading the module.
        self._paths = paths or {}
        self.config = config
        #: Modules that exist but could not be indexed (their diagnostics say why).
        self.failed = failed
        self.findings: list[Finding] = []
        known = [*modules, *failed]
        self.roots = {name.split(".")[0] for name in known}
        self.packages = {".".join(name.split(".")[:i]) for name in known for i in range(1, name.count(".") + 1)}
        self._bindings: dict[str, dict[str, list[Binding]]] = {}
        self._mro: dict[tuple[str, str], list[ClassSym | ExternalSym]] = {}
        self._mro_active: set[tuple[str, str]] = set()
        self._by_base_name: dict[str | None, list[ClassSym]] | None = None
        self._reported: set[tuple[str, str, int, int, str]] = set()
        self._quiet = 0
        #: The class bodies names are being resolved in, innermost last (``class_scope``).
        self._scopes: list[tuple[ClassSym, Pos, bool]] = []
        #: ``closure.module_closure`` of each start module, made once per compile.
        self.closures: dict[str, object] = {}
        #: ``closure.closure_modules`` of each start module: they depend on the summaries
        #: alone, so a reused link brings them along (``link_cache``).
        self.closure_names: dict[str, tuple[str, ...]] = {}
        #: ``artifacts.tool_digest`` of each tool, with the very tool object it was made of.
        self.tool_digests: dict[tuple[str, str, str], tuple[ToolInfo, str]] = {}

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

    @contextmanager
    def class_scope(self, cls: ClassSym | None, at: Pos, *, deferred: bool = True) -> Iterator[None]:
        """Resolve names as the body of ``cls`` sees them at ``at`` while inside: a class defined
        in that body comes before the module's names (``shrimp: list[Shrimp]`` beside ``class
        Shrimp``), as it does when Python runs the body and when pydantic resolves its
        annotations.  ``None`` is the module level.

        Python reads the body in order: a class defined below ``at`` is not there yet, and the
        name means the module's.  pydantic reads a quoted annotation once the body has run,
        and the class is there; ``deferred`` says the name may be such an annotation, which
        cannot be told apart here, so a name that could mean either is an ``UnknownSym``
        (unless the module defers every annotation, ``from __future__ import annotations``).
        """
        if cls is None:
            yield
            return
        self._scopes.append((cls, at, deferred))
        try:
            yield
        finally:
            self._scopes.pop()

    def _in_scope(self, module: str, name: str) -> Symbol | None:
        """``name`` as the class body being resolved in sees it, if it is a class of that body."""
        scope, at, deferred = self._scopes[-1]
        nested = scope.info.nested_class(name) if scope.module == module else None
        if nested is None:
            return None
        if (nested.pos.line, nested.pos.col) < (at.line, at.col) or (deferred and self._defers_annotations(module)):
            return ClassSym(module, nested, scope.qualname)
        if self.binding(module, name, warn=False) is None:
            # Read as written it raises NameError (skill/used-before-definition); quoted, it is this class.
            return ClassSym(module, nested, scope.qualname) if deferred else None
        if not deferred:
            return None  # the module's
        return UnknownSym(
            f"class {scope.qualname}.{name} is defined below, so Python reads {name} here as the module's, "
            f"and pydantic reads a quoted {name!r} as the class's: define it above, or give it another name"
        )

    def _defers_annotations(self, module: str) -> bool:
        return any(item.module == "__future__" and item.name == "annotations" for item in self.modules[module].imports)

    def resolve_base(self, cls: ClassSym, base: Expr) -> Symbol | None:
        """What a base class expression of ``cls`` names, read where Python reads it: in the body
        that defines ``cls`` when that is another class's, where only what is above it is bound."""
        with self.class_scope(self.enclosing(cls), cls.info.pos, deferred=False):
            return self.resolve_expr(cls.module, base)

    def enclosing(self, cls: ClassSym) -> ClassSym | None:
        """The class in whose body ``cls`` is defined (where its bases and decorators are read), if any."""
        outer = self.resolve_ref(cls.module, cls.outer) if cls.outer else None
        return outer if isinstance(outer, ClassSym) else None

    def report(
        self,
        code: str,
        module: str,
        pos: Pos,
        message: str,
        hint: str | None = None,
        related: tuple[tuple[str, Pos, str], ...] = (),
    ) -> None:
        """Add a finding at ``pos`` of ``module``, unless the same one is already there."""
        if self._quiet:
            return
        path = self.path_of(module)
        key = (code, path, pos.line, pos.col, repr(pos.path) + message)
        if key in self._reported:
            return
        self._reported.add(key)
        self.findings.append(Finding(code, message, path, pos, hint, related))

    def adopt(self, findings: Iterable[Finding]) -> None:
        """Hold ``findings`` as reported already, as the linker that reported them did."""
        for finding in findings:
            pos = finding.pos
            self._reported.add((finding.code, finding.path, pos.line, pos.col, repr(pos.path) + finding.message))
            self.findings.append(finding)

    def path_of(self, module: str) -> str:
        known = self._paths.get(module)
        if known is not None:
            return known
        index = self.modules.get(module)
        return index.path if index is not None else module

    # --- modules and bindings -------------------------------------------------------

    def is_module(self, name: str) -> bool:
        return name in self.modules or name in self.packages or name in self.failed

    def is_local(self, name: str) -> bool:
        return name.split(".")[0] in self.roots

    def bindings(self, module: str) -> dict[str, list[Binding]]:
        found = self._bindings.get(module)
        if found is not None:
            return found
        index = self.modules[module]
        items: list[tuple[Pos, Binding, str]] = []
        for item in index.imports:
            if not item.star:
                items.append((item.pos, Binding("import", item, item.branch), item.local))
        for cls in index.classes:
            items.append((cls.pos, Binding("class", cls, cls.branch), cls.name))
        for function in index.functions:
            items.append((function.pos, Binding("function", function, function.branch), function.name))
        for value in index.assignments:
            items.append((value.pos, Binding("value", value, value.branch), value.name))
        items.sort(key=lambda entry: (entry[0].line, entry[0].col))
        found = {}
        for _, binding, name in items:
            found.setdefault(name, []).append(binding)
        self._bindings[module] = found
        return found

    def imported(self, module: str, name: str) -> tuple[str, str | None] | None:
        """What an absolute import binds ``name`` to in ``module``: ``(module, None)`` for a module
        (``import os``, ``import os as system``; ``import os.path`` binds ``os``), ``(module, attribute)``
        for ``from module import attribute``; ``None`` when no such import binds it."""
        binding = self.binding(module, name, warn=False)
        item = binding.item if binding is not None else None
        if not isinstance(item, ImportBinding) or item.level != 0 or item.star:
            return None
        if item.name is not None:
            return item.module, item.name
        top = item.module.split(".")[0]
        return (top if item.local == top else item.module), None

    def binding(self, module: str, name: str, *, warn: bool = True) -> Binding | None:
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
        """What an import statement of ``module`` binds; ``None`` if it binds nothing."""
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
        """What ``name`` means at the top level of ``module``; ``None`` if it is not defined."""
        if depth > _MAX_DEPTH:
            return UnknownSym(f"{name!r} is imported in a cycle")
        if module not in self.modules:
            return None
        if self._scopes and depth == 0:
            scoped = self._in_scope(module, name)
            if scoped is not None:
                return scoped
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
        """What a dotted name (``models.Input``) means in ``module``."""
        head, *rest = dotted.split(".")
        symbol = self.resolve_name(module, head, depth)
        for attribute in rest:
            if symbol is None:
                return None
            symbol = self.member(symbol, attribute, depth)
        return symbol

    def member(self, symbol: Symbol, attribute: str, depth: int = 0) -> Symbol | None:
        """What ``attribute`` of ``symbol`` means (a module's name, a class attribute...)."""
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
            for item in self.mro(symbol):  # a class defined in the body of one along the MRO
                if not isinstance(item, ClassSym):
                    continue
                nested = item.info.nested_class(attribute)
                if nested is not None:
                    return ClassSym(item.module, nested, item.qualname)
                if item.info.attribute(attribute) is not None or item.info.method(attribute) is not None:
                    break
            found = self.class_attribute(symbol, attribute)
            return ValueSym(found[0].module, found[1]) if found else None
        return UnknownSym(f"attribute {attribute!r} of a value")

    def resolve_expr(self, module: str, expr: Expr | None) -> Symbol | None:
        """What an expression names, if it is a name or a dotted name."""
        if isinstance(expr, Ref):
            return self.resolve_ref(module, expr.dotted)
        return None

    def external_name(self, module: str, expr: Expr | None) -> str | None:
        """The qualified name of what ``expr`` names outside the project (``typing.Optional``)."""
        symbol = self.resolve_expr(module, expr)
        return symbol.qualname if isinstance(symbol, ExternalSym) else None

    def is_sdk(self, module: str, expr: Expr | None, name: str) -> bool:
        """Whether ``expr`` names ``skillc.<name>``, wherever in skillc it is imported from."""
        return self.external_name(module, expr) == f"skillc.{name}"

    def constant(self, module: str, dotted: str) -> Symbol | None:
        """Resolve a name to a module-level binding, without following value aliases
        (``A = B`` stays ``A``) and without reporting a conditional binding of it."""
        head, *rest = dotted.split(".")
        found = self.binding(module, head, warn=False)
        if found is not None and found.kind == "value" and not rest:
            assert isinstance(found.item, ValueBinding)
            return ValueSym(module, found.item)
        return self.resolve_ref(module, dotted)

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
                symbol = self.resolve_base(cls, base)
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
        """Whether the external class ``qualname`` is among the ancestors of ``cls``."""
        return any(isinstance(item, ExternalSym) and item.qualname == qualname for item in self.mro(cls))

    def possible_subclasses(self, cls: ClassSym) -> list[ClassSym]:
        """Every project class (nested ones included) that may derive from ``cls``: whose bases name
        it (by its last dotted part), or name such a class, or cannot be named (``make_base()``).

        Judged by the names written, resolving nothing (no MRO is made, nothing reported): it
        holds every class that derives from ``cls``, and maybe more.
        """
        if self._by_base_name is None:
            by_name: dict[str | None, list[ClassSym]] = {}
            for module in self.modules.values():
                stack = [ClassSym(module.name, info) for info in module.classes]
                while stack:
                    derived = stack.pop()
                    stack.extend(ClassSym(module.name, inner, derived.qualname) for inner in derived.info.classes)
                    for base in derived.info.bases:
                        named = base.value if isinstance(base, Subscript) else base
                        last = named.dotted.rsplit(".", 1)[-1] if isinstance(named, Ref) else None
                        by_name.setdefault(last, []).append(derived)
            self._by_base_name = by_name
        found = list(self._by_base_name.get(None, []))  # a base no name says: any class may be it
        names, seen = [cls.info.name], {cls.key}
        while names:
            for derived in self._by_base_name.get(names.pop(), []):
                if derived.key not in seen:
                    seen.add(derived.key)
                    found.append(derived)
                    names.append(derived.info.name)
        return [derived for derived in found if derived.key != cls.key]

    def class_attribute(self, cls: ClassSym, name: str) -> tuple[ClassSym, ValueBinding] | None:
        """The class-level binding of ``name`` along the MRO, and the class that makes it."""
        return self._along_mro(cls, lambda info: info.attribute(name))

    def class_method(self, cls: ClassSym, name: str) -> tuple[ClassSym, FunctionInfo] | None:
        """The method ``name`` along the MRO, and the class that defines it."""
        return self._along_mro(cls, lambda info: info.method(name))

    def _along_mro(self, cls: ClassSym, find: Callable[[ClassInfo], _T | None]) -> tuple[ClassSym, _T] | None:
        for item in self.mro(cls):
            if isinstance(item, ClassSym):
                found = find(item.info)
                if found is not None:
                    return item, found
        return None


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
