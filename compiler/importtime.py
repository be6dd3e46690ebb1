"""What each project module does when Python imports it, read from its summary alone.

A module's top-level statements run in order; what matters for import cycles is where
it imports another project module, where it binds each name, and where it may run
project code (a call, a decorator, a class whose base hooks subclassing...), after which
anything may have been imported.  Imports under ``if TYPE_CHECKING:`` never run, and
those inside functions run only when they are called: neither is a step.  ``ImportTime`` computes these facts once per module,
and answers the graph questions the import-cycle replay (``cycles``) asks about them.

Calls of the SDK, of the standard library and of other distributions are taken not to
call back into the project, except those that import modules by name or run code given
as text (``importlib``, ``exec``...).  The index keeps no function bodies, so a call of a
project function may run anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from .index_types import (
    BinOp,
    Call,
    ClassInfo,
    Const,
    Container,
    Expr,
    FunctionInfo,
    ImportBinding,
    ModuleIndex,
    Ref,
    Subscript,
)
from .resolve import Linker
from .symbols import ClassSym, ExternalSym, ValueSym
from .types import Pos

__all__ = ["ImportTime", "ModuleFacts", "Step", "line_col", "prefixes"]

#: A name called in an expression the index keeps only as text: ``f(x)``, ``a.b(x)``.
_CALLED = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\s*\(")
#: Builtins that run code or bind names given as text (the linker lists no others).
_DYNAMIC_BUILTINS = frozenset({"exec", "eval", "__import__", "globals", "vars", "locals", "setattr", "delattr"})
#: What imports modules by name, or runs them: calls of these may load any project module.
_DYNAMIC_IMPORTS = ("importlib.", "runpy.", "pkgutil.", "builtins.exec", "builtins.eval", "builtins.__import__")
#: Methods that run when a class is instantiated (validators are found by name).
_CONSTRUCTION_HOOKS = frozenset({"__init__", "__new__", "__post_init__", "__attrs_post_init__", "model_post_init"})


@dataclass(frozen=True, slots=True)
class Step:
    """A top-level statement that matters: an import, or code that may run project code."""

    pos: Pos
    certain: bool
    item: ImportBinding | None = None


@dataclass(frozen=True)
class ModuleFacts:
    """What running one module does, in the order it does it."""

    steps: tuple[Step, ...]
    #: Each name the module binds: where, and whether that statement surely runs.
    bindings: Mapping[str, tuple[tuple[Pos, bool], ...]]
    stars: tuple[Pos, ...]
    #: The project modules its imports may load (parent packages included).
    edges: frozenset[str]
    #: Whether running it may run project code or load modules the edges do not show.
    opaque: bool


def line_col(pos: Pos) -> tuple[int, int]:
    """A position as the key that orders statements."""
    return (pos.line, pos.col)


def prefixes(name: str) -> list[str]:
    """``a.b.c`` -> ``a``, ``a.b``, ``a.b.c``: what ``import a.b.c`` loads, in order."""
    parts = name.split(".")
    return [".".join(parts[:length]) for length in range(1, len(parts) + 1)]


class ImportTime:
    """The facts of each module, computed once, and the graph questions about them."""

    def __init__(self, linker: Linker) -> None:
        self.linker = linker
        self._facts: dict[str, ModuleFacts] = {}
        self._edges: dict[str, frozenset[str]] = {}

    def facts(self, module: str) -> ModuleFacts:
        cached = self._facts.get(module)
        if cached is None:
            cached = self._facts[module] = self._read(module, self.linker.modules[module])
        return cached

    def edges(self, module: str) -> frozenset[str]:
        """The project modules the imports of ``module`` may load: ``ModuleFacts.edges``, read
        from the imports alone (the graph questions need no more, and most projects no more
        than the graph: without a cycle on it, no replay runs)."""
        cached = self._edges.get(module)
        if cached is None:
            cached = self._edges[module] = frozenset(
                edge
                for item in self.linker.modules[module].imports
                if not item.typing_only
                for edge in self._import_edges(module, item)
            )
        return cached

    def _import_edges(self, module: str, item: ImportBinding) -> list[str]:
        """The project modules one import may load (parent packages included)."""
        target = self.linker.absolute(module, item)
        if target is None or not self.linker.is_local(target):
            return []
        found = prefixes(target)
        if not item.star and item.name is not None and self.linker.is_module(f"{target}.{item.name}"):
            found.append(f"{target}.{item.name}")
        return found

    def _read(self, module: str, index: ModuleIndex) -> ModuleFacts:
        steps: list[Step] = []
        bindings: dict[str, list[tuple[Pos, bool]]] = {}
        stars: list[Pos] = []
        opaque = False

        def bind(name: str, pos: Pos, branch: str | None) -> None:
            bindings.setdefault(name, []).append((pos, branch is None))

        def code(pos: Pos, branch: str | None, runs: bool) -> None:
            nonlocal opaque
            if runs:
                steps.append(Step(pos, branch is None))
                opaque = True

        for item in index.imports:
            if item.typing_only:
                continue  # ``if TYPE_CHECKING:`` never runs
            if item.star:
                stars.append(item.pos)
            else:
                bind(item.local, item.pos, item.branch)
            target = self.linker.absolute(module, item)
            if target is not None and not self.linker.is_local(target):
                continue  # another distribution's: it does not come back into the project
            steps.append(Step(item.pos, item.branch is None, item))
            if target is not None and item.star:
                opaque = True  # ``__all__`` may name submodules, which it then imports
        for cls in index.classes:
            bind(cls.name, cls.pos, cls.branch)
            code(cls.pos, cls.branch, self._class_runs(module, cls))
        for function in index.functions:
            bind(function.name, function.pos, function.branch)
            code(function.pos, function.branch, self._function_runs(module, function))
        for value in index.assignments:
            if value.value is None and value.annotation is not None:
                continue  # ``x: int`` binds nothing
            bind(value.name, value.pos, value.branch)
            # Unpacking (``a, b = f()``) keeps no value: what it calls is unknown.
            unknown = value.value is None
            runs = unknown or self._runs(module, value.value) or self._runs(module, value.annotation)
            code(value.pos, value.branch, runs)
        for call in index.calls:
            code(call.pos, None, self._runs(module, call))
        steps.sort(key=lambda step: line_col(step.pos))
        return ModuleFacts(
            steps=tuple(steps),
            bindings={name: tuple(found) for name, found in bindings.items()},
            stars=tuple(stars),
            edges=self.edges(module),
            opaque=opaque,
        )

    # --- code that runs at import time --------------------------------------------

    def _runs(self, module: str, expr: Expr | None) -> bool:
        """Whether evaluating ``expr`` may run project code (or import by name)."""
        if expr is None or isinstance(expr, Const | Ref):
            return False
        if isinstance(expr, Call):
            return (
                self._call_runs(module, expr)
                or self._runs(module, expr.func)
                or any(self._runs(module, arg) for arg in expr.args)
                or any(self._runs(module, value) for _, value in expr.kwargs)
            )
        if isinstance(expr, Container):
            return any(self._runs(module, item) for item in (*expr.items, *expr.keys))
        if isinstance(expr, Subscript):
            return self._runs(module, expr.value) or any(self._runs(module, item) for item in expr.items)
        if isinstance(expr, BinOp):
            return self._runs(module, expr.left) or self._runs(module, expr.right)
        # Kept only as text (a comprehension, an f-string, ``a or b``...): read its calls from it.
        if expr.kind == "Lambda":
            return False
        if expr.text.endswith("..."):
            return True  # cut short: what the rest calls is unknown
        return any(
            self._call_runs(module, Call(Ref(name, expr.pos), (), (), expr.pos)) for name in _CALLED.findall(expr.text)
        )

    def _decorators_run(self, module: str, decorators: Iterable[Expr]) -> bool:
        """Whether applying the decorators may run project code (``@d`` calls ``d``)."""
        return any(
            self._runs(module, Call(item, (), (), item.pos) if isinstance(item, Ref) else item) for item in decorators
        )

    def _function_runs(self, module: str, function: FunctionInfo) -> bool:
        """Whether defining the function may run project code: decorators, defaults, annotations."""
        return (
            self._decorators_run(module, function.decorators)
            or self._runs(module, function.returns)
            or any(self._runs(module, p.default) or self._runs(module, p.annotation) for p in function.params)
        )

    def _class_runs(self, module: str, cls: ClassInfo) -> bool:
        """Whether defining the class may run project code: its body, hooks and decorators."""
        return (
            bool(cls.skipped)
            or self._decorators_run(module, cls.decorators)
            or any(self._runs(module, base) for base in cls.bases)
            or any(self._runs(module, value) for _, value in cls.keywords)
            or any(self._runs(module, item.value) or self._runs(module, item.annotation) for item in cls.attributes)
            or any(self._function_runs(module, method) for method in cls.methods)
            or self._subclassing_runs(module, cls)
        )

    def _call_runs(self, module: str, call: Call) -> bool:
        """Whether ``call``, made while ``module`` is imported, may run project code.

        Or import modules by name.  The index keeps no function bodies, so neither
        can be followed.
        """
        func = call.func
        if not isinstance(func, Ref):
            return True  # ``f()()``, ``handlers[0]()``: what is called is unknown
        head, *rest = func.dotted.split(".")
        with self.linker.quiet():
            owner = self.linker.resolve_name(module, head)
            symbol = self.linker.resolve_ref(module, func.dotted) if rest else owner
        if owner is None:
            return head in _DYNAMIC_BUILTINS  # another builtin, or undefined
        if isinstance(symbol, ExternalSym):
            return symbol.qualname.startswith(_DYNAMIC_IMPORTS)
        if isinstance(symbol, ClassSym):
            return self._instantiation_runs(symbol)
        if isinstance(owner, ValueSym) and rest:
            return not self._external_value(owner)  # a method of a module-level value
        return True  # a project function, a value called, or what cannot be resolved

    def _external_value(self, symbol: ValueSym) -> bool:
        """Whether a module-level value is a literal, or made by code outside the project."""
        value = symbol.binding.value
        if isinstance(value, Const | Container):
            return True
        if isinstance(value, Call) and isinstance(value.func, Ref):
            with self.linker.quiet():
                made_by = self.linker.resolve_ref(symbol.module, value.func.dotted)
            return isinstance(made_by, ExternalSym) and not made_by.qualname.startswith(_DYNAMIC_IMPORTS)
        return False

    def _instantiation_runs(self, cls: ClassSym) -> bool:
        """Whether ``cls()`` may run project code: a constructor, a validator, a metaclass."""
        with self.linker.quiet():
            for item in self.linker.mro(cls):
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
        symbol = self.linker.resolve_ref(module, target.dotted)
        return target.dotted.endswith("validator") or not isinstance(symbol, ExternalSym)

    def _subclassing_runs(self, module: str, cls: ClassInfo) -> bool:
        """Whether defining ``cls`` runs project code: a base's ``__init_subclass__``, a metaclass."""
        with self.linker.quiet():
            for item in self.linker.mro(ClassSym(module, cls)):
                if not isinstance(item, ClassSym):
                    continue
                if item.info is not cls and item.info.method("__init_subclass__") is not None:
                    return True
                for key, value in item.info.keywords:
                    if key == "metaclass" and not isinstance(self.linker.resolve_expr(item.module, value), ExternalSym):
                        return True
        return False

    # --- the graph ------------------------------------------------------------------

    def successors(self, module: str) -> Iterator[str]:
        return (name for name in self.edges(module) if name in self.linker.modules)

    def reach(self, seeds: Iterable[str], loaded: Mapping[str, bool]) -> tuple[set[str], bool]:
        """The project modules that loading ``seeds`` may run, skipping those ``loaded``;
        and whether any of them may run project code the edges do not show."""
        pending = [prefix for seed in seeds for prefix in prefixes(seed)]
        reached: set[str] = set()
        anything = False
        while pending:
            name = pending.pop()
            if name in reached or name in loaded or not self.linker.is_local(name):
                continue
            reached.add(name)
            if name in self.linker.modules:
                facts = self.facts(name)
                anything = anything or facts.opaque
                pending.extend(facts.edges)
        return reached, anything

    def modules_leading_to_cycles(self) -> set[str]:
        """The modules on a cycle of the import graph, or importing one, directly or not."""
        return _leading_to_cycles(sorted(self.linker.modules), lambda name: list(self.successors(name)))


def _leading_to_cycles(nodes: Iterable[str], successors: Callable[[str], list[str]]) -> set[str]:
    """The nodes from which a cycle can be reached (Tarjan's components, without recursion).

    Tarjan's algorithm completes a component only after every component it leads to,
    so whether one leads to a cycle is known from those when it completes.
    """
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    leading: set[str] = set()

    def visit(node: str) -> Iterator[str]:
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        return iter(successors(node))

    for root in nodes:
        if root in order:
            continue
        work = [(root, visit(root))]
        while work:
            node, pending = work[-1]
            for successor in pending:
                if successor not in order:
                    work.append((successor, visit(successor)))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], order[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == order[node]:
                    component: list[str] = []
                    while not component or component[-1] != node:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                    members = set(component)
                    if len(component) > 1 or any(
                        successor in leading or successor in members
                        for member in component
                        for successor in successors(member)
                    ):
                        leading.update(component)
    return leading
