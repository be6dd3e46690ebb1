"""Find the string literals a module passes as a path: the first argument of a call, shaped like one.

``open("src/tools/data/orders.json")``, ``Path("data/prices.csv")``,
``sqlite3.connect("orders.db")``: a relative path is resolved against the working folder
of the process, which for a compiled tool is wherever the process loading it started
(``skill serve`` under an MCP host, a deployed bundle), not the project.  The index keeps
each literal that could name a file (a ``/`` between names, or a name with an extension),
anywhere in the module, function bodies included; whether it names a file of the project is
decided where the project's files are known (``working_folder_check``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from .types import Pos

__all__ = ["find_path_literals"]

#: A relative path with a ``/`` between names, or a file name with an extension.
_PATH_PATTERN = r"(?:\./)?(?:[\w.-]+/)+[\w.-]+|[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7}"
_PATH = re.compile(_PATH_PATTERN)
#: A call's first argument written as such a path, quoted: decided on the source text first
#: (most modules hold none).
_QUOTED_PATH = re.compile(rb"""\(\s*["'](?:""" + _PATH_PATTERN.encode() + rb""")["']""")


def find_path_literals(
    tree: ast.Module, source: bytes, position: Callable[[ast.AST], Pos]
) -> tuple[tuple[str, Pos], ...]:
    """Each string shaped like a relative path that is the first positional argument of a call, in order."""
    if _QUOTED_PATH.search(source) is None:
        return ()
    found: list[tuple[str, Pos]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        first = node.args[0]
        if isinstance(first, ast.Constant) and type(first.value) is str and _PATH.fullmatch(first.value):
            found.append((first.value, position(first)))
    return tuple(sorted(found, key=lambda item: (item[1].line, item[1].col)))
