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
What each module does when it runs (its imports, bindings and calls, in order) is read
by ``importtime``.

Only failures that are certain are reported.  The replay takes ``if``/``try`` blocks as
maybe running: their imports are not assumed to happen, but the modules they could load
are no longer assumed to be new, and a name they bind may be bound (so may any name of
a module with a star import or a ``__getattr__`` above that point).  It stops, reporting
nothing more for that order, at what it cannot follow: a call that may run project code
or import by name (``importlib.import_module``), a star import of a project module, a
module that is missing or does not parse.  The import reported then certainly fails,
unless something that an ``if`` block before it runs fails first (``if TYPE_CHECKING:``
never runs, so its imports are left out).  What the index does not read at all
is outside what the replay sees: statements in ``for``/``while``/``match`` blocks,
``with`` items that suppress errors, names bound from elsewhere (``global`` in a
function called at import time, ``setattr`` on another module).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .importtime import ImportTime, line_col, prefixes
from .index_types import ImportBinding
from .resolve import Linker
from .types import Pos

__all__ = ["ImportCycle", "ImportStart", "find_import_cycles"]

#: A replay nested deeper than this many modules stops (Python's recursion limit is near).
_MAX_DEPTH = 120

Bound = Literal["yes", "no", "maybe"]


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


def find_import_cycles(linker: Linker, starts: Sequence[ImportStart]) -> list[ImportCycle]:
    """The from-imports that fail when one of ``starts`` is imported first, each once."""
    analysis = ImportTime(linker)
    leading = analysis.modules_leading_to_cycles()
    if not leading:
        return []
    found: dict[tuple[str, int, int], ImportCycle] = {}
    replayed: set[str] = set()
    for start in starts:
        if start.module in replayed or start.module not in linker.modules:
            continue
        replayed.add(start.module)
        if not any(prefix in leading for prefix in prefixes(start.module)):
            continue  # no cycle on the way: every import of it succeeds
        cycle = _Replay(analysis, start).run()
        if cycle is not None:
            found.setdefault((cycle.module, cycle.pos.line, cycle.pos.col), cycle)
    return list(found.values())


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

    def __init__(self, analysis: ImportTime, start: ImportStart) -> None:
        self.analysis = analysis
        self.linker = analysis.linker
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
        for prefix in prefixes(name):
            self._load_one(prefix)

    def _load_one(self, name: str) -> None:
        if name in self.loaded or not self.linker.is_local(name):
            return
        if name in self.linker.failed or not self.linker.is_module(name):
            raise _Stop  # missing or does not parse: its own diagnostic says so
        if self.anything or name in self.maybe or len(self.stack) >= _MAX_DEPTH:
            raise _Stop  # it may have run already, in an order the replay cannot know
        self.loaded[name] = False
        if name in self.linker.modules:  # a namespace package runs no code
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
        target = self.linker.absolute(module, item)
        if target is None or not self.linker.is_local(target):
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
        target = self.linker.absolute(frame.module, item)
        if target is None:
            raise _Stop  # above the import root: reported as an unresolved import
        if not self.linker.is_local(target):
            return
        self.load(target)
        if item.star:
            raise _Stop  # it binds names the index does not know
        if item.name is None:
            return  # ``import a.b`` binds a module, and modules exist as soon as they start
        bound = self._bound(target, item.name)
        submodule = f"{target}.{item.name}"
        if self.linker.is_module(submodule):
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
            if line_col(pos) >= line_col(paused.pos) and not (target == frame.module and pos == item.pos)
        ]

    def _bound(self, module: str, name: str) -> Bound:
        """Whether ``module`` has bound ``name`` so far: surely, surely not, or maybe."""
        if module not in self.linker.modules:
            return "no"
        facts = self.analysis.facts(module)
        limit: tuple[int, int] | None = None
        if not self.loaded.get(module, False):
            paused = self._frame(module).paused
            assert paused is not None  # a running module waits at the import that led here
            limit = line_col(paused.pos)

        def before(pos: Pos) -> bool:
            return limit is None or line_col(pos) < limit

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
        for current, following in itertools.pairwise(chain):
            assert current.paused is not None
            note = f"{current.module} imports {following.module} here"
            if current is chain[0]:
                note += f", before it binds {name!r}"
            related.append((current.module, current.paused.pos, note))
        later = self._bindings_after(target, frame, item)
        related.append((target, min(later, key=line_col), f"{target} binds {name!r} here"))
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
