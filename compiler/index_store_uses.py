"""Tell which objects a function body reads may be the data store or one of its collections.

A tool reaches its data through its context: ``ctx.data`` is the data store,
``ctx.data["notes"]`` and ``ctx.data.collection("notes")`` are collections of it.  A
body also holds them in a local variable, takes one as a parameter annotated
``Collection``, or gets one from a helper of its module (the scaffold's
``orders(ctx)``).  ``store_receiver`` says which of those an expression is, from the
syntax alone: a ``P.data`` chain on a parameter ``P`` never bound again; a parameter whose
annotation names ``Collection``; or a local variable that one statement binds, and only
that one (``single_assignment``), to such a chain or to a call of a function the module
binds.  Whether ``P`` is a ``ToolContext``, or the function returns a collection, only the
linker can say (``data_store_check``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection
from typing import Literal

__all__ = ["Source", "data_chain", "mentions_collection", "single_assignment", "store_receiver"]

#: What a receiver is (``index_types.StoreUse.source``).
Source = Literal["store", "collection", "parameter", "helper"]
_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def data_chain(expr: ast.expr) -> tuple[str, Literal["store", "collection"]] | None:
    """``("ctx", "store")`` for ``ctx.data``; ``("ctx", "collection")`` for ``ctx.data[...]`` and
    ``ctx.data.collection(...)``; ``None`` for anything else."""
    kind: Literal["store", "collection"] = "store"
    if isinstance(expr, ast.Subscript):
        expr, kind = expr.value, "collection"
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "collection":
        expr, kind = expr.func.value, "collection"
    if isinstance(expr, ast.Attribute) and expr.attr == "data" and isinstance(expr.value, ast.Name):
        return expr.value.id, kind
    return None


def mentions_collection(annotation: ast.expr | None) -> bool:
    """Whether an annotation names something called ``Collection`` (``Collection[Note]``, ``"data.Collection"``)."""
    if annotation is None:
        return False
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and node.id == "Collection":
            return True
        if isinstance(node, ast.Attribute) and node.attr == "Collection":
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "Collection" in node.value:
            return True
    return False


def single_assignment(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.expr | None:
    """The value of ``name = value`` when that is the only statement of ``function``'s own body
    (the scopes inside it aside) that binds ``name``; ``None`` otherwise."""
    bindings = 0
    value: ast.expr | None = None
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == name:
                return None
            continue
        if isinstance(node, _SCOPES):
            if any(isinstance(item, ast.NamedExpr) and item.target.id == name for item in ast.walk(node)):
                return None  # a walrus in a comprehension binds in the function
            continue
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            bindings += 1
        elif isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
            return None
        elif isinstance(node, ast.Import | ast.ImportFrom):
            if any((alias.asname or alias.name).split(".")[0] == name for alias in node.names):
                return None
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name == name:
            return None
        elif isinstance(node, ast.MatchMapping) and node.rest == name:
            return None
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id == name:
                value = node.value
        stack.extend(ast.iter_child_nodes(node))
    return value if bindings == 1 else None


def store_receiver(
    receiver: ast.expr,
    params: Collection[str],
    collection_params: Collection[str],
    assigned: Callable[[str], ast.expr | None],
    module_function: Callable[[str], bool],
) -> tuple[Source, str, bool] | None:
    """What ``receiver`` may be, as ``StoreUse`` says it (``source``, ``name``, ``awaited``); ``None``
    for what cannot be the data store or a collection.

    ``params`` are the function's parameters never bound again, ``collection_params`` those
    of them annotated with a ``Collection``; ``assigned(name)`` is the value of a local
    variable's only binding (``single_assignment``), and ``module_function(name)`` whether
    ``name`` read there finds a binding of the module.
    """
    value = receiver
    if isinstance(receiver, ast.Name):
        if receiver.id in params:
            return ("parameter", receiver.id, False) if receiver.id in collection_params else None
        found = assigned(receiver.id)
        if found is None:
            return None
        value = found
    chain = data_chain(value)
    if chain is not None:
        context, kind = chain
        return (kind, context, False) if context in params else None
    awaited = isinstance(value, ast.Await)
    made = value.value if isinstance(value, ast.Await) else value
    if (
        value is not receiver
        and isinstance(made, ast.Call)
        and isinstance(made.func, ast.Name)
        and module_function(made.func.id)
    ):
        return "helper", made.func.id, awaited
    return None
