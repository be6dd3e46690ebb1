"""Read LibCST expressions into index values, each placed at the position ``ast`` gives it.

An ``ExpressionReader`` turns names, literals, calls, containers, subscripts and binary
operations into the plain values of ``types`` (``Ref``, ``Const``, ``Call``, ...);
anything else, and anything nested deeper than ``_EXPRESSION_DEPTH``, becomes a
``Dynamic`` holding its source text.  It never raises for user code.

Positions come from the expression's ``ast`` twin, passed in alongside it: exact, and
the ones editors and CPython's own errors show.  Without a twin a value is placed at
its statement, with its node path, and ``locate`` finds its position on demand.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import TypeVar

import libcst as cst

from .types import BinOp, Call, Const, Container, Dynamic, Expr, NodePath, Pos, Ref, Subscript

__all__ = ["ExpressionReader", "dotted_name", "item_at"]

#: The deepest expression the index records; anything deeper is recorded as dynamic,
#: so that no index value is too deep to pickle, compare or walk.
_EXPRESSION_DEPTH = 100
_DYNAMIC_TEXT_LIMIT = 80
_BINARY_OPERATORS = {
    cst.BitOr: "|",
    cst.BitAnd: "&",
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.BitXor: "^",
    cst.LeftShift: "<<",
    cst.RightShift: ">>",
    cst.MatrixMultiply: "@",
}
_CONSTANT_NAMES = {"True": True, "False": False, "None": None}

_T = TypeVar("_T")


def item_at(items: Sequence[_T] | None, index: int) -> _T | None:
    """``items[index]``, or ``None`` when there are no items or too few."""
    return items[index] if items is not None and index < len(items) else None


class ExpressionReader:
    """Reads the expressions of one module; its subclasses read the statements around them."""

    def __init__(self, module: cst.Module, source: bytes) -> None:
        self.module = module
        # ast counts columns in UTF-8 bytes of the decoded text, whatever the file's encoding.
        encoding = module.encoding.lower().replace("_", "-")
        if encoding not in ("utf-8", "utf8"):
            source = source.decode(module.encoding).encode("utf-8")
        self.lines = source.splitlines()
        #: How many expressions deep ``_expr`` is.
        self.depth = 0

    # --- positions ------------------------------------------------------------------

    def _pos(self, twin: ast.AST | None, path: NodePath, statement: Pos | None = None) -> Pos:
        """The exact position of ``twin``; without one, the statement's and the path."""
        line = getattr(twin, "lineno", None)
        if line is None:
            base = statement or Pos(0, 0)
            return Pos(base.line, base.col, Pos.encode(path), exact=False)
        offset: int = getattr(twin, "col_offset", 0)
        raw = self.lines[line - 1] if 0 < line <= len(self.lines) else b""
        if not raw.isascii():  # ast counts bytes; a column counts characters
            offset = len(raw[:offset].decode("utf-8", "replace"))
        return Pos(line, offset)

    # --- expressions ------------------------------------------------------------------

    def _expr(self, node: cst.BaseExpression, path: NodePath, statement: Pos, twin: ast.AST | None) -> Expr:
        """``node`` as an index value; dynamic past ``_EXPRESSION_DEPTH`` levels."""
        if self.depth >= _EXPRESSION_DEPTH:
            return self._dynamic(node, self._pos(twin, path, statement))
        self.depth += 1
        try:
            return self._expression(node, path, statement, twin)
        except RecursionError:  # LibCST's evaluated_value of a thousand implicitly joined strings
            return self._dynamic(node, self._pos(twin, path, statement))
        finally:
            self.depth -= 1

    def _expression(self, node: cst.BaseExpression, path: NodePath, statement: Pos, twin: ast.AST | None) -> Expr:
        pos = self._pos(twin, path, statement)
        if isinstance(node, cst.Name):
            if node.value in _CONSTANT_NAMES:
                return Const(_CONSTANT_NAMES[node.value], pos)
            return Ref(node.value, pos)
        if isinstance(node, cst.Attribute):
            dotted = dotted_name(node)
            return Ref(dotted, pos) if dotted else self._dynamic(node, pos)
        if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
            value = node.evaluated_value
            return Const(value, pos) if value is not None else self._dynamic(node, pos)
        if isinstance(node, cst.Integer | cst.Float | cst.Imaginary):
            return Const(node.evaluated_value, pos)
        if isinstance(node, cst.Ellipsis):
            return Const(..., pos)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
            operand = node.expression
            if isinstance(operand, cst.Integer | cst.Float | cst.Imaginary):
                number = operand.evaluated_value
                return Const(-number if isinstance(node.operator, cst.Minus) else number, pos)
        if isinstance(node, cst.Call):
            return self._call(node, path, statement, pos, twin if isinstance(twin, ast.Call) else None)
        if isinstance(node, cst.List | cst.Tuple | cst.Set):
            elements = twin.elts if isinstance(twin, ast.List | ast.Tuple | ast.Set) else None
            items: list[Expr] = []
            has_star = False
            for index, element in enumerate(node.elements):
                if isinstance(element, cst.StarredElement):
                    has_star = True
                    continue
                items.append(
                    self._expr(element.value, (*path, "elements", index, "value"), statement, item_at(elements, index))
                )
            kind = {cst.List: "list", cst.Tuple: "tuple", cst.Set: "set"}[type(node)]
            return Container(kind, tuple(items), pos, has_star=has_star)  # type: ignore[arg-type]
        if isinstance(node, cst.Dict):
            ast_dict = twin if isinstance(twin, ast.Dict) else None
            keys: list[Expr | None] = []
            values: list[Expr] = []
            has_star = False
            for index, entry in enumerate(node.elements):
                if isinstance(entry, cst.DictElement):
                    keys.append(
                        self._expr(
                            entry.key,
                            (*path, "elements", index, "key"),
                            statement,
                            item_at(ast_dict.keys if ast_dict else None, index),
                        )
                    )
                    values.append(
                        self._expr(
                            entry.value,
                            (*path, "elements", index, "value"),
                            statement,
                            item_at(ast_dict.values if ast_dict else None, index),
                        )
                    )
                else:
                    has_star = True
            return Container("dict", tuple(values), pos, keys=tuple(keys), has_star=has_star)
        if isinstance(node, cst.Subscript):
            ast_subscript = twin if isinstance(twin, ast.Subscript) else None
            subject = self._expr(
                node.value, (*path, "value"), statement, ast_subscript.value if ast_subscript else None
            )
            slice_twins: Sequence[ast.AST] | None = None
            if ast_subscript is not None:
                single = len(node.slice) == 1 and not isinstance(node.slice[0].comma, cst.Comma)
                inner = ast_subscript.slice
                slice_twins = [inner] if single else (inner.elts if isinstance(inner, ast.Tuple) else None)
            parts: list[Expr] = []
            for index, part in enumerate(node.slice):
                part_path = (*path, "slice", index, "slice", "value")
                if isinstance(part.slice, cst.Index) and part.slice.star is None:
                    parts.append(self._expr(part.slice.value, part_path, statement, item_at(slice_twins, index)))
                else:
                    slice_path = part_path[:-1]  # a slice a:b is no Index: it has no .value
                    parts.append(
                        self._dynamic(part.slice, self._pos(item_at(slice_twins, index), slice_path, statement))
                    )
            return Subscript(subject, tuple(parts), pos)
        if isinstance(node, cst.BinaryOperation):
            ast_binop = twin if isinstance(twin, ast.BinOp) else None
            return BinOp(
                _BINARY_OPERATORS.get(type(node.operator), "?"),
                self._expr(node.left, (*path, "left"), statement, ast_binop.left if ast_binop else None),
                self._expr(node.right, (*path, "right"), statement, ast_binop.right if ast_binop else None),
                pos,
            )
        return self._dynamic(node, pos)

    def _call(self, node: cst.Call, path: NodePath, statement: Pos, pos: Pos, twin: ast.Call | None) -> Call:
        func = self._expr(node.func, (*path, "func"), statement, twin.func if twin else None)
        args: list[Expr] = []
        kwargs: list[tuple[str, Expr]] = []
        has_star = False
        # ast splits positional (with *x) and keyword (with **x) arguments, each in order.
        positional = keyword = 0
        for index, arg in enumerate(node.args):
            arg_path = (*path, "args", index, "value")
            if arg.keyword is not None or arg.star == "**":
                keyword_twin = item_at(twin.keywords if twin else None, keyword)
                keyword += 1
                if arg.star == "**":
                    has_star = True
                    continue
                value_twin = keyword_twin.value if isinstance(keyword_twin, ast.keyword) else None
                assert arg.keyword is not None
                kwargs.append((arg.keyword.value, self._expr(arg.value, arg_path, statement, value_twin)))
            else:
                positional_twin = item_at(twin.args if twin else None, positional)
                positional += 1
                if arg.star == "*":
                    has_star = True
                    continue
                args.append(self._expr(arg.value, arg_path, statement, positional_twin))
        return Call(func, tuple(args), tuple(kwargs), pos, has_star)

    def _dynamic(self, node: cst.CSTNode, pos: Pos) -> Dynamic:
        try:
            text = " ".join(self.module.code_for_node(node).split())
        except RecursionError:  # LibCST's code generator recurses once per level of nesting
            text = "..."
        if len(text) > _DYNAMIC_TEXT_LIMIT:
            text = text[: _DYNAMIC_TEXT_LIMIT - 3] + "..."
        return Dynamic(type(node).__name__, text, pos)


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of names, else ``None``."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):  # a loop: chains may be a thousand links long
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))
