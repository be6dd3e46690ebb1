"""Find where a module reads an environment variable by key while it is imported.

``os.environ["KEY"]`` raises ``KeyError`` where the variable is not set.  At import, that
fails the module, and with it every tool whose bundle holds the module, before any call
can say why.  A read that a ``try`` around it may catch (``except KeyError``, ``except
Exception``, a bare ``except``) fails nothing, nor does one of a key that code run at
import tests first (``if "KEY" in os.environ:``, anywhere in the module), nor
``os.environ.get`` and ``os.getenv``, which give a default.  Which module the subscripted
name stands for is resolved later (``environment_check``): the index keeps the name.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .index_import_time import import_time_nodes
from .index_imports import may_catch
from .types import Pos

__all__ = ["find_environment_reads"]

#: How much of the read a report shows.
_SHOWN = 60


def _environ_name(node: ast.expr) -> str | None:
    """``os`` for ``os.environ`` (any name before ``.environ``), ``environ`` for ``environ``; else ``None``."""
    if isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name):
        return node.value.id
    if isinstance(node, ast.Name) and node.id == "environ":
        return node.id
    return None


def find_environment_reads(
    tree: ast.Module, source: bytes, position: Callable[[ast.AST], Pos]
) -> tuple[tuple[str, str, Pos], ...]:
    """Each ``NAME.environ[KEY]`` and ``environ[KEY]`` read at import that nothing catches or tests
    first, in order: the name the read starts from (``os``, ``environ``), the read as written
    (shortened), and where it is."""
    if b"environ" not in source:  # nearly every module: decided without walking it
        return ()
    reads: list[tuple[str, ast.Subscript, Pos]] = []
    tested: set[str] = set()
    for node, around in import_time_nodes(tree):
        if isinstance(node, ast.Compare):
            for operator, right in zip(node.ops, node.comparators, strict=True):
                if isinstance(operator, ast.In | ast.NotIn) and _environ_name(right) is not None:
                    if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
                        tested.add(node.left.value)
        if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Load):
            continue
        name = _environ_name(node.value)
        if name is None or any(may_catch(handlers, KeyError) for handlers in around):
            continue
        reads.append((name, node, position(node)))
    found = []
    for name, node, pos in reads:
        key = node.slice
        if isinstance(key, ast.Constant) and key.value in tested:
            continue
        shown = ast.unparse(node)
        found.append((name, shown if len(shown) <= _SHOWN else shown[: _SHOWN - 3] + "...", pos))
    return tuple(found)
