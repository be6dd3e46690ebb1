"""Find what code run at import does that fails the module's import where a tool is loaded.

Three things, each kept with the name the code reaches it through (which module that name
stands for is resolved later, by ``import_effects_check``):

Environment variables read by key
    ``os.environ["KEY"]`` raises ``KeyError`` where the variable is not set.  At import,
    that fails the module, and with it every tool whose bundle holds the module, before any
    call can say why.  A read that a ``try`` around it may catch (``except KeyError``,
    ``except Exception``, a bare ``except``) fails nothing, nor does one of a key that code
    run at import tests first (``if "KEY" in os.environ:``, ``if os.environ.get("KEY"):``,
    ``if os.getenv("KEY"):``, anywhere in the module), nor
    ``os.environ.get`` and ``os.getenv``, which give a default.
Signal handlers installed
    ``signal.signal(...)`` and ``signal.set_wakeup_fd(...)`` work only in the main thread,
    and the runtime imports a tool's modules in a worker thread: Python refuses them there
    (``ValueError``), unless a ``try`` around them may catch that.
The event loop looked up
    ``asyncio.get_event_loop()`` raises ``RuntimeError`` in a thread that has no loop (the
    worker thread that imports), and ``asyncio.get_running_loop()`` wherever no loop runs
    (no loop runs code at import), unless a ``try`` around them may catch that.
SQLite connections kept for the calls
    ``DB = sqlite3.connect(...)`` made at import belongs to the worker thread that imports;
    sqlite3 refuses it in any other thread (``ProgrammingError``), and the calls run in other
    threads (an async tool's on the event loop's).  Kept only when a function of the module
    reads the name it is bound to, and unless ``check_same_thread=False`` is passed.

What runs at import is what ``index_import_time`` walks.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from .index_import_time import import_time_nodes
from .index_imports import may_catch
from .index_loop_calls import LOOP_GETTERS
from .index_types import ImportEffects
from .types import Pos

__all__ = ["ENVIRON", "SIGNAL_FUNCTIONS", "SQLITE_CONNECT", "find_import_effects"]

#: The functions of ``signal`` that only the main thread may call.
SIGNAL_FUNCTIONS = frozenset({"signal", "set_wakeup_fd"})
#: The member of ``os`` that holds the environment.
ENVIRON = frozenset({"environ"})
#: The function of ``sqlite3`` that opens a connection.
SQLITE_CONNECT = frozenset({"connect"})
#: How much of an expression a report shows.
_SHOWN = 60


_NONE = ImportEffects()


def _reached_through(node: ast.expr, members: frozenset[str]) -> str | None:
    """The name an expression reaches one of ``members`` through: ``os`` for ``os.environ`` (any
    name before ``.member``), the member's own name for a bare ``environ``; else ``None``."""
    if isinstance(node, ast.Attribute) and node.attr in members and isinstance(node.value, ast.Name):
        return node.value.id
    if isinstance(node, ast.Name) and node.id in members:
        return node.id
    return None


def _tested_keys(test: ast.expr) -> Iterator[str]:
    """The variables a test asks about: ``"KEY" in os.environ``, ``os.environ.get("KEY")``, ``os.getenv("KEY")``."""
    for node in ast.walk(test):
        if isinstance(node, ast.Compare):
            for operator, right in zip(node.ops, node.comparators, strict=True):
                if isinstance(operator, ast.In | ast.NotIn) and _reached_through(right, ENVIRON) is not None:
                    yield from _literal(node.left)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "get"
                and _reached_through(func.value, ENVIRON) is not None
            ) or (
                (isinstance(func, ast.Attribute) and func.attr == "getenv")
                or (isinstance(func, ast.Name) and func.id == "getenv")
            ):
                yield from _literal(node.args[0])


def _literal(node: ast.expr) -> Iterator[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value


def _shown(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def find_import_effects(tree: ast.Module, source: bytes, position: Callable[[ast.AST], Pos]) -> ImportEffects:
    """The environment reads by key, signal handlers and loop lookups of code run at import; see the module docstring."""
    if (
        b"environ" not in source
        and b"signal" not in source
        and b"wakeup" not in source
        and b"_loop" not in source
        and b"connect" not in source
    ):
        return _NONE  # nearly every module: decided without walking it
    reads: list[tuple[str, ast.Subscript, Pos]] = []
    tested: set[str] = set()
    handlers: list[tuple[str, str, Pos]] = []
    lookups: list[tuple[str, str, Pos]] = []
    connections: list[tuple[str, str, str, Pos]] = []
    for node, around in import_time_nodes(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            connection = _kept_connection(node)
            if connection is not None:
                connections.append((*connection, position(node.value or node)))
        if isinstance(node, ast.If | ast.IfExp | ast.While | ast.Assert):
            tested.update(_tested_keys(node.test))
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            name = _reached_through(node.value, ENVIRON)
            if name is not None and not any(may_catch(caught, KeyError) for caught in around):
                reads.append((name, node, position(node)))
        elif isinstance(node, ast.Call):
            name = _reached_through(node.func, SIGNAL_FUNCTIONS)
            if name is not None and not any(may_catch(caught, ValueError) for caught in around):
                handlers.append((name, _shown(node.func) + "(...)", position(node)))
            name = _reached_through(node.func, LOOP_GETTERS)
            if name is not None and not any(may_catch(caught, RuntimeError) for caught in around):
                lookups.append((name, _shown(node.func) + "()", position(node)))
    found = tuple(
        (name, _shown(node), pos)
        for name, node, pos in reads
        if not (isinstance(node.slice, ast.Constant) and node.slice.value in tested)
    )
    used = _read_in_functions(tree) if connections else set()
    kept = tuple((name, shown, pos) for name, shown, bound, pos in connections if bound in used)
    if not (found or handlers or lookups or kept):
        return _NONE
    return ImportEffects(found, tuple(handlers), tuple(lookups), kept)


def _kept_connection(node: ast.Assign | ast.AnnAssign) -> tuple[str, str, str] | None:
    """``(name, shown, bound)`` for ``bound = name.connect(...)`` (or ``connect(...)``) that does not
    pass ``check_same_thread=False``: the name the call starts from, the call as shown, the name bound."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    call = node.value
    if len(targets) != 1 or not isinstance(targets[0], ast.Name) or not isinstance(call, ast.Call):
        return None
    name = _reached_through(call.func, SQLITE_CONNECT)
    if name is None:
        return None
    for keyword in call.keywords:
        if keyword.arg is None:  # **options may say anything
            return None
        if keyword.arg == "check_same_thread" and not (
            isinstance(keyword.value, ast.Constant) and keyword.value.value is True
        ):
            return None
    return name, _shown(call.func) + "(...)", targets[0].id


def _read_in_functions(tree: ast.Module) -> set[str]:
    """The names read inside the module's functions (and lambdas), wherever they are defined."""
    read: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            body = node.body if isinstance(node.body, list) else [node.body]
            for statement in body:
                read.update(
                    item.id
                    for item in ast.walk(statement)
                    if isinstance(item, ast.Name) and isinstance(item.ctx, ast.Load)
                )
    return read
