"""Find the data paths a module names literally, to check that they are bundled, and its writes to them.

The patterns, each with literal parts only (anything else is not followed)::

    Path(__file__).parent / "data" / "x.json"       .joinpath("data", "x.json"), .parents[1],
    Path(__file__).with_name("x.json")              .resolve(), .absolute() on the way
    os.path.join(os.path.dirname(__file__), "data", "x.json")
    importlib.resources.files("pkg") / "x.json"     files(__package__).joinpath("x.json")

A module-level ``NAME = <one of these>`` is followed where ``NAME`` is used.  Each
reference is the outermost such expression, placed where it starts; its target is a
path relative to ``src`` (``None`` when it leads above ``src``).  A path whose existence
the code tests (``P.exists()``, ``os.path.isfile(P)``, directly or through the name an
assignment binds it to) is optional, and no reference.  The module is parsed
with ``ast`` only when its text mentions ``__file__`` or ``files``; nothing here
raises for user code.

A module runs from its tool's bundle, so such a path names a file of that bundle, wherever
the module's code uses it.  ``data_writes`` finds the calls that change one (anywhere in
the module, function bodies included): ``P.write_text(...)``, ``P.write_bytes(...)``,
``P.open(MODE)``, ``open(P, MODE)``, ``io.open(P, MODE)`` (and ``gzip``'s, ``bz2``'s and
``lzma``'s ``open``) with a literal mode that writes (``w``, ``a``, ``x`` or ``+``),
``P.touch()``, ``P.mkdir()``, ``P.unlink()``,
``P.rmdir()``, ``P.rename(...)``, ``P.replace(...)``, the same from ``os``
(``os.remove(P)``, ``os.makedirs(P)``...), ``shutil``'s copies and moves to ``P``, and
``sqlite3.connect(P)``, which makes the file when it is missing and may write it (a
``database`` write: reading one shipped with the tool is what it may also do).
"""

from __future__ import annotations

import ast
import functools
import importlib.util
from dataclasses import dataclass
from typing import NamedTuple

from .types import Pos

__all__ = ["OPEN_FUNCTIONS", "DataRef", "DataWrite", "data_references", "data_writes", "opens_to_write"]

_PATH_TYPES = frozenset(
    f"pathlib.{name}" for name in ("Path", "PurePath", "PosixPath", "PurePosixPath", "WindowsPath", "PureWindowsPath")
)
_FILES = frozenset({"importlib.resources.files", "importlib_resources.files"})
_DIRNAME = frozenset({"os.path.dirname", "posixpath.dirname"})
_JOIN = frozenset({"os.path.join", "posixpath.join"})
_SAME = frozenset(f"{base}.{name}" for base in ("os.path", "posixpath") for name in ("abspath", "realpath", "normpath"))
_SAME_METHODS = frozenset({"resolve", "absolute"})
#: Methods of a path that change the file system there.
_WRITING_METHODS = frozenset(
    {"write_text", "write_bytes", "touch", "mkdir", "unlink", "rmdir", "rename", "replace", "symlink_to", "hardlink_to"}
)
#: Functions whose first argument is a path they change.
_WRITING_FIRST = frozenset(
    {f"os.{name}" for name in ("remove", "unlink", "mkdir", "makedirs", "rmdir", "removedirs", "rename", "replace")}
    | {"shutil.rmtree"}
)
#: Functions whose second argument is a path they write.
_WRITING_SECOND = frozenset(f"shutil.{name}" for name in ("copy", "copy2", "copyfile", "copytree", "move")) | frozenset(
    {"os.rename", "os.replace", "os.symlink", "os.link"}
)
#: Functions that open a database at their first argument, making the file when it is missing.
_DATABASE_OPENERS = frozenset({"sqlite3.connect"})
#: Functions that open their first argument in the ``mode`` they are given (also ``working_folder_check``'s).
OPEN_FUNCTIONS = frozenset({"io.open", "builtins.open", "gzip.open", "bz2.open", "lzma.open"})
#: Methods of a path, and functions, that test whether a file is there.
_EXISTENCE_METHODS = frozenset({"exists", "is_file", "is_dir"})
_EXISTENCE_FUNCTIONS = frozenset(
    f"{base}.{name}" for base in ("os.path", "posixpath") for name in ("exists", "isfile", "isdir", "lexists")
)
#: What a mode holds when the file is opened to be changed.
_WRITING_MODES = frozenset("wax+")


@dataclass(frozen=True)
class DataRef:
    """A data path the module names: where, and its target (relative to ``src``)."""

    pos: Pos
    target: str | None


@dataclass(frozen=True)
class DataWrite:
    """A call that changes a path of the bundle the module runs from: where, the call as a
    message shows it, and the path it changes (relative to ``src``; ``None`` when above it).

    ``exact`` is false for a path whose last parts only running the code would tell
    (``HERE / f"{name}.json"``): ``target`` is then the folder it is in, or below.
    """

    pos: Pos
    shown: str
    target: str | None
    exact: bool = True
    #: Whether the call only makes a folder (``mkdir``, ``os.makedirs``): nothing changes where it exists.
    makes_folder: bool = False
    #: Whether the call opens a database there (``sqlite3.connect``): it creates the file when it is
    #: missing, and writes whatever the code stores, but may only read one that is there.
    database: bool = False


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
            if node.id == "open" and "open" not in self.aliases and "open" not in self.names:
                return "builtins.open"
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


class _Parsed(NamedTuple):
    reader: _Reader
    tree: ast.Module
    lines: list[str]


@functools.lru_cache(maxsize=256)
def _parsed(source: bytes, member: str) -> _Parsed | None:
    """The module's tree and a reader of its paths; ``None`` when it names no path of its own."""
    if b"__file__" not in source and b"files" not in source:
        return None
    try:
        tree = ast.parse(source)
        lines = importlib.util.decode_source(source).splitlines()
    except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
        return None
    return _Parsed(_Reader(tree, member), tree, lines)


def _target(value: _Value) -> str | None:
    return "/".join(value.parts) if value.parts is not None else None


@functools.lru_cache(maxsize=1024)
def data_references(source: bytes, member: str) -> tuple[DataRef, ...]:
    """The data paths the module at ``member`` (relative to ``src``) names, outermost first."""
    parsed = _parsed(source, member)
    if parsed is None:
        return ()
    reader, tree, lines = parsed
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
    optional = _tested_for_existence(reader, tree) if found else set()
    return tuple(
        DataRef(Pos(node.lineno, _column(lines, node.lineno, node.col_offset)), _target(value))
        for node, value in sorted(found, key=lambda item: (item[0].lineno, item[0].col_offset))
        if id(node) not in optional
    )


def _tested_for_existence(reader: _Reader, tree: ast.Module) -> set[int]:
    """The path expressions whose existence the module's code tests (``P.exists()``, ``os.path.isfile(P)``),
    directly or through the name an assignment binds them to (``path = HERE / "x"`` ... ``path.exists()``):
    code that reads such a file only when it is there needs no file in the bundle."""
    tested_names: set[str] = set()
    tested: set[int] = set()
    bound: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                bound[id(node.value)] = targets[0].id
        elif isinstance(node, ast.Call):
            function, subject = node.func, None
            if isinstance(function, ast.Attribute) and function.attr in _EXISTENCE_METHODS and not node.args:
                subject = function.value
            elif node.args and reader.qualified(function) in _EXISTENCE_FUNCTIONS:
                subject = node.args[0]
            if isinstance(subject, ast.Name):
                tested_names.add(subject.id)
            elif subject is not None:
                tested.add(id(subject))
    return tested | {key for key, name in bound.items() if name in tested_names}


@functools.lru_cache(maxsize=1024)
def data_writes(source: bytes, member: str) -> tuple[DataWrite, ...]:
    """The calls of the module at ``member`` that change a path of its own bundle, in source order."""
    parsed = _parsed(source, member)
    if parsed is None:
        return ()
    reader, tree, lines = parsed
    found: list[tuple[ast.Call, _Value, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for path in _written(reader, node):
                located = _within(reader, path)
                if located is not None:
                    found.append((node, *located))
                    break
    found.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
    return tuple(
        DataWrite(
            Pos(node.lineno, _column(lines, node.lineno, node.col_offset)),
            _shown(node),
            _target(value),
            exact,
            _makes_folder(reader, node),
            reader.qualified(node.func) in _DATABASE_OPENERS,
        )
        for node, value, exact in found
    )


def _makes_folder(reader: _Reader, node: ast.Call) -> bool:
    function = node.func
    if isinstance(function, ast.Attribute) and reader.qualified(function) is None:
        return function.attr == "mkdir"
    return reader.qualified(function) in ("os.mkdir", "os.makedirs")


def _within(reader: _Reader, node: ast.expr) -> tuple[_Value, bool] | None:
    """The path ``node`` names and ``True``; or, when only running the code would tell its last
    parts (``HERE / name``, ``HERE.joinpath(name)``, ``os.path.join(HERE, name)``), the folder it
    is under and ``False``; ``None`` when it is not a path of the bundle."""
    value = reader.value(node)
    if value is not None:
        return value, True
    base: ast.expr | None = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        base = node.left
    elif isinstance(node, ast.Call) and node.args:
        function = node.func
        if isinstance(function, ast.Attribute) and function.attr == "joinpath" and reader.qualified(function) is None:
            base = function.value
        elif reader.qualified(function) in _JOIN | _PATH_TYPES:
            base = node.args[0]
    if base is None:
        return None
    inner = _within(reader, base)
    return (inner[0], False) if inner is not None else None


def _written(reader: _Reader, node: ast.Call) -> list[ast.expr]:
    """The path expressions ``node`` changes the file system at, if it is a call that does."""
    function = node.func
    if isinstance(function, ast.Attribute) and reader.qualified(function) is None:
        if function.attr in _WRITING_METHODS or (function.attr == "open" and _writes(_argument(node, 0, "mode"))):
            return [function.value]
        return []
    name = reader.qualified(function)
    found = []
    if name in OPEN_FUNCTIONS and _writes(_argument(node, 1, "mode")):
        found.append(_argument(node, 0, "file"))
    if name in _WRITING_FIRST:
        found.append(_argument(node, 0, "path") or _argument(node, 0, "src"))
    if name in _WRITING_SECOND:
        found.append(_argument(node, 1, "dst"))
    if name in _DATABASE_OPENERS:
        found.append(_argument(node, 0, "database"))
    return [path for path in found if path is not None]


def _argument(node: ast.Call, index: int, keyword: str) -> ast.expr | None:
    if len(node.args) > index and not any(isinstance(arg, ast.Starred) for arg in node.args[: index + 1]):
        return node.args[index]
    return next((item.value for item in node.keywords if item.arg == keyword), None)


def _writes(mode: ast.expr | None) -> bool:
    """Whether a literal ``open`` mode opens the file to change it."""
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and opens_to_write(mode.value)


def opens_to_write(mode: str | None) -> bool:
    """Whether ``open``'s ``mode`` (``None``: not a literal) opens the file to change it."""
    return mode is not None and bool(_WRITING_MODES & set(mode))


def _shown(node: ast.Call) -> str:
    text = ast.unparse(node.func)
    return (text if len(text) <= 60 else text[:57] + "...") + "(...)"
