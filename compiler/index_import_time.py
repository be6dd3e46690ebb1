"""Walk the code of a module that runs when it is imported.

That is every statement but the bodies of functions and lambdas and those of ``if
__name__ == "__main__":`` and ``if TYPE_CHECKING:`` (a function's decorators and defaults
do run).  Each node comes with the handlers of the ``try`` statements whose body holds it,
innermost last: what an exception raised there may be caught by.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .index_imports import is_main_guard, is_type_checking

__all__ = ["Handlers", "import_time_nodes"]

#: The handlers of each ``try`` around a node, outermost first.
Handlers = tuple[tuple[ast.ExceptHandler, ...], ...]


def import_time_nodes(tree: ast.Module) -> Iterator[tuple[ast.AST, Handlers]]:
    """Every node of ``tree`` that runs at import, in source order, with the handlers around it."""
    pending: list[tuple[ast.AST, Handlers]] = [(node, ()) for node in reversed(tree.body)]
    while pending:
        node, around = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            arguments = node.args
            runs: list[ast.AST | None] = [*arguments.defaults, *arguments.kw_defaults]
            if not isinstance(node, ast.Lambda):
                runs.extend(node.decorator_list)
            pending.extend((item, around) for item in reversed(runs) if item is not None)
            continue
        if isinstance(node, ast.If) and (is_main_guard(node.test) or is_type_checking(node.test)):
            pending.extend((item, around) for item in reversed(node.orelse))
            continue
        yield node, around
        if isinstance(node, ast.Try | ast.TryStar):
            inside = (*around, tuple(node.handlers))
            children: list[tuple[ast.AST, Handlers]] = [(item, inside) for item in node.body]
            children += [(item, around) for item in (*node.handlers, *node.orelse, *node.finalbody)]
            pending.extend(reversed(children))
            continue
        pending.extend((item, around) for item in reversed(list(ast.iter_child_nodes(node))))
