"""Read ``ast`` expressions into index values, each at the position CPython gives it.

An ``ExpressionReader`` turns names, literals, calls, containers, subscripts and binary
operations into the plain values of ``types`` (``Ref``, ``Const``, ``Call``, ...);
anything else, and anything nested deeper than ``_EXPRESSION_DEPTH``, becomes a
``Dynamic`` holding its source text (with the parentheses that are its own, as a
concrete syntax tree would hold them) and the name of its kind.  It never raises for
user code.

Positions are the nodes' own: exact, and the ones editors and CPython's own errors
show, with columns counted in characters.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Sequence
from typing import Literal, TypeVar, cast

from .index_types import BinOp, Call, Const, Container, Dynamic, Expr, Ref, Subscript
from .types import Pos

__all__ = ["BINARY_OPERATORS", "ExpressionReader", "dotted_name", "item_at"]

#: The deepest expression the index records; anything deeper is recorded as dynamic,
#: so that no index value is too deep to pickle, compare or walk.
_EXPRESSION_DEPTH = 100
_DYNAMIC_TEXT_LIMIT = 80
#: Every binary operator, as written.
BINARY_OPERATORS: dict[type[ast.operator], str] = {
    ast.BitOr: "|",
    ast.BitAnd: "&",
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.MatMult: "@",
}
#: A dynamic value's kind, by the name the rest of the compiler knows it by (``Lambda``).
_KINDS = {
    "Compare": "Comparison",
    "BoolOp": "BooleanOperation",
    "UnaryOp": "UnaryOperation",
    "JoinedStr": "FormattedString",
    "Starred": "StarredElement",
    "YieldFrom": "Yield",
}
_NUMBERS = (int, float, complex)
_LITERALS = (str, bytes, int, float, complex, bool, type(None), type(...))
_SPACE = b" \t\f\\\r\n"

_T = TypeVar("_T")


def item_at(items: Sequence[_T] | None, index: int) -> _T | None:
    """``items[index]``, or ``None`` when there are no items or too few."""
    return items[index] if items is not None and index < len(items) else None


def _utf8(source: bytes) -> bytes:
    """The source as UTF-8, the encoding ``ast`` counts columns in, whatever the file declares."""
    if source.isascii():
        return source
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError:
        return source
    if encoding.lower().replace("_", "-") in ("utf-8", "utf8", "utf-8-sig"):
        return source
    return source.decode(encoding).encode("utf-8")


class ExpressionReader:
    """Reads the expressions of one module; its subclasses read the statements around them."""

    def __init__(self, source: bytes) -> None:
        self.lines = _utf8(source).splitlines()
        #: How many expressions deep ``_expr`` is.
        self.depth = 0

    # --- positions ------------------------------------------------------------------

    def _pos(self, node: ast.AST) -> Pos:
        """The position of ``node``, its column in characters (``ast`` counts UTF-8 bytes)."""
        line: int = getattr(node, "lineno", 0)
        offset: int = getattr(node, "col_offset", 0)
        raw = self.lines[line - 1] if 0 < line <= len(self.lines) else b""
        if not raw.isascii():
            offset = len(raw[:offset].decode("utf-8", "replace"))
        return Pos(line, offset)

    # --- expressions ------------------------------------------------------------------

    def _expr(self, node: ast.expr, at: ast.AST | None = None, wrapped: bool = False) -> Expr:
        """``node`` as an index value, placed at ``at`` (``node`` itself unless told);
        dynamic past ``_EXPRESSION_DEPTH`` levels.  ``wrapped``: the parentheses right
        around ``node`` are its parent's (a call's only argument), not its own."""
        pos = self._pos(at or node)
        if self.depth >= _EXPRESSION_DEPTH:
            return self._dynamic(node, pos, wrapped)
        self.depth += 1
        try:
            return self._expression(node, pos, wrapped)
        finally:
            self.depth -= 1

    def _expression(self, node: ast.expr, pos: Pos, wrapped: bool) -> Expr:
        if isinstance(node, ast.Name):
            return Ref(node.id, pos)
        if isinstance(node, ast.Constant):
            return Const(node.value, pos) if isinstance(node.value, _LITERALS) else self._dynamic(node, pos, wrapped)
        if isinstance(node, ast.Attribute):
            dotted = dotted_name(node)
            return Ref(dotted, pos) if dotted else self._dynamic(node, pos, wrapped)
        if (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.USub | ast.UAdd)
            and isinstance(node.operand, ast.Constant)
            and type(node.operand.value) in _NUMBERS
        ):
            number = cast(complex, node.operand.value)  # an int, float or complex: checked above
            return Const(-number if isinstance(node.op, ast.USub) else number, pos)
        if isinstance(node, ast.Call):
            return self._call(node, pos)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            items = tuple(self._expr(element) for element in node.elts if not isinstance(element, ast.Starred))
            kind: Literal["list", "tuple", "set"] = (
                "list" if isinstance(node, ast.List) else "tuple" if isinstance(node, ast.Tuple) else "set"
            )
            has_star = any(isinstance(element, ast.Starred) for element in node.elts)
            return Container(kind, items, pos, has_star=has_star)
        if isinstance(node, ast.Dict):
            keys: list[Expr | None] = []
            values: list[Expr] = []
            for key, value in zip(node.keys, node.values, strict=True):
                if key is not None:
                    keys.append(self._expr(key))
                    values.append(self._expr(value))
            return Container("dict", tuple(values), pos, keys=tuple(keys), has_star=None in node.keys)
        if isinstance(node, ast.Subscript):
            return Subscript(self._expr(node.value), self._slice(node.slice), pos)
        if isinstance(node, ast.BinOp):
            operator = BINARY_OPERATORS.get(type(node.op), "?")
            return BinOp(operator, self._expr(node.left), self._expr(node.right), pos)
        return self._dynamic(node, pos, wrapped)

    def _slice(self, node: ast.expr) -> tuple[Expr, ...]:
        """The items of ``x[...]``: one, unless the brackets hold a tuple without parentheses of its own."""
        if not isinstance(node, ast.Tuple) or self._parenthesized(node):
            parts = [node]
        else:
            parts = node.elts
        items: list[Expr] = []
        for part in parts:
            if isinstance(part, ast.Slice):
                items.append(self._dynamic(part, self._pos(part), False))
            elif isinstance(part, ast.Starred):  # x[*a]: the element, star and all
                items.append(Dynamic("Index", self._text(part, False), self._pos(part)))
            else:
                items.append(self._expr(part))
        return tuple(items)

    def _call(self, node: ast.Call, pos: Pos) -> Call:
        alone = len(node.args) + len(node.keywords) == 1
        args = tuple(self._expr(arg, wrapped=alone) for arg in node.args if not isinstance(arg, ast.Starred))
        kwargs = tuple((item.arg, self._expr(item.value)) for item in node.keywords if item.arg is not None)
        has_star = any(isinstance(arg, ast.Starred) for arg in node.args) or any(
            item.arg is None for item in node.keywords
        )
        return Call(self._expr(node.func), args, kwargs, pos, has_star)

    def _dynamic(self, node: ast.AST, pos: Pos, wrapped: bool) -> Dynamic:
        kind = type(node).__name__
        if isinstance(node, ast.JoinedStr) and self._joined(node):
            kind = "ConcatenatedString"
        return Dynamic(_KINDS.get(kind, kind), self._text(node, wrapped), pos)

    # --- source text ------------------------------------------------------------------

    def _text(self, node: ast.AST, wrapped: bool) -> str:
        """The source of ``node`` with its own parentheses, on one line, cut to ``_DYNAMIC_TEXT_LIMIT``."""
        start = (getattr(node, "lineno", 1) - 1, getattr(node, "col_offset", 0))
        end = (getattr(node, "end_lineno", None) or start[0] + 1) - 1, getattr(node, "end_col_offset", None) or 0
        before, after = self._parentheses_before(start), self._parentheses_after(end)
        own = min(len(before), len(after))
        if isinstance(node, ast.GeneratorExp) and wrapped and not before:
            # The only argument of a call: ``ast`` counts the call's parentheses as its own.
            start, end = (start[0], start[1] + 1), (end[0], end[1] - 1)
        elif wrapped and own:
            own -= 1
        if own:
            start, end = before[own - 1], after[own - 1]
        text = " ".join(self._segment(start, end).split())
        if len(text) > _DYNAMIC_TEXT_LIMIT:
            text = text[: _DYNAMIC_TEXT_LIMIT - 3] + "..."
        return text

    def _segment(self, start: tuple[int, int], end: tuple[int, int]) -> str:
        if start[0] == end[0]:
            chunk = self.lines[start[0]][start[1] : end[1]] if start[0] < len(self.lines) else b""
        else:
            chunk = b"\n".join(
                [self.lines[start[0]][start[1] :], *self.lines[start[0] + 1 : end[0]], self.lines[end[0]][: end[1]]]
            )
        return chunk.decode("utf-8", "replace")

    def _parentheses_before(self, start: tuple[int, int]) -> list[tuple[int, int]]:
        """Where each ``(`` right before ``start`` is (nearest first), whitespace between."""
        found: list[tuple[int, int]] = []
        line, col = start
        while 0 <= line < len(self.lines):
            text = self.lines[line]
            while col > 0 and text[col - 1] in _SPACE:
                col -= 1
            if col > 0 and text[col - 1] == ord("("):
                col -= 1
                found.append((line, col))
                continue
            if col > 0:
                break
            line -= 1
            col = len(self.lines[line]) if line >= 0 else 0
        return found

    def _parentheses_after(self, end: tuple[int, int]) -> list[tuple[int, int]]:
        """Where each ``)`` right after ``end`` ends (nearest first); whitespace and comments between."""
        found: list[tuple[int, int]] = []
        line, col = end
        while 0 <= line < len(self.lines):
            text = self.lines[line]
            while col < len(text) and text[col] in _SPACE:
                col += 1
            if col < len(text) and text[col] == ord(")"):
                col += 1
                found.append((line, col))
                continue
            if col < len(text) and text[col] != ord("#"):
                break
            line, col = line + 1, 0
        return found

    def _joined(self, node: ast.JoinedStr) -> bool:
        """Whether an f-string is several literals side by side (``"a" f"{b}"``), as ``ast`` joins them."""
        start = (node.lineno - 1, node.col_offset)
        end = ((node.end_lineno or node.lineno) - 1, node.end_col_offset or 0)
        literals = depth = 0
        try:
            for token in tokenize.generate_tokens(io.StringIO(self._segment(start, end)).readline):
                name = tokenize.tok_name[token.type]
                if name in ("STRING", "FSTRING_START") and not depth:
                    literals += 1
                depth += 1 if name == "FSTRING_START" else -1 if name == "FSTRING_END" else 0
        except (tokenize.TokenError, SyntaxError):
            return False
        return literals > 1

    def _parenthesized(self, node: ast.Tuple) -> bool:
        """Whether a tuple has parentheses of its own: ``x[(a, b)]``, not ``x[a, b]`` or ``x[(a), b]``.

        Between its elements there are only commas, parentheses, whitespace and comments:
        the first ``(`` is the tuple's if it closes only at the tuple's end.
        """
        if not node.elts:
            return True
        bounds = [(node.lineno - 1, node.col_offset)]
        for element in node.elts:
            bounds.append((element.lineno - 1, element.col_offset))
            bounds.append(((element.end_lineno or element.lineno) - 1, element.end_col_offset or 0))
        bounds.append(((node.end_lineno or node.lineno) - 1, node.end_col_offset or 0))
        gaps = [self._segment(bounds[index], bounds[index + 1]) for index in range(0, len(bounds), 2)]
        if not gaps[0].startswith("("):
            return False
        text = "".join(line.partition("#")[0] for gap in gaps for line in gap.split("\n")).rstrip()
        depth = 0
        for index, char in enumerate(text):
            depth += 1 if char == "(" else -1 if char == ")" else 0
            if not depth:
                return index == len(text) - 1
        return False


def dotted_name(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of names, else ``None``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):  # a loop: chains may be a thousand links long
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif parts and isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, bool)):
        parts.append(repr(node.value))  # ``None.__class__``: a name in the grammar, a constant in ``ast``
    else:
        return None
    return ".".join(reversed(parts))
