"""Read annotations as written: forward references, module-level aliases, ``Annotated``.

``AnnotationReader`` turns a quoted annotation into the expression it holds (every node
placed at the string), follows ``Ids = list[int]`` and ``Ids: TypeAlias = ...`` to what
they stand for, and splits ``Annotated[T, a, b]`` (nested, or through aliases) into
``T`` and its metadata, as ``typing`` flattens it.  ``schema_types.TypeReader`` builds on it.
"""

from __future__ import annotations

import ast
import dataclasses

from .evaluate import Unsupported
from .index_types import BinOp, Call, Const, Container, Expr, Ref, Subscript
from .schema_fields import FieldReader
from .symbols import ValueSym
from .types import Pos

__all__ = ["ANNOTATED", "AnnotationReader", "typing_names"]

_MAX_DEPTH = 64


def typing_names(*names: str) -> frozenset[str]:
    """A typing name, also as re-exported by typing_extensions."""
    return frozenset(f"{module}.{name}" for name in names for module in ("typing", "typing_extensions"))


ANNOTATED = typing_names("Annotated")
_TYPE_ALIAS = typing_names("TypeAlias")


class AnnotationReader(FieldReader):
    """Reads quoted annotations, aliases and ``Annotated`` metadata, or raises ``Unsupported``."""

    def unquote(self, module: str, expr: Expr) -> Expr:
        """A string annotation (a forward reference) as the expression it holds."""
        if not isinstance(expr, Const) or not isinstance(expr.value, str):
            return expr
        parsed = _parse_annotation(expr.value, expr.pos)
        if parsed is None:
            raise Unsupported(module, expr.pos, f"annotation {expr.value!r} is not a valid expression")
        return parsed

    def alias(self, module: str, expr: Expr) -> tuple[str, Expr] | None:
        """What a module-level alias (``Ids = list[int]``) stands for."""
        if not isinstance(expr, Ref):
            return None
        symbol = self.linker.resolve_expr(module, expr)
        if not isinstance(symbol, ValueSym) or symbol.binding.value is None:
            return None
        annotation = symbol.binding.annotation
        if annotation is not None and self.linker.external_name(symbol.module, annotation) not in _TYPE_ALIAS:
            return None
        return symbol.module, symbol.binding.value

    def split_annotated(
        self, module: str, annotation: Expr | None, depth: int = 0
    ) -> tuple[tuple[str, Expr] | None, list[tuple[str, Expr]]]:
        """``Annotated[T, a, b]`` -> ``T`` and ``[a, b]``, through aliases and nesting."""
        if annotation is None:
            return None, []
        if depth > _MAX_DEPTH:
            raise Unsupported(module, annotation.pos, "the annotation refers to itself")
        expr = self.unquote(module, annotation)
        if isinstance(expr, Subscript) and self.linker.external_name(module, expr.value) in ANNOTATED:
            if len(expr.items) < 2:
                raise Unsupported(module, expr.pos, "Annotated[...] needs a type and metadata")
            inner, metadata = self.split_annotated(module, expr.items[0], depth + 1)
            return inner, [*metadata, *((module, item) for item in expr.items[1:])]
        alias = self.alias(module, expr)
        if alias is not None:
            inner, metadata = self.split_annotated(alias[0], alias[1], depth + 1)
            if metadata:
                return inner, metadata
        return (module, expr), []


def _parse_annotation(text: str, pos: Pos) -> Expr | None:
    """A forward reference's text as an expression, every node placed at the string."""
    from .index import IndexFailure, index_source  # the indexer: imported only for quoted annotations

    try:
        ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    index = index_source(f"_: (\n{text.strip()}\n)\n".encode(), "<annotation>", "_annotation", False)
    if isinstance(index, IndexFailure) or len(index.assignments) != 1:
        return None
    annotation = index.assignments[0].annotation
    return _moved(annotation, pos) if annotation is not None else None


def _moved(expr: Expr, pos: Pos) -> Expr:
    """``expr`` with every position replaced by ``pos``."""
    if isinstance(expr, Call):
        return dataclasses.replace(
            expr,
            func=_moved(expr.func, pos),
            args=tuple(_moved(item, pos) for item in expr.args),
            kwargs=tuple((name, _moved(item, pos)) for name, item in expr.kwargs),
            pos=pos,
        )
    if isinstance(expr, Container):
        return dataclasses.replace(
            expr,
            items=tuple(_moved(item, pos) for item in expr.items),
            keys=tuple(_moved(key, pos) if key is not None else None for key in expr.keys),
            pos=pos,
        )
    if isinstance(expr, Subscript):
        return dataclasses.replace(
            expr, value=_moved(expr.value, pos), items=tuple(_moved(item, pos) for item in expr.items), pos=pos
        )
    if isinstance(expr, BinOp):
        return dataclasses.replace(expr, left=_moved(expr.left, pos), right=_moved(expr.right, pos), pos=pos)
    return dataclasses.replace(expr, pos=pos)
