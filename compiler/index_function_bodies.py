"""Read function bodies: the names they read that nothing binds where they run, and the
attributes they read of their parameters.

A function's body runs when it is called, long after its module was imported: a name
it reads that is neither its own (a parameter, an assignment, an import in it), nor an
enclosing function's, nor bound by a statement the import runs, nor a builtin, raises
``NameError`` at that read whenever a call gets there.  The commonest is a missing
import (``json.dumps`` in an ``execute`` whose module never imports ``json``); then a
name the module binds only where the import never goes (under ``if __name__ ==
"__main__":`` or ``if TYPE_CHECKING:``), and a method reading a name of its class's body
(which methods see only through ``self`` or the class).  Those are ``late_uses``.

``read_function_bodies`` walks each function-like body (functions, methods, lambdas, and the
classes and comprehensions inside them) once, with Python's own scoping: every name a
scope binds anywhere is its own; a name declared ``global`` is the module's, one declared
``nonlocal`` an enclosing function's; a class body's names are not seen by the functions
inside it.  What a body never evaluates is left out: annotations of its local variables,
and the bodies of ``if TYPE_CHECKING:`` and of ``if False:``.  Code run at import (module-level statements,
class bodies, decorators, defaults) is ``index_early_names``'s.

A name counts as the module's when any statement the import runs binds it, in any
branch.  Some names are never reported: the builtins of Windows and of Python 2
(``WindowsError``, ``unicode``...), which code reads in branches for those; a name read in
the body of a ``try`` that catches ``NameError`` by name (``try: get_ipython`` / ``except
NameError:``), anywhere in the module, since the code asks whether it exists (a bare
``except`` or ``except Exception`` only hides the error); a name some function declares
``global`` (calling it may bind the name); and every name of a module that binds names
the walk cannot see: with a star import, or reaching its namespace another way
(``globals()``, ``exec``, ``sys.modules``, ``@enum.global_enum``...: ``unseen_bindings``).
So each name reported raises whenever the read runs; some that would raise are not reported.

The same walk keeps, for each ``def`` (``parameter_reads``), the attributes its own body
reads of each parameter (``input.order_id``), once each at the first read: the linker
checks those of a tool's ``execute`` and ``needs_approval`` against its input model and
``ToolContext`` (``tool_code_checks``).  A parameter is left out
where the body could make the read work another way: it binds the name again, asks
about the object (``hasattr``, ``getattr``, ``isinstance``, ``type``, ``vars``...), or
sets that attribute; and so is a read inside a ``try`` that may catch ``AttributeError``,
and a dunder.

And it keeps the calls a body makes as statements of their own, dropping their value
(``unawaited_calls``): of a name that finds the module's binding, when the module defines
it as a coroutine function or imports it by name; and of a method through ``self`` (the
first parameter of a method of a module-level class, never bound again), in the method
or a function inside it.  With them, the module's own coroutine functions
(``coroutine_functions``: ``async def`` functions without decorators that do not yield,
bound by nothing else).  The linker reports the calls that make a coroutine nothing
awaits (``unawaited_calls_check``).
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from .index_early_names import (
    BUILTIN_NAMES,
    DEFERRED_ANNOTATIONS,
    MODULE_NAMES,
    RUN_TIME_BUILTINS,
    has_future_annotations,
    never_run_under,
    stored_names,
    unseen_bindings,
)
from .index_imports import may_catch
from .index_store_uses import data_chain, mentions_collection, single_assignment, store_receiver
from .index_types import LateUse, ParameterRead, StoreUse, UnawaitedCall
from .types import Pos

__all__ = ["FunctionBodies", "read_function_bodies"]

#: Bound in every function inside a class body that reads it (the cell ``super()`` uses).
_CLASS_CELL = "__class__"
#: Builtins of Windows and of Python 2, which code for those reads in branches this Python never takes.
_OTHER_BUILTINS = frozenset(
    {"WindowsError", "unicode", "basestring", "long", "xrange", "raw_input", "unichr", "execfile", "cmp"}
)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Builtins whose call on an object asks what it is or has, or reaches its attributes by name.
_INSPECTING = frozenset({"hasattr", "getattr", "setattr", "delattr", "isinstance", "type", "vars", "dir", "issubclass"})
#: The nodes ``_Walk.body`` looks at: those that bind, open a scope, or hold code that never runs.
_SPECIAL = frozenset(
    {
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.Lambda,
        ast.ClassDef,
        *_COMPREHENSIONS,
        ast.NamedExpr,
        ast.AnnAssign,
        ast.Global,
        ast.Nonlocal,
        ast.Import,
        ast.ImportFrom,
        ast.If,
        ast.Try,
        ast.TryStar,
        ast.ExceptHandler,
        ast.MatchAs,
        ast.MatchStar,
        ast.MatchMapping,
        ast.Attribute,
        ast.Call,
        ast.Expr,
        ast.Return,
        ast.Yield,
        ast.YieldFrom,
    }
)
#: The statements that hold blocks of statements (functions and classes aside).
_COMPOUND = frozenset(
    {ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.Match}
)


class _Scope:
    """What one function-like scope binds and reads, and the scopes inside it."""

    __slots__ = (
        "attribute_reads",
        "attribute_stores",
        "chain_reads",
        "children",
        "declared_global",
        "declared_nonlocal",
        "discarded",
        "guarded_lines",
        "home",
        "inspected",
        "is_async",
        "is_class",
        "name",
        "node",
        "owner",
        "params",
        "reads",
        "rebound",
        "returned",
        "self_name",
        "stores",
        "yields",
    )

    def __init__(self, name: str, is_class: bool, home: _Scope | None) -> None:
        #: The qualified name a message shows.
        self.name = name
        self.is_class = is_class
        #: Where a walrus in this scope binds: the function around a comprehension.
        self.home: _Scope = home if home is not None else self
        self.stores: set[str] = set()
        self.declared_global: set[str] = set()
        self.declared_nonlocal: set[str] = set()
        #: Each name read where the read runs, with its node, in the order the walk met them.
        self.reads: list[tuple[str, ast.Name]] = []
        self.children: list[_Scope] = []
        #: A ``def``'s parameters, and those of them its body binds again.
        self.params: tuple[str, ...] = ()
        self.rebound: set[str] = set()
        #: ``name.attribute`` read (with the node) and set; the names passed to an ``_INSPECTING`` builtin;
        #: the line spans of ``try`` bodies that may catch AttributeError.
        self.attribute_reads: list[tuple[str, str, ast.Attribute]] = []
        self.attribute_stores: set[tuple[str, str]] = set()
        self.inspected: set[str] = set()
        self.guarded_lines: list[tuple[int, int]] = []
        #: The calls made as statements of their own (their value dropped), and those an
        #: ``async def`` returns, where they run.
        self.discarded: list[ast.Call] = []
        self.returned: list[ast.Call] = []
        #: The attributes read of a ``P.data`` chain (``ctx.data["notes"].create``), where they run.
        self.chain_reads: list[ast.Attribute] = []
        #: An ``async def``'s scope; one whose own body yields (a generator's).
        self.is_async = False
        self.yields = False
        #: A method's class (its qualified name) and the parameter the instance is bound to.
        self.owner: str | None = None
        self.self_name: str | None = None
        #: A ``def``'s node (its bindings are looked at again for a dropped data store call).
        self.node: ast.FunctionDef | ast.AsyncFunctionDef | None = None


class FunctionBodies(NamedTuple):
    """What ``read_function_bodies`` found in one module."""

    late_uses: tuple[LateUse, ...]
    parameter_reads: tuple[ParameterRead, ...]
    unawaited_calls: tuple[UnawaitedCall, ...] = ()
    coroutine_functions: tuple[str, ...] = ()
    store_uses: tuple[StoreUse, ...] = ()
    dynamic_instances: tuple[str, ...] = ()


def read_function_bodies(tree: ast.Module, source: bytes, position: Callable[[ast.AST], Pos]) -> FunctionBodies:
    """The late uses and parameter reads of ``tree``'s function bodies; see the module docstring.

    ``position`` places a node; ``source`` is the module's text (import-time code is
    searched for lambdas only when it says ``lambda`` somewhere).
    """
    annotations_run = not (DEFERRED_ANNOTATIONS or has_future_annotations(tree))
    # Only a module that says .data or Collection somewhere may read the data store.
    store_reads = b".data" in source or b"Collection" in source
    walk = _Walk(annotations_run, lambdas=b"lambda" in source, store_reads=store_reads)
    roots = walk.module(tree.body)
    parameter_reads = tuple(_parameter_reads(roots, position))
    if walk.star_import or not roots:
        return FunctionBodies((), parameter_reads)
    found = [call for root in roots for call in _scope_discarded(root, frozenset(), walk.bound, position)]
    discarded, coroutines = _unawaited_calls(tree, walk, found)
    store_uses = tuple(_store_uses(roots, walk.bound, position)) if walk.store_reads else ()
    late_uses = _late_uses(tree, walk, roots, position)
    dynamic = tuple(sorted({scope.owner for scope in roots if scope.owner is not None and _reaches_by_name(scope)}))
    return FunctionBodies(late_uses, parameter_reads, discarded, coroutines, store_uses, dynamic)


def _unawaited_calls(
    tree: ast.Module, walk: _Walk, found: list[UnawaitedCall]
) -> tuple[tuple[UnawaitedCall, ...], tuple[str, ...]]:
    """The calls the scopes make as statements of their own, of a name the module binds or of
    a method through ``self``; and the module's functions that surely make a coroutine.

    A name the module binds in ways no walk follows (a ``global`` declaration, ``globals()``,
    ``exec``...) is neither: what it stands for when the call runs is not known.
    """
    plain = [name for name in walk.coroutine_defs if walk.bound_once(name)]
    # A name called is looked up further only if it may be a coroutine function: one of the
    # module's, or one it imports by name from another module.
    callees = {*plain, *walk.imported_names()} if any(call.owner is None for call in found) else set()
    calls = [call for call in found if call.owner is not None or call.callee in callees]
    if not plain and all(call.owner is not None for call in calls):
        return tuple(calls), ()  # a method's binding is its class's: the linker looks it up
    declared = unseen_bindings(tree)
    if declared is None:
        return tuple(call for call in calls if call.owner is not None), ()
    calls = [call for call in calls if call.owner is not None or call.callee not in declared]
    return tuple(calls), tuple(sorted(name for name in plain if name not in declared))


def _scope_discarded(
    root: _Scope, outer: frozenset[str], module_names: set[str], position: Callable[[ast.AST], Pos]
) -> Iterator[UnawaitedCall]:
    """The discarded calls in ``root`` and the scopes inside it whose callee the linker can
    look up: a name that finds the module's binding (as ``_global_reads`` decides), or
    ``self.method`` in a method, or in a function inside it, where ``self`` is never bound again."""
    stack: list[tuple[_Scope, frozenset[str], tuple[str, str] | None]] = [(root, outer, None)]
    while stack:
        scope, visible, instance = stack.pop()
        if not (scope.discarded or scope.returned or scope.children):
            continue  # the commonest: nothing to look at here, nor further down
        if scope.self_name is not None and scope.owner is not None:
            instance = None if _binds_again(scope, scope.self_name) else (scope.self_name, scope.owner)
        elif instance is not None and (instance[0] in scope.stores or instance[0] in scope.declared_global):
            instance = None  # a name of its own
        declared = scope.declared_global
        own = (scope.stores - declared) | scope.declared_nonlocal
        calls = [(call, False) for call in scope.discarded] + [(call, True) for call in scope.returned]
        for call, returned in calls:
            callee = call.func
            if isinstance(callee, ast.Name):
                if _finds_module_binding(callee.id, scope, visible, module_names):
                    yield UnawaitedCall(callee.id, None, scope.name, scope.is_async, position(call), returned)
            elif (
                instance is not None
                and isinstance(callee, ast.Attribute)
                and isinstance(callee.value, ast.Name)
                and callee.value.id == instance[0]
                and not callee.attr.startswith("__")
            ):
                yield UnawaitedCall(callee.attr, instance[1], scope.name, scope.is_async, position(call), returned)
        inner = visible if scope.is_class else (visible | own) - declared
        stack.extend((child, inner, instance) for child in reversed(scope.children))


def _finds_module_binding(name: str, scope: _Scope, visible: frozenset[str], module_names: set[str]) -> bool:
    """Whether ``name`` read in ``scope`` finds the module's binding of it (as ``_global_reads`` decides)."""
    declared = scope.declared_global
    if name in declared:
        return name in module_names
    own = scope.stores | scope.declared_nonlocal
    return name in module_names and name not in own and name not in visible


def _store_uses(roots: list[_Scope], module_names: set[str], position: Callable[[ast.AST], Pos]) -> Iterator[StoreUse]:
    """What the scopes read of what may be the data store or a collection (``index_store_uses``):
    the first read of each attribute of each receiver in a function, and every dropped call."""
    stack: list[tuple[_Scope, frozenset[str]]] = [(root, frozenset()) for root in reversed(roots)]
    while stack:
        scope, visible = stack.pop()
        declared = scope.declared_global
        own = (scope.stores - declared) | scope.declared_nonlocal
        inner = visible if scope.is_class else (visible | own) - declared
        stack.extend((child, inner) for child in reversed(scope.children))
        if scope.node is not None and (scope.chain_reads or scope.attribute_reads):
            yield from _scope_store_uses(scope, scope.node, visible, module_names, position)


def _scope_store_uses(
    scope: _Scope,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    visible: frozenset[str],
    module_names: set[str],
    position: Callable[[ast.AST], Pos],
) -> Iterator[StoreUse]:
    """``_store_uses`` of one function's own body."""
    params = [name for name in scope.params if name not in scope.rebound]
    annotated = {item.arg: item.annotation for item in _arguments(node.args)}
    collection_params = {name for name in params if mentions_collection(annotated.get(name))}
    assignments: dict[str, ast.expr | None] = {}

    def assigned(name: str) -> ast.expr | None:
        if name not in assignments:
            assignments[name] = None if _binds_again(scope, name) else single_assignment(node, name)
        return assignments[name]

    def module_function(name: str) -> bool:
        return _finds_module_binding(name, scope, visible, module_names)

    dropped = {id(call.func) for call in scope.discarded}
    reads = [*scope.chain_reads, *(read for _, _, read in scope.attribute_reads)]
    seen: set[tuple[str, str]] = set()
    for read in sorted(reads, key=lambda item: (item.lineno, item.col_offset)):
        receiver, attribute = read.value, read.attr
        if attribute.startswith("__") or (isinstance(receiver, ast.Name) and receiver.id not in scope.stores):
            continue  # a dunder, or a name the function does not bind
        found = store_receiver(receiver, params, collection_params, assigned, module_function)
        if found is None:
            continue
        source, name, awaited = found
        shown = ast.unparse(receiver)
        is_dropped = id(read) in dropped
        if not is_dropped and (shown, attribute) in seen:
            continue
        seen.add((shown, attribute))
        yield StoreUse(attribute, shown, scope.name, scope.is_async, position(read), source, name, awaited, is_dropped)


def _arguments(arguments: ast.arguments) -> list[ast.arg]:
    every = (*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs, arguments.kwarg)
    return [argument for argument in every if argument is not None]


def _reaches_by_name(method: _Scope) -> bool:
    """Whether a method (or a function inside it) reaches its instance's attributes by name:
    passes ``self`` to ``setattr``, ``vars``... (``_INSPECTING``), or reads ``self.__dict__``."""
    name = method.self_name
    if name is None:
        return False
    stack = [method]
    while stack:
        scope = stack.pop()
        if name in scope.inspected:  # self.__dict__ counts as vars(self)
            return True
        stack.extend(scope.children)
    return False


def _binds_again(method: _Scope, name: str) -> bool:
    """Whether a method's body binds its parameter ``name`` again, or a function inside it does (``nonlocal``)."""
    if name in method.rebound:
        return True
    stack = list(method.children)
    while stack:
        scope = stack.pop()
        if name in scope.declared_nonlocal:
            return True
        stack.extend(scope.children)
    return False


def _late_uses(
    tree: ast.Module, walk: _Walk, roots: list[_Scope], position: Callable[[ast.AST], Pos]
) -> tuple[LateUse, ...]:
    """Each name the scopes read that nothing binds where they run, once, at its first read."""
    known_names = walk.bound | walk.probed | BUILTIN_NAMES | RUN_TIME_BUILTINS | MODULE_NAMES | _OTHER_BUILTINS
    first: dict[str, tuple[ast.Name, _Scope, frozenset[str]]] = {}
    for root in roots:
        for name, node, scope, visible in _global_reads(root, frozenset()):
            if name in known_names:
                continue
            earlier = first.get(name)
            if earlier is None or (node.lineno, node.col_offset) < (earlier[0].lineno, earlier[0].col_offset):
                first[name] = (node, scope, visible)
    if not first:
        return ()
    bindings = _ModuleBindings(tree.body)  # all the module binds, and where: only now that a name is left
    first = {name: read for name, read in first.items() if name not in bindings.runtime}
    if not first:
        return ()
    declared = unseen_bindings(tree)
    if declared is None:
        return ()
    uses = []
    for name, (node, scope, visible) in first.items():
        if name in declared:
            continue
        bound_in, bound_line = bindings.elsewhere.get(name, (None, None))
        similar = None
        if bound_in is None:  # a misspelling: of a name the read could have found
            known = sorted(bindings.runtime | BUILTIN_NAMES | visible | scope.stores)
            similar = next(iter(difflib.get_close_matches(name, known, n=1, cutoff=0.8)), None)
        uses.append(LateUse(name, position(node), scope.name, bound_in, bound_line, similar))
    return tuple(sorted(uses, key=lambda use: (use.pos.line, use.pos.col)))


def _parameter_reads(roots: list[_Scope], position: Callable[[ast.AST], Pos]) -> Iterator[ParameterRead]:
    """The attributes each ``def``'s own body reads of its parameters, once each, at the first read."""
    stack = list(reversed(roots))
    while stack:
        scope = stack.pop()
        stack.extend(reversed(scope.children))
        if not scope.params or not scope.attribute_reads:
            continue
        plain = set(scope.params) - scope.rebound - scope.inspected
        seen: set[tuple[str, str]] = set()
        for name, attribute, node in scope.attribute_reads:
            key = (name, attribute)
            if name not in plain or key in seen or key in scope.attribute_stores or attribute.startswith("__"):
                continue
            if any(start <= node.lineno <= end for start, end in scope.guarded_lines):
                continue
            seen.add(key)
            yield ParameterRead(scope.name, name, attribute, position(node))


def _global_reads(root: _Scope, outer: frozenset[str]) -> Iterator[tuple[str, ast.Name, _Scope, frozenset[str]]]:
    """Each read in ``root`` and the scopes inside it that finds its name among the
    module's globals: not bound by the scope itself nor by an enclosing function
    (``outer``); with its scope, and the names its enclosing functions bind.
    A class body's own names count as bound for the reads in the body itself (it runs in
    order, and a read above the binding falls back to the globals, which only makes a
    report less likely), never for the functions inside it."""
    stack: list[tuple[_Scope, frozenset[str]]] = [(root, outer)]
    while stack:
        scope, visible = stack.pop()
        declared = scope.declared_global
        own = (scope.stores - declared) | scope.declared_nonlocal
        for name, node in scope.reads:
            if name in declared or (name not in own and name not in visible and name != _CLASS_CELL):
                yield name, node, scope, visible
        inner = visible if scope.is_class else (visible | own) - declared
        stack.extend((child, inner) for child in reversed(scope.children))


class _ModuleBindings:
    """The names a module's import binds, and those it binds only where its functions cannot read them."""

    def __init__(self, body: Sequence[ast.stmt]) -> None:
        #: Bound by a statement the import runs (in any branch).
        self.runtime: set[str] = set()
        #: Bound only under a main guard, under ``if TYPE_CHECKING:`` or in a class body:
        #: where (``LateUse.bound_in``), and the line.
        self.elsewhere: dict[str, tuple[str, int]] = {}
        guarded: list[tuple[str, Sequence[ast.stmt]]] = []
        classes: list[ast.ClassDef] = []
        stack: list[ast.stmt] = list(reversed(body))
        while stack:
            node = stack.pop()
            if isinstance(node, ast.If):
                where = never_run_under(node.test)
                if where is not None:
                    guarded.append((where, node.body))
                    stack.extend(reversed(node.orelse))
                else:
                    stack.extend(reversed([*node.body, *node.orelse]))
                continue
            if isinstance(node, ast.ClassDef):
                classes.append(node)
            self.runtime.update(name for name, _ in stored_names([node]))
        for where, block in guarded:
            self._elsewhere(where, block)
        for node in classes:
            self._elsewhere(node.name, node.body)

    def _elsewhere(self, where: str, block: Sequence[ast.stmt]) -> None:
        for name, node in stored_names(block):
            if name not in self.runtime and name not in self.elsewhere:
                self.elsewhere[name] = (where, getattr(node, "lineno", 0))


class _Walk:
    """The function-like scopes of one module, each with what it binds and reads."""

    def __init__(self, annotations_run: bool, lambdas: bool, store_reads: bool = False) -> None:
        self.annotations_run = annotations_run
        #: Whether to keep the attributes read of ``P.data`` chains (``_Scope.chain_reads``).
        self.store_reads = store_reads
        #: Whether import-time code may hold lambdas, whose bodies are function bodies too.
        self.lambdas = lambdas
        #: A star import binds names no walk sees.
        self.star_import = False
        #: Names the module's statements bind (``_bind``): never more than the import binds;
        #: and those statements.
        self.bound: set[str] = set()
        self.statements: list[ast.stmt] = []
        #: The module-level ``async def`` functions without decorators whose bodies do not yield.
        self.coroutine_defs: list[str] = []
        #: The names read in the body of a ``try`` that catches ``NameError`` by name: code that
        #: asks whether they exist, and may then read them anywhere.
        self.probed: set[str] = set()

    # --- code run at import: find the functions -------------------------------------------

    def module(self, body: Sequence[ast.stmt]) -> list[_Scope]:
        """The scopes of the functions and lambdas that import-time code defines (their bodies run
        later); and, in ``bound``, the names the module's own statements plainly bind."""
        roots: list[_Scope] = []
        stack: list[tuple[ast.stmt, str]] = [(node, "") for node in reversed(body)]
        while stack:
            node, prefix = stack.pop()
            kind = type(node)
            if not prefix:
                self._bind(node)
            if isinstance(node, _FUNCTIONS):
                scope = self.function(node, prefix + node.name, None, prefix[:-1] or None)
                roots.append(scope)
                if not prefix and scope.is_async and not scope.yields and not node.decorator_list:
                    self.coroutine_defs.append(node.name)
                if self.lambdas:
                    self._lambdas_at_import(self._def_time(node), prefix, roots)
            elif isinstance(node, ast.ClassDef):
                if self.lambdas:
                    self._lambdas_at_import([*node.decorator_list, *node.bases, *node.keywords], prefix, roots)
                stack.extend((item, f"{prefix}{node.name}.") for item in reversed(node.body))
            elif kind in _COMPOUND:
                if isinstance(node, ast.If) and (never_run_under(node.test) is not None or _never_true(node.test)):
                    stack.extend((item, prefix) for item in reversed(node.orelse))  # the body never runs on import
                    continue
                if isinstance(node, ast.Try | ast.TryStar) and _catches_name_error(node.handlers):
                    self.probed.update(_read_names(node.body))
                blocks = [
                    item
                    for field in ("body", "handlers", "orelse", "finalbody", "cases")
                    for item in _block(node, field)
                ]
                stack.extend((item, prefix) for item in reversed(blocks))
                if self.lambdas:
                    self._lambdas_at_import(_own_expressions(node), prefix, roots)
            else:
                if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
                    self.star_import = True
                if self.lambdas:
                    self._lambdas_at_import(_own_expressions(node), prefix, roots)
        return roots

    def _bind(self, node: ast.stmt) -> None:
        """Add to ``bound`` what a module-level statement binds by itself, reading no expression:
        a quick part of what ``_ModuleBindings`` finds (a walrus or a comprehension is left to it).
        (Written out: it runs for every statement of every module.)"""
        self.statements.append(node)
        if isinstance(node, ast.Import | ast.ImportFrom):
            self.bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            self.bound.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                self.bound.update(_target_names(target))
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
            self.bound.update(_target_names(node.target))
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None:
                    self.bound.update(_target_names(item.optional_vars))
        elif isinstance(node, ast.Try | ast.TryStar):
            self.bound.update(handler.name for handler in node.handlers if handler.name is not None)

    def imported_names(self) -> set[str]:
        """The names the module-level ``from ... import`` statements ``_bind`` saw bind."""
        return {
            alias.asname or alias.name
            for node in self.statements
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }

    def bound_once(self, name: str) -> bool:
        """Whether exactly one of the statements ``_bind`` saw binds ``name``."""
        return sum(name in _statement_names(node) for node in self.statements) == 1

    def _lambdas_at_import(self, nodes: Sequence[ast.AST], prefix: str, roots: list[_Scope]) -> None:
        """The lambdas in expressions that run at import; those inside a comprehension see its variables."""
        stack: list[tuple[ast.AST, _Scope | None]] = [(node, None) for node in nodes]
        while stack:
            node, around = stack.pop()
            if isinstance(node, ast.Lambda):
                scope = self.lambda_(node, prefix, around)
                if around is None:
                    roots.append(scope)
                stack.extend((default, around) for default in _defaults(node.args))
            elif isinstance(node, _COMPREHENSIONS):
                comprehension = _Scope(prefix + "<comprehension>", False, None)
                for generator in node.generators:
                    comprehension.stores.update(_target_names(generator.target))
                if around is None:
                    roots.append(comprehension)  # reads nothing itself: only for the lambdas in it
                else:
                    around.children.append(comprehension)
                stack.extend((child, comprehension) for child in ast.iter_child_nodes(node))
            elif not isinstance(node, ast.stmt):
                stack.extend((child, around) for child in ast.iter_child_nodes(node))

    # --- function bodies --------------------------------------------------------------

    def function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, name: str, around: _Scope | None, owner: str | None = None
    ) -> _Scope:
        """The scope of a function's body: its parameters, then every statement of it.

        ``owner`` is the qualified name of the class whose body holds the ``def`` (a method
        of a module-level class): an instance method's first parameter is its ``self``.
        """
        scope = _Scope(name, False, None)
        if around is not None:
            around.children.append(scope)
        scope.params = tuple(_parameters(node.args))
        scope.node = node
        scope.is_async = isinstance(node, ast.AsyncFunctionDef)
        positional = [*node.args.posonlyargs, *node.args.args]
        if owner is not None and positional and not _binds_no_instance(node.decorator_list):
            scope.owner, scope.self_name = owner, positional[0].arg
        self.body(node.body, scope)
        scope.rebound = scope.stores.intersection(scope.params)
        scope.stores.update(scope.params)
        scope.stores.update(param.name for param in getattr(node, "type_params", ()))
        return scope

    def lambda_(self, node: ast.Lambda, prefix: str, around: _Scope | None) -> _Scope:
        scope = _Scope(prefix + "<lambda>", False, None)
        if around is not None:
            around.children.append(scope)
        scope.stores.update(_parameters(node.args))
        self.body([node.body], scope)
        return scope

    def body(self, nodes: Sequence[ast.AST], scope: _Scope) -> None:
        """Record what ``nodes`` bind and read in ``scope``, and the scopes inside them."""
        #: (node, scope, whether its reads count: not under ``if TYPE_CHECKING:``, nor asking about a name)
        stack: list[tuple[ast.AST, _Scope, bool]] = [(node, scope, True) for node in reversed(nodes)]
        while stack:
            node, current, runs = stack.pop()
            kind = type(node)
            if isinstance(node, ast.Name):
                if type(node.ctx) is ast.Load:
                    if runs:
                        current.reads.append((node.id, node))
                else:
                    current.stores.add(node.id)
            elif kind not in _SPECIAL:  # the commonest: an expression or statement that binds nothing itself
                if kind is not ast.Constant:
                    stack.extend((child, current, runs) for child in reversed(list(ast.iter_child_nodes(node))))
            elif isinstance(node, ast.Attribute):
                if isinstance(node.value, ast.Name):
                    if type(node.ctx) is ast.Load:
                        current.attribute_reads.append((node.value.id, node.attr, node))
                        if node.attr == "__dict__":  # its attributes reached by name, as vars() does
                            current.inspected.add(node.value.id)
                    else:
                        current.attribute_stores.add((node.value.id, node.attr))
                elif self.store_reads and runs and type(node.ctx) is ast.Load and data_chain(node.value) is not None:
                    current.chain_reads.append(node)
                stack.append((node.value, current, runs))
            elif isinstance(node, ast.Call):
                function, arguments = node.func, node.args
                if isinstance(function, ast.Name) and function.id in _INSPECTING and arguments:
                    if isinstance(arguments[0], ast.Name):
                        current.inspected.add(arguments[0].id)
                stack.extend((child, current, runs) for child in reversed(list(ast.iter_child_nodes(node))))
            elif isinstance(node, ast.Expr):  # after the commonest two: a statement, met less often
                value = node.value
                if runs and type(value) is ast.Call:
                    current.discarded.append(value)
                stack.append((value, current, runs))
            elif isinstance(node, ast.Return):
                if node.value is not None:
                    if runs and current.is_async and isinstance(node.value, ast.Call):
                        current.returned.append(node.value)
                    stack.append((node.value, current, runs))
            elif isinstance(node, ast.Yield | ast.YieldFrom):
                current.home.yields = True
                if node.value is not None:
                    stack.append((node.value, current, runs))
            elif isinstance(node, _FUNCTIONS):
                current.stores.add(node.name)
                stack.extend((part, current, runs) for part in reversed(self._def_time(node)))
                self.function(node, f"{current.name}.{node.name}", current)
            elif isinstance(node, ast.Lambda):
                stack.extend((default, current, runs) for default in _defaults(node.args))
                self.lambda_(node, f"{current.name}.", current)
            elif isinstance(node, ast.ClassDef):
                current.stores.add(node.name)
                heads = [*node.decorator_list, *node.bases, *node.keywords]
                stack.extend((part, current, runs) for part in reversed(heads))
                inner = _Scope(f"{current.name}.{node.name}", True, None)
                current.children.append(inner)
                stack.extend((item, inner, runs) for item in reversed(node.body))
            elif isinstance(node, _COMPREHENSIONS):
                inner = _Scope(current.name, False, current.home)
                current.children.append(inner)
                first, *rest = node.generators
                stack.append((first.iter, current, runs))  # the first iterable runs in the enclosing scope
                parts: list[ast.AST] = [first.target, *first.ifs]
                for generator in rest:
                    parts.extend((generator.iter, generator.target, *generator.ifs))
                parts.extend((node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,))
                stack.extend((part, inner, runs) for part in reversed(parts))
            elif isinstance(node, ast.NamedExpr):
                current.home.stores.add(node.target.id)
                stack.append((node.value, current, runs))
            elif isinstance(node, ast.AnnAssign):
                # A function's local annotations are never evaluated; a class body's are, unless deferred.
                parts = [node.target] if node.value is None else [node.value, node.target]
                if current.is_class and self.annotations_run:
                    parts.append(node.annotation)
                stack.extend((part, current, runs) for part in reversed(parts))
            elif isinstance(node, ast.Global):
                current.declared_global.update(node.names)
            elif isinstance(node, ast.Nonlocal):
                current.declared_nonlocal.update(node.names)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                for alias in node.names:
                    current.stores.add((alias.asname or alias.name).split(".")[0])
            elif isinstance(node, ast.If) and (never_run_under(node.test) is not None or _never_true(node.test)):
                stack.extend((item, current, runs) for item in reversed(node.orelse))
                stack.extend((item, current, False) for item in reversed(node.body))  # binds, never runs
            elif isinstance(node, ast.Try | ast.TryStar):
                if node.body and may_catch(node.handlers, AttributeError):
                    current.guarded_lines.append((node.body[0].lineno, node.body[-1].end_lineno or node.lineno))
                rest_of_try = [*node.handlers, *node.orelse, *node.finalbody]
                stack.extend((item, current, runs) for item in reversed(rest_of_try))
                if _catches_name_error(node.handlers):  # ``try: get_ipython`` / ``except NameError:``
                    self.probed.update(_read_names(node.body))
                    stack.extend((item, current, False) for item in reversed(node.body))
                else:
                    stack.extend((item, current, runs) for item in reversed(node.body))
            elif isinstance(node, ast.ExceptHandler):
                if node.name is not None:
                    current.stores.add(node.name)
                parts = [*([] if node.type is None else [node.type]), *node.body]
                stack.extend((part, current, runs) for part in reversed(parts))
            elif isinstance(node, ast.MatchAs | ast.MatchStar | ast.MatchMapping):
                bound = node.rest if isinstance(node, ast.MatchMapping) else node.name
                if bound is not None:
                    current.stores.add(bound)
                stack.extend((child, current, runs) for child in reversed(list(ast.iter_child_nodes(node))))
            else:
                stack.extend((child, current, runs) for child in reversed(list(ast.iter_child_nodes(node))))

    def _def_time(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
        """What a ``def`` evaluates where it stands: decorators, defaults, and annotations where they run."""
        parts: list[ast.AST] = [*node.decorator_list, *_defaults(node.args)]
        if self.annotations_run:
            arguments = node.args
            every = (*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs, arguments.kwarg)
            parts.extend(argument.annotation for argument in every if argument is not None and argument.annotation)
            if node.returns is not None:
                parts.append(node.returns)
        return parts


def _never_true(test: ast.expr) -> bool:
    """Whether an ``if``'s test is a constant that is false (``if False:``, ``if 0:``): its body never runs."""
    return isinstance(test, ast.Constant) and not test.value


def _binds_no_instance(decorators: Sequence[ast.expr]) -> bool:
    """Whether a method's decorators make it a ``staticmethod`` or ``classmethod``: its first parameter is no instance."""
    return any(isinstance(item, ast.Name) and item.id in ("staticmethod", "classmethod") for item in decorators)


def _statement_names(node: ast.stmt) -> Iterator[str]:
    """The names a module-level statement binds by itself, reading no expression."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield from ((alias.asname or alias.name).split(".")[0] for alias in node.names)
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _target_names(target)
    elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
        yield from _target_names(node.target)
    elif isinstance(node, ast.With | ast.AsyncWith):
        for item in node.items:
            if item.optional_vars is not None:
                yield from _target_names(item.optional_vars)
    elif isinstance(node, ast.Try | ast.TryStar):
        yield from (handler.name for handler in node.handlers if handler.name is not None)


def _catches_name_error(handlers: Sequence[ast.ExceptHandler]) -> bool:
    """Whether a handler names ``NameError`` (alone or in a tuple): a bare ``except`` or
    ``except Exception`` hides a missing name rather than asking about it."""
    for handler in handlers:
        caught = handler.type
        names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
        if any(isinstance(name, ast.Name) and name.id == "NameError" for name in names):
            return True
    return False


def _read_names(body: Sequence[ast.stmt]) -> Iterator[str]:
    return (node.id for item in body for node in ast.walk(item) if isinstance(node, ast.Name))


def _block(node: ast.stmt, field: str) -> list[ast.stmt]:
    """A statement's nested statements in ``field`` (a ``try``'s handlers and a ``match``'s cases: their bodies)."""
    items = getattr(node, field, None)
    if not items:
        return []
    if field in ("handlers", "cases"):
        return [statement for item in items for statement in item.body]
    return list(items)


def _own_expressions(node: ast.stmt) -> list[ast.AST]:
    """The expressions of a statement itself, not of the statements nested in it."""
    return [
        child
        for child in ast.iter_child_nodes(node)
        if not isinstance(child, ast.stmt | ast.excepthandler | ast.match_case)
    ]


def _parameters(arguments: ast.arguments) -> Iterator[str]:
    return (argument.arg for argument in _arguments(arguments))


def _defaults(arguments: ast.arguments) -> list[ast.expr]:
    return [default for default in (*arguments.defaults, *arguments.kw_defaults) if default is not None]


def _target_names(target: ast.AST) -> Iterator[str]:
    return (node.id for node in ast.walk(target) if isinstance(node, ast.Name))
