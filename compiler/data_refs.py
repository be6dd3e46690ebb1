"""Find the data paths a module names literally, to check that they are bundled.

The patterns, each with literal parts only (anything else is not followed)::

    Path(__file__).parent / "data" / "x.json"       .joinpath("data", "x.json"), .parents[1],
    Path(__file__).with_name("x.json")              .resolve(), .absolute() on the way
    os.path.join(os.path.dirname(__file__), "data", "x.json")
    importlib.resources.files("pkg") / "x.json"     files(__package__).joinpath("x.json")

A module-level ``NAME = <one of these>`` is followed where ``NAME`` is used.  Each
reference is the outermost such expression, placed where it starts; its target is a
path relative to ``src`` (``None`` when it leads above ``src``).  The module is parsed
with ``ast`` only when its text mentions ``__file__`` or ``files``; nothing here
raises for user code.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
from dataclasses import dataclass
from typing import NamedTuple

from .types import Pos

__all__ = ["DataRef", "data_references"]

_PATH_TYPES = frozenset(
    f"pathlib.{name}" for name in ("Path", "PurePath", "PosixPath", "PurePosixPath", "WindowsPath", "PureWindowsPath")
)
_FILES = frozenset({"importlib.resources.files", "importlib_resources.files"})
_DIRNAME = frozenset({"os.path.dirname", "posixpath.dirname"})
_JOIN = frozenset({"os.path.join", "posixpath.join"})
_SAME = frozenset(f"{base}.{name}" for base in ("os.path", "posixpath") for name in ("abspath", "realpath", "normpath"))
_SAME_METHODS = frozenset({"resolve", "absolute"})


@dataclass(frozen=True)
class DataRef:
    """A data path the module names: where, and its target (relative to ``src``)."""

    pos: Pos
    target: str | None


class _Value(NamedTuple):
    #: The path's parts, relative to ``src``; ``None`` once it is above ``src``.
    parts: tuple[str, ...] | None
    #: Whether the expression adds a literal part of its own (a data path, not ``__file__``'s folder).
    named: bool


def _extend(value: _Value, pieces: list[str]) -> _Value | None:
    parts = value.parts
    for piece in pieces:
        if piece.startswith("/") or "\\" in piece or "\0" in piece:
            return None
        for part in piece.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                parts = parts[:-1] if parts else None
            elif parts is not None:
                parts = (*parts, part)
    return _Value(parts, True)


def _up(value: _Value, levels: int = 1) -> _Value:
    parts = value.parts
    for _ in range(levels):
        parts = parts[:-1] if parts else None
    return _Value(parts, value.named)


def _literals(nodes: list[ast.expr]) -> list[str] | None:
    found = [node.value for node in nodes if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    return found if len(found) == len(nodes) else None


class _Reader:
    def __init__(self, tree: ast.Module, member: str) -> None:
        self.file = tuple(member.split("/"))
        self.aliases: dict[str, str] = {}
        self.names: dict[str, ast.expr] = {}
        self.memo: dict[int, _Value | None] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.partition(".")[0]
                        self.aliases[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        assigned: dict[str, int] = {}
        for statement in tree.body:
            if isinstance(statement, ast.Assign):
                targets, value = statement.targets, statement.value
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                targets, value = [statement.target], statement.value
            else:
                continue
            for target in targets:
                if isinstance(target, ast.Name):
                    assigned[target.id] = assigned.get(target.id, 0) + 1
                    self.names[target.id] = value
        self.names = {name: value for name, value in self.names.items() if assigned[name] == 1}

    def qualified(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualified(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def value(self, node: ast.expr) -> _Value | None:
        key = id(node)
        if key not in self.memo:
            self.memo[key] = None  # a name bound to itself ends here
            self.memo[key] = self._value(node)
        return self.memo[key]

    def _value(self, node: ast.expr) -> _Value | None:
        if isinstance(node, ast.Name):
            if node.id == "__file__":
                return _Value(self.file, False)
            bound = self.names.get(node.id)
            return self.value(bound) if bound is not None else None
        if isinstance(node, ast.Attribute) and node.attr == "parent":
            base = self.value(node.value)
            return _up(base) if base is not None else None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents":
            base = self.value(node.value.value)
            index = node.slice
            if base is None or not (isinstance(index, ast.Constant) and type(index.value) is int and index.value >= 0):
                return None
            return _up(base, index.value + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            base = self.value(node.left)
            pieces = _literals([node.right])
            return _extend(base, pieces) if base is not None and pieces is not None else None
        if isinstance(node, ast.Call) and not node.keywords:
            return self._call(node)
        return None

    def _call(self, node: ast.Call) -> _Value | None:
        function = node.func
        if isinstance(function, ast.Attribute):
            method = function.attr
            if method in ("joinpath", "with_name", *_SAME_METHODS) and self.qualified(function) is None:
                base = self.value(function.value)
                if base is None:
                    return None
                pieces = _literals(node.args)
                if method in _SAME_METHODS:
                    return base if not node.args else None
                if pieces is None:
                    return None
                if method == "with_name":
                    return _extend(_up(base), pieces) if len(pieces) == 1 else None
                return _extend(base, pieces)
        name = self.qualified(function)
        if name is None or not node.args:
            return None
        first = self.value(node.args[0])
        if name in _PATH_TYPES:
            pieces = _literals(node.args[1:])
            if first is None or pieces is None:
                return None
            return _extend(first, pieces) if pieces else first
        if name in _SAME:
            return first if len(node.args) == 1 else None
        if name in _DIRNAME:
            return _up(first) if first is not None and len(node.args) == 1 else None
        if name in _JOIN:
            pieces = _literals(node.args[1:])
            return _extend(first, pieces) if first is not None and pieces is not None else None
        if name in _FILES and len(node.args) == 1:
            return self._package(node.args[0])
        return None

    def _package(self, node: ast.expr) -> _Value | None:
        """The folder of ``files(node)``: a literal package, or the module's own package."""
        if isinstance(node, ast.Name) and node.id in ("__package__", "__name__"):
            return _Value(self.file[:-1], False)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
            return _Value(tuple(node.value.split(".")), False)
        return None


def _column(lines: list[str], line: int, offset: int) -> int:
    """``ast``'s column (UTF-8 bytes) as characters."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return offset if text.isascii() else len(text.encode("utf-8")[:offset].decode("utf-8", "replace"))


@functools.lru_cache(maxsize=1024)
def data_references(source: bytes, member: str) -> tuple[DataRef, ...]:
    """The data paths the module at ``member`` (relative to ``src``) names, outermost first."""
    if b"__file__" not in source and b"files" not in source:
        return ()
    try:
        tree = ast.parse(source)
        lines = importlib.util.decode_source(source).splitlines()
    except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
        return ()
    reader = _Reader(tree, member)
    inner: set[int] = set()
    found: list[tuple[ast.expr, _Value]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.expr) or isinstance(node, ast.Name) or id(node) in inner:
            continue
        value = reader.value(node)
        if value is None:
            continue
        inner.update(id(child) for child in ast.walk(node) if child is not node)
        if value.named:
            found.append((node, value))
    return tuple(
        DataRef(
            Pos(node.lineno, _column(lines, node.lineno, node.col_offset)),
            "/".join(value.parts) if value.parts is not None else None,
        )
        for node, value in sorted(found, key=lambda item: (item[0].lineno, item[0].col_offset))
    )
