"""Find the import cycles that fail: ``from m import x`` while ``m`` is still initialising.

Python runs a module's top-level statements in order.  An import of a module that is
not loaded yet runs that module there and then, depth first; an import of a module
that is still running (it is further up the same chain of imports) hands back the
module as far as it got.  So ``from m import x`` fails with the circular-import
``ImportError`` exactly when ``m`` is stopped at the import that led here and binds
``x`` only further down.  Cycles of ``import m``, of ``from pkg import submodule``, of
names used only inside functions, or of imports placed below the definitions they need
are harmless, and are not reported.

Which module runs first decides which import fails, so ``find_import_cycles`` replays
the imports from each place the project is entered: the entry module (importing the
agent), each tool's module (what its bundle imports), each skill condition's module.

Only failures that are certain are reported.  The replay takes ``if``/``try`` blocks as
maybe running: their imports are not assumed to happen, but the modules they could load
are no longer assumed to be new, and a name they bind may be bound (so may any name of
a module with a star import or a ``__getattr__`` above that point).  It stops, reporting
nothing more for that order, at what it cannot follow: a call that may run project code
or import by name (``importlib.import_module``), a star import of a project module, a
module that is missing or does not parse.  The import reported then certainly fails,
unless something that an ``if`` block before it runs fails first (``if TYPE_CHECKING:``
never runs, so its imports are not assumed to).  What the index does not read at all
is outside what the replay sees: statements in ``for``/``while``/``match`` blocks,
``with`` items that suppress errors, names bound from elsewhere (``global`` in a
function called at import time, ``setattr`` on another module).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from .types import (
    BinOp,
    Call,
    ClassInfo,
    Const,
    Container,
    Expr,
    FunctionInfo,
    ImportBinding,
    ModuleIndex,
    Pos,
    Ref,
    Subscript,
)

__all__ = ["ImportCycle", "ImportGraph", "ImportStart", "find_import_cycles"]

#: A replay nested deeper than this many modules stops (Python's recursion limit is near).
_MAX_DEPTH = 120
#: A name called in an expression the index keeps only as text: ``f(x)``, ``a.b(x)``.
_CALLED = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\s*\(")

Bound = Literal["yes", "no", "maybe"]


class ImportGraph(Protocol):
    """What the replay needs to know about the project's modules (the linker knows it)."""

    @property
    def modules(self) -> Mapping[str, ModuleIndex]: ...

    @property
    def failed(self) -> frozenset[str]: ...

    def absolute(self, module: str, item: ImportBinding) -> str | None: ...

    def is_local(self, name: str) -> bool: ...

    def is_module(self, name: str) -> bool: ...

    def call_runs_project_code(self, module: str, call: Call) -> bool: ...

    def class_runs_project_code(self, module: str, cls: ClassInfo) -> bool: ...


@dataclass(frozen=True)
class ImportStart:
    """A module imported first, and how to say so: "when the entry module agent is imported"."""

    module: str
    label: str


@dataclass(frozen=True)
class ImportCycle:
    """An import that certainly fails; ``related`` names modules, not paths."""

    module: str
    pos: Pos
    message: str
    hint: str
    related: tuple[tuple[str, Pos, str], ...]


def find_import_cycles(graph: ImportGraph, starts: Sequence[ImportStart]) -> list[ImportCycle]:
    """The from-imports that fail when one of ``starts`` is imported first, each once."""
    analysis = _Analysis(graph)
    leading = analysis.modules_leading_to_cycles()
    if not leading:
        return []
    found: dict[tuple[str, int, int], ImportCycle] = {}
    replayed: set[str] = set()
    for start in starts:
        if start.module in replayed or start.module not in graph.modules:
            continue
        replayed.add(start.module)
        if not any(prefix in leading for prefix in _prefixes(start.module)):
            continue  # no cycle on the way: every import of it succeeds
        cycle = _Replay(analysis, start).run()
        if cycle is not None:
            found.setdefault((cycle.module, cycle.pos.line, cycle.pos.col), cycle)
    return list(found.values())


# --- What each module does when it runs ---------------------------------------------


@dataclass(frozen=True, slots=True)
class _Step:
    """A top-level statement that matters: an import, or code that may run project code."""

    pos: Pos
    certain: bool
    item: ImportBinding | None = None


@dataclass(frozen=True)
class _Facts:
    steps: tuple[_Step, ...]
    #: Each name the module binds: where, and whether that statement surely runs.
    bindings: Mapping[str, tuple[tuple[Pos, bool], ...]]
    stars: tuple[Pos, ...]
    #: The project modules its imports may load (parent packages included).
    edges: frozenset[str]
    #: Whether running it may run project code or load modules the edges do not show.
    opaque: bool


def _key(pos: Pos) -> tuple[int, int]:
    return (pos.line, pos.col)


def _prefixes(name: str) -> list[str]:
    """``a.b.c`` -> ``a``, ``a.b``, ``a.b.c``: what ``import a.b.c`` loads, in order."""
    parts = name.split(".")
    return [".".join(parts[:length]) for length in range(1, len(parts) + 1)]


class _Analysis:
    """The facts of each module, computed once, and the graph questions about them."""

    def __init__(self, graph: ImportGraph) -> None:
        self.graph = graph
        self._facts: dict[str, _Facts] = {}

    def facts(self, module: str) -> _Facts:
        cached = self._facts.get(module)
        if cached is None:
            cached = self._facts[module] = self._read(module, self.graph.modules[module])
        return cached

    def _read(self, module: str, index: ModuleIndex) -> _Facts:
        steps: list[_Step] = []
        bindings: dict[str, list[tuple[Pos, bool]]] = {}
        stars: list[Pos] = []
        edges: set[str] = set()
        opaque = False

        def bind(name: str, pos: Pos, branch: str | None) -> None:
            bindings.setdefault(name, []).append((pos, branch is None))

        def code(pos: Pos, branch: str | None, runs: bool) -> None:
            nonlocal opaque
            if runs:
                steps.append(_Step(pos, branch is None))
                opaque = True

        for item in index.imports:
            if item.star:
                stars.append(item.pos)
            else:
                bind(item.local, item.pos, item.branch)
            target = self.graph.absolute(module, item)
            if target is not None and not self.graph.is_local(target):
                continue  # another distribution's: it does not come back into the project
            steps.append(_Step(item.pos, item.branch is None, item))
            if target is None:
                continue
            edges.update(_prefixes(target))
            if item.star:
                opaque = True  # ``__all__`` may name submodules, which it then imports
            elif item.name is not None and self.graph.is_module(f"{target}.{item.name}"):
                edges.add(f"{target}.{item.name}")
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
        steps.sort(key=lambda step: _key(step.pos))
        return _Facts(
            steps=tuple(steps),
            bindings={name: tuple(found) for name, found in bindings.items()},
            stars=tuple(stars),
            edges=frozenset(edges),
            opaque=opaque,
        )

    # --- code that runs at import time --------------------------------------------

    def _runs(self, module: str, expr: Expr | None) -> bool:
        """Whether evaluating ``expr`` may run project code (or import by name)."""
        if expr is None or isinstance(expr, Const | Ref):
            return False
        if isinstance(expr, Call):
            return (
                self.graph.call_runs_project_code(module, expr)
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
            self.graph.call_runs_project_code(module, Call(Ref(name, expr.pos), (), (), expr.pos))
            for name in _CALLED.findall(expr.text)
        )

    def _decorators_run(self, module: str, decorators: Iterable[Expr]) -> bool:
        """Whether applying the decorators may run project code (``@d`` calls ``d``)."""
        return any(
            self._runs(module, Call(item, (), (), item.pos) if isinstance(item, Ref) else item)
            for item in decorators
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
            or self.graph.class_runs_project_code(module, cls)
        )

    # --- the graph ------------------------------------------------------------------

    def successors(self, module: str) -> Iterator[str]:
        return (name for name in self.facts(module).edges if name in self.graph.modules)

    def reach(self, seeds: Iterable[str], loaded: Mapping[str, bool]) -> tuple[set[str], bool]:
        """The project modules that loading ``seeds`` may run, skipping those ``loaded``;
        and whether any of them may run project code the edges do not show."""
        pending = [prefix for seed in seeds for prefix in _prefixes(seed)]
        reached: set[str] = set()
        anything = False
        while pending:
            name = pending.pop()
            if name in reached or name in loaded or not self.graph.is_local(name):
                continue
            reached.add(name)
            if name in self.graph.modules:
                facts = self.facts(name)
                anything = anything or facts.opaque
                pending.extend(facts.edges)
        return reached, anything

    def modules_leading_to_cycles(self) -> set[str]:
        """The modules on a cycle of the import graph, or importing one, directly or not."""
        return _leading_to_cycles(sorted(self.graph.modules), lambda name: list(self.successors(name)))


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


# --- One replay: the imports in the order Python runs them ----------------------------


class _Stop(Exception):
    """The replay reached what it cannot follow: nothing after it is certain."""


class _Failed(Exception):
    """The replay reached an import that certainly fails."""

    def __init__(self, cycle: ImportCycle) -> None:
        super().__init__(cycle.message)
        self.cycle = cycle


@dataclass
class _Frame:
    """A module that is running, and the import it is stopped at."""

    module: str
    paused: ImportBinding | None = None


class _Replay:
    """Python's import order from one start; see the module docstring."""

    def __init__(self, analysis: _Analysis, start: ImportStart) -> None:
        self.analysis = analysis
        self.graph = analysis.graph
        self.start = start
        #: Every module started so far: True once it has finished, False while it runs.
        self.loaded: dict[str, bool] = {}
        self.stack: list[_Frame] = []
        #: Modules a ``maybe`` step may have loaded already; "anything" when unknown code may run.
        self.maybe: set[str] = set()
        self.anything = False

    def run(self) -> ImportCycle | None:
        try:
            self.load(self.start.module)
        except _Stop:
            return None
        except _Failed as failure:
            return failure.cycle
        return None

    def load(self, name: str) -> None:
        """Import ``name`` as ``import name`` does: each parent package first."""
        if name in self.loaded:
            return  # and so are its parents
        for prefix in _prefixes(name):
            self._load_one(prefix)

    def _load_one(self, name: str) -> None:
        if name in self.loaded or not self.graph.is_local(name):
            return
        if name in self.graph.failed or not self.graph.is_module(name):
            raise _Stop  # missing or does not parse: its own diagnostic says so
        if self.anything or name in self.maybe or len(self.stack) >= _MAX_DEPTH:
            raise _Stop  # it may have run already, in an order the replay cannot know
        self.loaded[name] = False
        if name in self.graph.modules:  # a namespace package runs no code
            frame = _Frame(name)
            self.stack.append(frame)
            self._execute(frame)
            self.stack.pop()
        self.loaded[name] = True

    def _execute(self, frame: _Frame) -> None:
        for step in self.analysis.facts(frame.module).steps:
            if step.item is None:
                raise _Stop  # project code runs here, and may import anything
            if not step.certain:
                self._maybe_import(frame.module, step.item)
                continue
            frame.paused = step.item
            self._import(frame, step.item)
            frame.paused = None

    def _maybe_import(self, module: str, item: ImportBinding) -> None:
        """An import in an ``if``/``try`` block: what it would load may be loaded from now on."""
        target = self.graph.absolute(module, item)
        if target is None or not self.graph.is_local(target):
            return
        if item.star:
            self.anything = True
            return
        seeds = [target] if item.name is None else [target, f"{target}.{item.name}"]
        self._may_load(seeds)

    def _may_load(self, seeds: list[str]) -> None:
        reached, anything = self.analysis.reach(seeds, self.loaded)
        self.maybe |= reached
        self.anything = self.anything or anything

    def _import(self, frame: _Frame, item: ImportBinding) -> None:
        target = self.graph.absolute(frame.module, item)
        if target is None:
            raise _Stop  # above the import root: reported as an unresolved import
        if not self.graph.is_local(target):
            return
        self.load(target)
        if item.star:
            raise _Stop  # it binds names the index does not know
        if item.name is None:
            return  # ``import a.b`` binds a module, and modules exist as soon as they start
        bound = self._bound(target, item.name)
        submodule = f"{target}.{item.name}"
        if self.graph.is_module(submodule):
            # A package that lacks the name imports its submodule of that name instead.
            if bound == "no":
                self.load(submodule)
            elif bound == "maybe" and submodule not in self.loaded:
                self._may_load([submodule])
            return
        if bound != "no" or self.loaded[target]:
            return  # bound by now; or never bound, which unresolved-import reports
        if not self._bindings_after(target, frame, item):
            raise _Stop  # never bound: unresolved-import reports it
        raise _Failed(self._describe(frame, item, target))

    def _bindings_after(self, target: str, frame: _Frame, item: ImportBinding) -> list[Pos]:
        """Where ``target`` binds the name ``item`` imports, after the import it waits at.

        An import of a module's own name from itself is no binding of that name.
        """
        paused = self._frame(target).paused
        assert paused is not None and item.name is not None
        return [
            pos
            for pos, _ in self.analysis.facts(target).bindings.get(item.name, ())
            if _key(pos) >= _key(paused.pos) and not (target == frame.module and pos == item.pos)
        ]

    def _bound(self, module: str, name: str) -> Bound:
        """Whether ``module`` has bound ``name`` so far: surely, surely not, or maybe."""
        if module not in self.graph.modules:
            return "no"
        facts = self.analysis.facts(module)
        limit: tuple[int, int] | None = None
        if not self.loaded.get(module, False):
            paused = self._frame(module).paused
            assert paused is not None  # a running module waits at the import that led here
            limit = _key(paused.pos)

        def before(pos: Pos) -> bool:
            return limit is None or _key(pos) < limit

        earlier = [certain for pos, certain in facts.bindings.get(name, ()) if before(pos)]
        if any(earlier):
            return "yes"
        hooks = [pos for pos, _ in facts.bindings.get("__getattr__", ())]
        if earlier or any(before(pos) for pos in (*facts.stars, *hooks)):
            return "maybe"
        return "no"

    def _frame(self, module: str) -> _Frame:
        return next(frame for frame in reversed(self.stack) if frame.module == module)

    def _describe(self, frame: _Frame, item: ImportBinding, target: str) -> ImportCycle:
        name = item.name or ""
        first = self.stack.index(self._frame(target))
        chain = self.stack[first:]
        related: list[tuple[str, Pos, str]] = []
        for current, following in zip(chain, chain[1:]):
            assert current.paused is not None
            note = f"{current.module} imports {following.module} here"
            if current is chain[0]:
                note += f", before it binds {name!r}"
            related.append((current.module, current.paused.pos, note))
        later = self._bindings_after(target, frame, item)
        related.append((target, min(later, key=_key), f"{target} binds {name!r} here"))
        cycle = " -> ".join([*(member.module for member in chain), target])
        written = "." * item.level + item.module
        moved = f"the import of {chain[1].module} in {target}" if len(chain) > 1 else "this import"
        return ImportCycle(
            module=frame.module,
            pos=item.pos,
            message=(
                f"circular import: 'from {written} import {name}' fails {self.start.label}: "
                f"{target} is still initialising (cycle {cycle}) and binds {name!r} only further down"
            ),
            hint=(
                f"move {moved} below the definition of {name!r}, import the module instead of "
                f"the name (import {target}, then use {target}.{name} inside functions), or import "
                f"{name!r} inside the function that uses it"
            ),
            related=tuple(related),
        )
