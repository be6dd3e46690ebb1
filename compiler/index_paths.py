"""Find the string literals a module passes as a path: the first argument of a call, shaped like one.

``open("src/tools/data/orders.json")``, ``Path("data/prices.csv")``,
``sqlite3.connect("orders.db")``, ``create_engine("sqlite:///orders.db")`` (kept as ``orders.db``): a relative path is resolved against the working folder
of the process, which for a compiled tool is wherever the process loading it started
(``skill serve`` under an MCP host, a deployed bundle), not the project.  The index keeps
each literal that could name a file (a ``/`` between names, or a name with an extension),
anywhere in the module, function bodies included, and a module-level name bound once to
such a literal (``NOTES = "notes.txt"``) where a call is given the name first
(``open(NOTES, "a")``, placed at the name); whether it names a file of the project is
decided where the project's files are known (``working_folder_check``).

Each literal is kept with how the call uses it (``PathUse``): the name of the function
called as written (``sqlite3.connect``, ``open``, ``Path``), and for ``open`` the mode when
it is a literal, and for ``Path("x")`` the method called on it at once (``.write_text``).
Whether that use makes or changes the file is decided where names are resolved: the
check reports a write to a path that names no file of the project too.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from .index_types import PathUse
from .types import Pos

__all__ = ["find_path_literals"]

#: A relative path with a ``/`` between names, or a file name with an extension.
_PATH_PATTERN = r"(?:\./)?(?:[\w.-]+/)+[\w.-]+|[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7}"
_PATH = re.compile(_PATH_PATTERN)
#: A call's first argument written as such a path, quoted, or a module-level name bound to one
#: (``NOTES = "notes.txt"``): decided on the source text first (most modules hold none).
_QUOTED_PATH = re.compile(
    rb"""(?:\(\s*|^\w+\s*(?::[^=\n]*)?=\s*)["'](?:""" + _PATH_PATTERN.encode() + rb""")["']"""
    rb"""|\(\s*["']sqlite(?:\+\w+)?:///[^/]"""
    rb"""|(?:Path|mkdir|makedirs)\(\s*["'][\w-]+["']""",
    re.MULTILINE,
)
#: A bare name (``"cache"``): a path only where the call makes or changes it at once
#: (``Path("cache").mkdir()``, ``os.makedirs("cache")``): the function called with it (its last
#: dotted part), or the method called at once on what that returns, says so.
_BARE = re.compile(r"[\w-]+")
_BARE_FUNCTIONS = frozenset({"mkdir", "makedirs"})
_BARE_METHODS = frozenset({"mkdir", "touch", "write_text", "write_bytes"})
#: A SQLAlchemy URL of a SQLite file named relative to the working folder (``sqlite:///shop.db``; four
#: slashes make it absolute): the file's path is what the URL holds after them.
_SQLITE_URL = re.compile(r"sqlite(?:\+\w+)?:///(?!/)(?!:memory:)(\S+)")


def _dotted(node: ast.expr) -> str:
    """``a.b.c`` for a name or an attribute chain; ``""`` for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    parts.append(node.id)
    return ".".join(reversed(parts))


def _mode(call: ast.Call, index: int = 1) -> str | None:
    """The ``mode`` of an ``open``-like call (the positional argument ``index``, or ``mode=``) when it is a literal."""
    found = (
        call.args[index]
        if len(call.args) > index
        else next((keyword.value for keyword in call.keywords if keyword.arg == "mode"), None)
    )
    if found is None:
        return "r"
    return found.value if isinstance(found, ast.Constant) and isinstance(found.value, str) else None


def _path_constants(tree: ast.Module) -> dict[str, str]:
    """The module-level names bound to a string shaped like a path (``NOTES = "notes.txt"``) and
    bound nowhere else in the module: no other assignment, parameter or loop variable shadows them."""
    found: dict[str, str] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        if (
            isinstance(target, ast.Name)
            and isinstance(value, ast.Constant)
            and type(value.value) is str
            and _PATH.fullmatch(value.value)
        ):
            found[target.id] = value.value
    if not found:
        return found
    bound: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and node.id in found:
            bound[node.id] = bound.get(node.id, 0) + 1
        elif isinstance(node, ast.arg) and node.arg in found:
            bound[node.arg] = 2  # a parameter of that name: not the constant inside its function
    return {name: value for name, value in found.items() if bound.get(name) == 1}


def find_path_literals(
    tree: ast.Module, source: bytes, position: Callable[[ast.AST], Pos]
) -> tuple[tuple[str, Pos, PathUse], ...]:
    """Each string shaped like a relative path that is the first positional argument of a call, in
    order, with how the call uses it."""
    if _QUOTED_PATH.search(source) is None:
        return ()
    #: The method called on a call's result at once (``Path("x").write_text(...)``), by the inner call.
    methods: dict[int, tuple[str, str | None]] = {}
    found: list[tuple[str, Pos, ast.Call]] = []
    constants = _path_constants(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Call):
            methods[id(function.value)] = (function.attr, _mode(node, 0) if function.attr == "open" else None)
        if not node.args:
            continue
        first = node.args[0]
        if isinstance(first, ast.Constant) and type(first.value) is str and _PATH.fullmatch(first.value):
            found.append((first.value, position(first), node))
        elif (
            isinstance(first, ast.Constant) and type(first.value) is str and (url := _SQLITE_URL.fullmatch(first.value))
        ):
            found.append((url[1].partition("?")[0], position(first), node))
        elif (
            isinstance(first, ast.Constant)
            and type(first.value) is str
            and _BARE.fullmatch(first.value)
            and (
                _dotted(function).rpartition(".")[2] in _BARE_FUNCTIONS
                or methods.get(id(node), ("", None))[0] in _BARE_METHODS
            )
        ):
            found.append((first.value, position(first), node))
        elif isinstance(first, ast.Name) and first.id in constants:
            found.append((constants[first.id], position(first), node))
    found.sort(key=lambda item: (item[1].line, item[1].col))
    uses = []
    for literal, pos, call in found:
        method, method_mode = methods.get(id(call), ("", None))
        use = PathUse(_dotted(call.func), _mode(call), method, method_mode)
        uses.append((literal, pos, use))
    return tuple(uses)
