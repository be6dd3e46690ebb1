"""Find the module-level names a module reads while it is imported, before it binds them.

Such a read raises ``NameError`` when the module is imported, so a tool whose bundle
holds the module cannot run.  ``find_early_uses`` walks the module's statements in the
order they run, with the names bound so far, and keeps each name that code run at
import reads while it is unbound and that is no builtin (``print`` read before a ``def
print`` below is the builtin): with the line of the later module-level statement that
binds it, or none when no statement binds it (a misspelling, a missing import), then
with the bound or builtin name most like it.  ``_`` is never one of those: ``gettext.install()``
makes it a builtin of every module.

What runs at import: the module's statements, the blocks of its ``if``/``try``/``with``/
``for``/``while``/``match`` statements (a branch counts as run: an import that fails on
one platform fails where the tool is deployed), class bodies, and the decorators,
defaults, bases and keywords of functions and classes; annotations too, of parameters,
returns and annotated assignments, unless the module has ``from __future__ import
annotations`` or the Python running skillc defers them (3.14, PEP 649), or the
annotation is a string.  What does not run: function and lambda bodies, the elements
of a generator expression (only its first iterable runs at once), the bodies of ``if
TYPE_CHECKING:`` and ``if __name__ == "__main__":`` (a name only they bind stays unbound,
and its report says where it is bound), and a ``try`` body whose handlers may catch
``NameError`` (``try: unicode`` / ``except NameError:``).

A class body that reads a name it binds only further down (``first: Shrimp`` above
``class Shrimp`` in the same body) is reported too, unless the module had bound it by then.
A name bound in any branch counts as bound from there on, a loop's body sees all the
loop binds (a previous pass may have), and a name is never reported where something the
walk cannot follow may bind it: after a star import, when any function or class
declares it ``global``, or anywhere in a module that reaches its namespace another way
(``globals()``, ``vars()``, ``exec``, ``eval``, ``builtins``, ``sys.modules``, ``Enum._convert_``,
``@enum.global_enum``).  So each
name reported raises whenever the code that reads it runs; some that raise are not
reported.

The walk never recurses into expressions (an explicit stack) and never enters function
bodies; the one full walk of the tree, for ``global`` and the dynamic means above, runs
only for a module with something to report.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence

from .index_imports import is_main_guard, is_type_checking, may_catch
from .index_types import EarlyUse
from .types import Pos

__all__ = [
    "BUILTIN_NAMES",
    "DEFERRED_ANNOTATIONS",
    "MODULE_NAMES",
    "RUN_TIME_BUILTINS",
    "UNDER_MAIN_GUARD",
    "UNDER_TYPE_CHECKING",
    "find_early_uses",
    "has_future_annotations",
    "never_run_under",
    "stored_names",
    "unseen_bindings",
]

#: Bound in every module before its first statement runs.
MODULE_NAMES = frozenset(
    {
        "__name__",
        "__doc__",
        "__file__",
        "__spec__",
        "__loader__",
        "__package__",
        "__builtins__",
        "__path__",
        "__cached__",
        "__annotations__",
    }
)
#: Bound in every class body before its first statement runs.
_CLASS_NAMES = frozenset({"__module__", "__qualname__", "__firstlineno__"})
BUILTIN_NAMES = frozenset(dir(builtins))
#: Builtins that running code adds: ``gettext.install()`` binds ``_`` in every module.
RUN_TIME_BUILTINS = frozenset({"_"})
#: Names through which a module's namespace is reached without binding a name the walk sees
#: (``Enum._convert_(name, __name__, ...)`` and ``@enum.global_enum`` bind the members in the module).
_NAMESPACE_ACCESS = frozenset(
    {"globals", "exec", "eval", "builtins", "__builtins__", "__import__", "modules", "_convert_", "global_enum"}
)
#: Where ``EarlyUse.only_under`` says a name is bound.
UNDER_MAIN_GUARD, UNDER_TYPE_CHECKING = "main guard", "type checking"
#: Annotations are evaluated lazily from 3.14 on (PEP 649), as with the future import.
DEFERRED_ANNOTATIONS = sys.version_info >= (3, 14)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

#: A class body's namespace, or ``None`` at module level.
_Scope = set[str] | None


def find_early_uses(tree: ast.Module, position: Callable[[ast.AST], Pos]) -> tuple[EarlyUse, ...]:
    """The names ``tree`` reads at import before binding them, in order; see the module docstring.

    ``position`` places a node (``index`` counts columns in characters).
    """
    walk = _Walk(position, annotations_run=not (DEFERRED_ANNOTATIONS or has_future_annotations(tree)))
    walk.block(tree.body, None)
    reported = {use.pos for use in walk.found.values()}
    never = [
        (name, pos, annotation)
        for name, (pos, annotation) in walk.surely_read.items()
        if name not in walk.bound and name not in RUN_TIME_BUILTINS and pos not in reported
    ]
    if not walk.found and not never:
        return ()
    declared = unseen_bindings(tree)
    if declared is None:
        return ()
    known = sorted(walk.bound | BUILTIN_NAMES)
    unbound = (
        EarlyUse(name, pos, None, annotation, None, *walk.only_under[name])
        if name in walk.only_under
        else EarlyUse(
            name, pos, None, annotation, next(iter(difflib.get_close_matches(name, known, n=1, cutoff=0.8)), None)
        )
        for name, pos, annotation in never
    )
    return tuple(
        sorted(
            (use for use in (*walk.found.values(), *unbound) if use.name not in declared),
            key=lambda use: (use.pos.line, use.pos.col),
        )
    )


def never_run_under(test: ast.expr) -> str | None:
    """What an ``if`` whose body never runs on import tests (``UNDER_MAIN_GUARD`` or
    ``UNDER_TYPE_CHECKING``); ``None`` for any other test."""
    if is_type_checking(test):
        return UNDER_TYPE_CHECKING
    if is_main_guard(test):
        return UNDER_MAIN_GUARD
    return None


def has_future_annotations(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(alias.name == "annotations" for alias in node.names)
        for node in tree.body
    )


def unseen_bindings(tree: ast.Module) -> frozenset[str] | None:
    """The names some function or class declares ``global``; ``None`` when the module
    reaches its namespace in a way no walk can follow (``globals()``, ``exec``...)."""
    declared: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            declared.update(node.names)
        elif isinstance(node, ast.Name) and node.id in _NAMESPACE_ACCESS:
            return None
        elif isinstance(node, ast.Attribute) and node.attr in _NAMESPACE_ACCESS:
            return None
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("vars", "locals")
            and not node.args
            and not node.keywords
        ):
            return None
    return frozenset(declared)


class _Bind:
    """A name a walrus binds once its value has run: a marker on the expression stack."""

    __slots__ = ("name", "node")

    def __init__(self, name: str, node: ast.AST) -> None:
        self.name = name
        self.node = node


class _Walk:
    """One pass over the statements that run at import, in the order they run."""

    def __init__(self, position: Callable[[ast.AST], Pos], annotations_run: bool) -> None:
        self.position = position
        self.annotations_run = annotations_run
        #: The module-level names bound so far.
        self.bound: set[str] = set(MODULE_NAMES)
        #: Each name read while unbound, first read first: where, and whether in an annotation.
        self.unbound: dict[str, tuple[Pos, bool]] = {}
        #: The reads of ``unbound`` names that a later statement binds, by name and by where:
        #: the identity of the class body that binds it further down, or ``0`` for the module.
        self.found: dict[tuple[str, int], EarlyUse] = {}
        #: Set by a star import: any name may be bound from there on.
        self.opaque = False
        #: How many ``try`` bodies that may catch ``NameError`` the walk is in.
        self.guarded = 0
        #: Per class body being walked (by its scope's identity): the names it read while
        #: unbound, first read first; its own later binding of one is a report too.
        self.class_reads: dict[int, dict[str, tuple[Pos, bool]]] = {}
        #: How many blocks the walk is in that may not run (a branch, a loop's body, a handler).
        self.conditional = 0
        #: The names of ``unbound`` read where the read runs whenever the import gets there
        #: (no branch, loop body, handler, ``x if c else y`` or ``a or b`` around it), first read first.
        self.surely_read: dict[str, tuple[Pos, bool]] = {}
        #: The module-level names bound in a block the import never runs: where, and the line.
        self.only_under: dict[str, tuple[str, int]] = {}

    # --- names ------------------------------------------------------------------------

    def bind(self, name: str, node: ast.AST, scope: _Scope) -> None:
        if scope is not None:
            scope.add(name)
            read = self.class_reads.get(id(scope), {}).get(name)
            if read is not None and (name, id(scope)) not in self.found:  # ``a: Later`` above ``class Later``
                self.found[(name, id(scope))] = EarlyUse(name, read[0], self.position(node).line, read[1])
            return
        self.bound.add(name)
        first = self.unbound.get(name)
        if first is not None and (name, 0) not in self.found:
            pos, annotation = first
            self.found[(name, 0)] = EarlyUse(name, pos, self.position(node).line, annotation)

    def use(self, node: ast.Name, scope: _Scope, local: frozenset[str], annotation: bool, surely: bool) -> None:
        name = node.id
        if name in self.bound or name in local or (scope is not None and name in scope):
            return
        if self.opaque or self.guarded or name in BUILTIN_NAMES:
            return
        if scope is not None:
            self.class_reads.setdefault(id(scope), {}).setdefault(name, (self.position(node), annotation))
        if name not in self.unbound:
            self.unbound[name] = (self.position(node), annotation)
        if surely and not self.conditional and name not in self.surely_read:
            self.surely_read[name] = (self.position(node), annotation)

    def maybe(self, body: Iterable[ast.stmt], scope: _Scope) -> None:
        """Walk a block that may not run when the statement around it does."""
        self.conditional += 1
        self.block(body, scope)
        self.conditional -= 1

    # --- statements -------------------------------------------------------------------

    def block(self, body: Iterable[ast.stmt], scope: _Scope) -> None:
        for node in body:
            self.statement(node, scope)

    def statement(self, node: ast.stmt, scope: _Scope) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self.function(node, scope)
        elif isinstance(node, ast.ClassDef):
            self.class_(node, scope)
        elif isinstance(node, ast.Assign):
            self.expr(node.value, scope)
            for target in node.targets:
                self.target(target, scope)
        elif isinstance(node, ast.AugAssign):
            self.expr(node.target, scope, load_names=True)
            self.expr(node.value, scope)
            self.target(node.target, scope)
        elif isinstance(node, ast.AnnAssign):
            # CPython stores the value before it evaluates the annotation: ``X: X = 1`` runs.
            if node.value is not None:
                self.expr(node.value, scope)
                self.target(node.target, scope)
            elif not isinstance(node.target, ast.Name):
                self.expr(node.target, scope)
            if self.annotations_run:
                self.expr(node.annotation, scope, annotation=True)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            self.import_(node, scope)
        elif isinstance(node, ast.If):
            self.if_(node, scope)
        elif isinstance(node, ast.For | ast.AsyncFor):
            self.expr(node.iter, scope)
            self.bind_all([node], scope)  # what one pass binds, the next may read
            self.maybe(node.body, scope)
            self.maybe(node.orelse, scope)
        elif isinstance(node, ast.While):
            self.bind_all([node], scope)
            self.expr(node.test, scope)
            self.maybe(node.body, scope)
            self.maybe(node.orelse, scope)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                self.expr(item.context_expr, scope)
                if item.optional_vars is not None:
                    self.target(item.optional_vars, scope)
            self.block(node.body, scope)
        elif isinstance(node, ast.Try | ast.TryStar):
            self.try_(node, scope)
        elif isinstance(node, ast.Match):
            self.match(node, scope)
        elif isinstance(node, ast.Expr | ast.Raise | ast.Assert | ast.Return):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child, scope)
        elif not isinstance(node, ast.Pass | ast.Break | ast.Continue | ast.Global | ast.Nonlocal | ast.Delete):
            self.bind_all([node], scope)  # ``type X = ...`` (3.12) and what comes after: binds, reads lazily

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> None:
        """Decorators, then defaults, then annotations run; the body runs only when called."""
        self.type_params(node, scope)
        for decorator in node.decorator_list:
            self.expr(decorator, scope)
        arguments = node.args
        for default in (*arguments.defaults, *arguments.kw_defaults):
            if default is not None:
                self.expr(default, scope)
        if self.annotations_run:
            every = (*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs, arguments.kwarg)
            for argument in every:
                if argument is not None and argument.annotation is not None:
                    self.expr(argument.annotation, scope, annotation=True)
            if node.returns is not None:
                self.expr(node.returns, scope, annotation=True)
        self.bind(node.name, node, scope)

    def class_(self, node: ast.ClassDef, scope: _Scope) -> None:
        """Decorators, bases and keywords run in the enclosing scope, the body in its own;
        the name is bound once the body has run."""
        self.type_params(node, scope)
        for decorator in node.decorator_list:
            self.expr(decorator, scope)
        for base in node.bases:
            self.expr(base, scope)
        for keyword in node.keywords:
            self.expr(keyword.value, scope)
        body = set(_CLASS_NAMES)
        self.block(node.body, body)
        self.class_reads.pop(id(body), None)
        self.bind(node.name, node, scope)

    def type_params(self, node: ast.AST, scope: _Scope) -> None:
        """``def f[T]`` / ``class C[T]`` (3.12): count the parameters as bound (they are, where read)."""
        for param in getattr(node, "type_params", ()):
            (self.bound if scope is None else scope).add(param.name)

    def import_(self, node: ast.Import | ast.ImportFrom, scope: _Scope) -> None:
        for alias in node.names:
            if alias.name == "*":
                self.opaque = True
            elif alias.asname is not None:
                self.bind(alias.asname, node, scope)
            else:
                self.bind(alias.name.split(".")[0] if isinstance(node, ast.Import) else alias.name, node, scope)

    def if_(self, node: ast.If, scope: _Scope) -> None:
        """An ``if`` and its ``elif`` chain, as a loop: a generated chain may be thousands long."""
        current: ast.If | None = node
        first = True
        while current is not None:
            where = never_run_under(current.test)
            if where is not None:
                self.never_runs(current.body, scope, where)
            else:
                self.conditional += not first  # an elif's test runs only when those above are false
                self.expr(current.test, scope)
                self.conditional -= not first
                self.maybe(current.body, scope)
            first = False
            orelse = current.orelse
            if len(orelse) == 1 and isinstance(orelse[0], ast.If):
                current = orelse[0]
            else:
                self.maybe(orelse, scope)
                current = None

    def try_(self, node: ast.Try | ast.TryStar, scope: _Scope) -> None:
        guarded = may_catch(node.handlers, NameError)
        self.guarded += guarded
        self.block(node.body, scope)
        self.guarded -= guarded
        self.conditional += 1  # what runs only after an exception, or only without one
        for handler in node.handlers:
            if handler.type is not None:
                self.expr(handler.type, scope)
            if handler.name is not None:
                self.bind(handler.name, handler, scope)
            self.block(handler.body, scope)
        self.block(node.orelse, scope)
        self.conditional -= 1
        self.block(node.finalbody, scope)

    def match(self, node: ast.Match, scope: _Scope) -> None:
        self.expr(node.subject, scope)
        self.conditional += 1  # a case runs when those above did not match
        self._cases(node, scope)
        self.conditional -= 1

    def _cases(self, node: ast.Match, scope: _Scope) -> None:
        for case in node.cases:
            for pattern in ast.walk(case.pattern):
                if isinstance(pattern, ast.MatchValue):
                    self.expr(pattern.value, scope)
                elif isinstance(pattern, ast.MatchClass):
                    self.expr(pattern.cls, scope)
                elif isinstance(pattern, ast.MatchMapping):
                    for key in pattern.keys:
                        self.expr(key, scope)
                    if pattern.rest is not None:
                        self.bind(pattern.rest, pattern, scope)
                elif isinstance(pattern, ast.MatchStar | ast.MatchAs) and pattern.name is not None:
                    self.bind(pattern.name, pattern, scope)
            if case.guard is not None:
                self.expr(case.guard, scope)
            self.block(case.body, scope)

    def bind_all(self, body: Sequence[ast.stmt], scope: _Scope) -> None:
        """Bind every name ``body`` may bind in this scope, reading nothing."""
        for name, node in stored_names(body):
            self.bind(name, node, scope)

    def never_runs(self, body: Sequence[ast.stmt], scope: _Scope, where: str) -> None:
        """A block the import never runs (``where``: under the main guard or ``TYPE_CHECKING``):
        at module level, what it binds stays unbound, and is remembered as bound only there;
        in a class body, it counts as bound (the class's names are the class's business)."""
        for name, node in stored_names(body):
            if scope is None:
                self.only_under.setdefault(name, (where, getattr(node, "lineno", 0)))
            else:
                self.bind(name, node, scope)

    def target(self, node: ast.expr, scope: _Scope) -> None:
        """Bind the names an assignment target binds, after reading what it reads (``a.b``, ``d[k]``)."""
        stack = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, ast.Name):
                self.bind(item.id, item, scope)
            elif isinstance(item, ast.Tuple | ast.List):
                stack.extend(reversed(item.elts))
            elif isinstance(item, ast.Starred):
                stack.append(item.value)
            else:
                self.expr(item, scope)

    # --- expressions ------------------------------------------------------------------

    def expr(self, node: ast.expr, scope: _Scope, annotation: bool = False, load_names: bool = False) -> None:
        """Read what evaluating ``node`` reads, left to right; ``load_names``: a name
        stored to (an augmented assignment's target) is read first."""
        #: (node, comprehension variables in scope, whether the class body's names are visible,
        #: whether it runs whenever the expression does)
        stack: list[tuple[ast.AST | _Bind, frozenset[str], bool, bool]] = [(node, frozenset(), True, True)]
        while stack:
            item, local, in_class, surely = stack.pop()
            if isinstance(item, ast.Constant):
                continue  # the commonest leaf: it reads nothing
            if isinstance(item, _Bind):
                self.bind(item.name, item.node, scope)
            elif isinstance(item, ast.Name):
                if isinstance(item.ctx, ast.Load) or load_names:
                    self.use(item, scope if in_class else None, local, annotation, surely)
            elif isinstance(item, ast.Lambda):
                for default in reversed((*item.args.defaults, *item.args.kw_defaults)):
                    if default is not None:
                        stack.append((default, local, in_class, surely))
            elif isinstance(item, ast.NamedExpr):
                stack.append((_Bind(item.target.id, item.target), local, in_class, surely))
                stack.append((item.value, local, in_class, surely))
            elif isinstance(item, _COMPREHENSIONS):
                stack.extend(_comprehension(item, local, in_class, surely))
            else:
                children = [
                    (child, local, in_class, surely and index in _always_run(item))
                    for index, child in enumerate(ast.iter_child_nodes(item))
                ]
                stack.extend(reversed(children))


def _always_run(node: ast.AST) -> range:
    """The indexes, among ``node``'s children, of those evaluated whenever ``node`` is: the test of
    ``x if c else y`` (its first child here is the test), the first operand of ``a or b``, the two
    first of a chained comparison; every child of anything else."""
    if isinstance(node, ast.IfExp | ast.BoolOp):
        return range(1) if isinstance(node, ast.IfExp) else range(2)  # BoolOp: its operator, then the first value
    if isinstance(node, ast.Compare):
        return range(len(node.ops) + 2)  # the left operand, the operators, the first comparator
    return _EVERY


_EVERY = range(sys.maxsize)


def _comprehension(
    node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp,
    local: frozenset[str],
    in_class: bool,
    surely: bool,
) -> list[tuple[ast.AST, frozenset[str], bool, bool]]:
    """What a comprehension reads, to be pushed on the stack: its first iterable in the
    enclosing scope, and (not for a generator expression, whose rest runs when it is
    consumed) the rest in its own, where its variables are bound and a class body's are not."""
    first = node.generators[0].iter
    if isinstance(node, ast.GeneratorExp):
        return [(first, local, in_class, surely)]
    inner = local | {
        item.id for generator in node.generators for item in ast.walk(generator.target) if isinstance(item, ast.Name)
    }
    parts: list[ast.AST] = []
    for index, generator in enumerate(node.generators):
        if index:
            parts.append(generator.iter)
        parts.extend(generator.ifs)
    parts.extend((node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,))
    # The rest runs only for the items of an iterable that may be empty.
    return [*((part, inner, False, False) for part in reversed(parts)), (first, local, in_class, surely)]


def stored_names(body: Sequence[ast.stmt]) -> Iterator[tuple[str, ast.AST]]:
    """Every name ``body`` may bind in its own scope (more, never fewer: a comprehension's
    variables too), each with the node that binds it; function and class bodies are not entered."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name, node
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node.id, node
        elif isinstance(node, ast.alias) and node.name != "*":
            yield (node.asname or node.name).split(".")[0], node
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name is not None:
            yield node.name, node
        elif isinstance(node, ast.MatchMapping) and node.rest is not None:
            yield node.rest, node
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
