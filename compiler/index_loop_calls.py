"""Find where an ``async def`` starts an event loop of its own.

An ``async def`` runs in an event loop, and asyncio refuses to start another from inside
one: ``asyncio.run(...)`` raises ``RuntimeError`` ("cannot be called from a running event
loop"), and so does ``asyncio.get_event_loop().run_until_complete(...)`` (the running loop
"is already running").  Code ported from a sync tool to an ``async def execute`` often
keeps them; every call of the tool then fails.  Only the body of the ``async def`` itself
counts: a function or lambda defined in it may run in a thread, which has no loop.

Which module the name before ``.run`` stands for is resolved later (``loop_calls_check``):
the index keeps the name.

The opposite mistake: a sync ``def`` runs in a worker thread when it is a tool's
``execute``, ``needs_approval`` or ``condition()``, and a worker thread has no event loop:
``asyncio.get_event_loop()`` and ``asyncio.get_running_loop()`` raise ``RuntimeError``
there (LangChain's ``asyncio.get_event_loop().run_until_complete(self._arun(...))``).
``find_thread_loop_lookups`` keeps those calls of each sync ``def``'s own body, unless the
body sets a loop itself (``set_event_loop``) or the call sits in a ``try`` that may catch
the ``RuntimeError``; ``tool_code_checks`` reports those of the functions run in a thread.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .index_imports import may_catch
from .types import Pos

__all__ = ["LOOP_GETTERS", "find_loop_calls", "find_thread_loop_lookups"]

#: The functions of ``asyncio`` that give the running loop when called from an ``async def``.
LOOP_GETTERS = frozenset({"get_event_loop", "get_running_loop"})


def _loop_call(node: ast.Call) -> tuple[str, str] | None:
    """The name a loop-starting call starts from (``asyncio``, or ``run`` for a bare ``run(...)``)
    and the call as a message shows it; ``None`` for any other call."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "run" and isinstance(func.value, ast.Name):
        return func.value.id, f"{func.value.id}.run(...)"
    if isinstance(func, ast.Name) and func.id == "run":
        return "run", "run(...)"
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "run_until_complete"
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Attribute)
        and func.value.func.attr in LOOP_GETTERS
        and isinstance(func.value.func.value, ast.Name)
    ):
        name = func.value.func.value.id
        return name, f"{name}.{func.value.func.attr}().run_until_complete(...)"
    return None


def find_loop_calls(
    tree: ast.Module, source: bytes, position: Callable[[ast.AST], Pos]
) -> tuple[tuple[str, str, Pos], ...]:
    """Each loop-starting call in the body of an ``async def``, in order: the name it starts
    from, the call as a message shows it, and where it is."""
    if b"async def" not in source or (b"run(" not in source and b"run_until_complete" not in source):
        return ()  # most modules: decided without walking them
    found: list[tuple[str, str, Pos]] = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.AsyncFunctionDef):
            continue
        pending: list[ast.AST] = list(function.body)
        while pending:
            node = pending.pop()
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                continue  # its own body runs elsewhere (an async def inside is walked on its own)
            if isinstance(node, ast.Call):
                call = _loop_call(node)
                if call is not None:
                    found.append((*call, position(node)))
            pending.extend(ast.iter_child_nodes(node))
    return tuple(sorted(found, key=lambda item: (item[2].line, item[2].col)))


def _loop_lookup(node: ast.Call) -> tuple[str, str] | None:
    """The name a loop lookup starts from (``asyncio``, or ``get_event_loop`` for a bare call)
    and the call as a message shows it; ``None`` for any other call."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in LOOP_GETTERS and isinstance(func.value, ast.Name):
        return func.value.id, f"{func.value.id}.{func.attr}()"
    if isinstance(func, ast.Name) and func.id in LOOP_GETTERS:
        return func.id, f"{func.id}()"
    return None


def find_thread_loop_lookups(
    tree: ast.Module, source: bytes, position: Callable[[ast.AST], Pos]
) -> tuple[tuple[str, str, str, Pos], ...]:
    """Each loop lookup in the own body of a sync ``def`` of the module or of its classes, in
    order: the function's qualified name, the name the call starts from, the call as a
    message shows it, and where it is (see the module docstring)."""
    if b"get_event_loop" not in source and b"get_running_loop" not in source:
        return ()  # most modules: decided without walking them
    found: list[tuple[str, str, str, Pos]] = []
    definitions: list[tuple[ast.stmt, str]] = [(node, "") for node in tree.body]
    while definitions:
        node, prefix = definitions.pop()
        if isinstance(node, ast.ClassDef):
            definitions.extend((item, f"{prefix}{node.name}.") for item in node.body)
        elif isinstance(node, ast.FunctionDef):
            found.extend((prefix + node.name, *lookup) for lookup in _lookups_in(node, position))
    return tuple(sorted(found, key=lambda item: (item[3].line, item[3].col)))


def _lookups_in(function: ast.FunctionDef, position: Callable[[ast.AST], Pos]) -> list[tuple[str, str, Pos]]:
    """The loop lookups of a sync function's own body that raise in a thread without a loop."""
    lookups: list[tuple[str, str, Pos]] = []
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue  # its own body runs elsewhere
        if isinstance(node, ast.Try | ast.TryStar) and may_catch(node.handlers, RuntimeError):
            pending.extend(item for part in (node.handlers, node.orelse, node.finalbody) for item in part)
            continue  # what its body raises is caught
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr == "set_event_loop") or (
                isinstance(func, ast.Name) and func.id == "set_event_loop"
            ):
                return []  # the function sets a loop of its own
            lookup = _loop_lookup(node)
            if lookup is not None:
                lookups.append((*lookup, position(node)))
        pending.extend(ast.iter_child_nodes(node))
    return lookups
