"""Translate annotations into nodes shaped like pydantic's core schema, without importing them.

Each annotation becomes a ``Node`` (nullable, union, literal, list, ...), with the
constraints and ``Field`` metadata of ``Annotated`` on it (read by ``schema_fields``),
the way pydantic's ``GenerateSchema`` builds its core schema; ``schema_json`` then
writes nodes as JSON.  Quoted annotations (forward references) are parsed here too.
A model or an enum becomes a ``$ref`` node, whose definition the schema being built
provides (``schema_models.SchemaBuilder`` extends ``TypeReader`` with it).  A construct
outside the subset raises ``Unsupported`` where it is written.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator

from .evaluate import MISSING, Evaluator, Missing, Unsupported, describe
from .resolve import ClassSym, ExternalSym, Linker, Symbol, UnknownSym, ValueSym
from .schema_defs import AnnotatedRef
from .schema_enums import enum_member, enum_of, is_enum
from .schema_fields import FieldReader
from .schema_json import Node, field_updates, to_json
from .types import BinOp, Call, Const, Container, Expr, Pos, Ref, Subscript

__all__ = ["BASE_MODEL", "TypeReader", "Where", "is_model"]

_MAX_DEPTH = 64

#: Where a model or enum is used: the module and the position of the name.
Where = tuple[str, Pos]


# --- The names of the subset, as the linker spells external symbols ----------------


def _typing(*names: str) -> frozenset[str]:
    """A typing name, also as re-exported by typing_extensions."""
    return frozenset(f"{module}.{name}" for name in names for module in ("typing", "typing_extensions"))


_OPTIONAL = _typing("Optional")
_UNION = _typing("Union")
_LITERAL = _typing("Literal")
_ANNOTATED = _typing("Annotated")
_CLASSVAR = _typing("ClassVar")
_TYPE_ALIAS = _typing("TypeAlias")
BASE_MODEL = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel"})
_CONTEXT = "skillc.ToolContext"
_SCALARS = {
    "builtins.str": "str",
    "builtins.int": "int",
    "builtins.float": "float",
    "builtins.bool": "bool",
    "builtins.bytes": "bytes",
    "datetime.datetime": "datetime",
    "datetime.date": "date",
    "datetime.time": "time",
    "datetime.timedelta": "timedelta",
    "uuid.UUID": "uuid",
    "decimal.Decimal": "decimal",
    "types.NoneType": "none",
    **{name: "any" for name in _typing("Any")},
}
_COLLECTIONS = {
    "builtins.list": "list",
    "builtins.set": "set",
    "builtins.frozenset": "set",
    "builtins.tuple": "tuple",
    "builtins.dict": "dict",
    "collections.abc.Sequence": "list",
    **{name: "list" for name in _typing("List", "Sequence")},
    **{name: "set" for name in _typing("Set", "FrozenSet")},
    **{name: "tuple" for name in _typing("Tuple")},
    **{name: "dict" for name in _typing("Dict")},
}


def is_model(linker: Linker, cls: ClassSym) -> bool:
    """Whether ``cls`` derives from ``pydantic.BaseModel``."""
    return any(linker.is_subclass(cls, name) for name in BASE_MODEL)


class TypeReader(FieldReader):
    """Reads an annotation into the node pydantic's core schema holds for it, or raises ``Unsupported``.

    ``Unsupported`` names the construct, where it is written, whenever the node could differ
    from pydantic's; ``Field(...)`` calls are read by ``FieldReader``, constraints and metadata included.
    The ``$ref`` nodes of models and enums come from ``model_node`` and ``enum_node``, which
    the schema being built provides.
    """

    def __init__(self, linker: Linker, values: Evaluator) -> None:
        super().__init__(linker, values)
        #: ``Annotated`` metadata put on a ``$ref``: checked once every definition is known.
        self.annotated_refs: list[AnnotatedRef] = []

    def model_node(self, cls: ClassSym, where: Where) -> Node:
        """The ``$ref`` node of a project model, its definition made part of the schema."""
        raise NotImplementedError

    def enum_node(self, cls: ClassSym, where: Where) -> Node:
        """The ``$ref`` node of a project enum, its definition made part of the schema."""
        raise NotImplementedError

    # --- types ---------------------------------------------------------------------

    def type_node(self, module: str, expr: Expr, depth: int = 0) -> Node:
        """The node of one annotation; ``Unsupported`` names what is outside the subset."""
        if depth > _MAX_DEPTH:
            raise Unsupported(module, expr.pos, "the annotation nests too deep or refers to itself")
        expr = self.unquote(module, expr)
        if isinstance(expr, Const) and expr.value is None:
            return Node("none")
        if self.is_union(module, expr):
            return self.union_node(module, expr, depth)
        if isinstance(expr, Subscript):
            return self.generic_node(module, expr, depth)
        if isinstance(expr, Ref):
            return self.named_node(module, expr, depth)
        raise Unsupported(module, expr.pos, f"type {describe(expr)} is outside the static schema subset")

    def named_node(self, module: str, expr: Ref, depth: int) -> Node:
        symbol = self.linker.resolve_expr(module, expr)
        if isinstance(symbol, ExternalSym):
            kind = _SCALARS.get(symbol.qualname) or _COLLECTIONS.get(symbol.qualname)
            if kind in ("list", "set"):
                return Node(kind, args=(Node("any"),))
            if kind == "tuple":
                return Node("tuple", args=(Node("any"),), variadic=True)
            if kind == "dict":
                return Node("dict", args=(Node("str"), Node("any")))
            if kind is not None:
                return Node(kind)
            raise Unsupported(
                module,
                expr.pos,
                f"type {expr.dotted} ({symbol.qualname}, from outside the project) is not in the static schema subset",
            )
        if isinstance(symbol, ClassSym):
            if is_enum(self.linker, symbol):
                return self.enum_node(symbol, (module, expr.pos))
            if is_model(self.linker, symbol):
                return self.model_node(symbol, (module, expr.pos))
            raise Unsupported(module, expr.pos, f"class {expr.dotted} is neither a pydantic model nor an Enum")
        alias = self.alias(module, expr)
        if alias is not None:
            return self.type_node(alias[0], alias[1], depth + 1)
        if isinstance(symbol, UnknownSym):
            raise Unsupported(module, expr.pos, f"{expr.dotted} cannot be read statically: {symbol.reason}")
        raise Unsupported(
            module, expr.pos, f"{_describe_symbol(expr.dotted, symbol)} is not a type the compiler can read"
        )

    def union_node(self, module: str, expr: Expr, depth: int) -> Node:
        """``Optional``/``Union``/``|``, flattened and deduplicated as ``typing`` does."""
        members: list[Node] = []
        nullable = False
        for item_module, item in self.union_members(module, expr, depth):
            node = self.type_node(item_module, item, depth + 1)
            if node == Node("none"):  # Annotated[None, Field(...)] is a member of its own
                nullable = True
            elif node.identity not in {member.identity for member in members}:
                members.append(node)
        if not members:
            return Node("none")
        inner = members[0] if len(members) == 1 else Node("union", args=tuple(members))
        return Node("nullable", args=(inner,)) if nullable else inner

    def union_members(self, module: str, expr: Expr, depth: int) -> Iterator[tuple[str, Expr]]:
        if depth > _MAX_DEPTH:
            raise Unsupported(module, expr.pos, "the annotation nests too deep or refers to itself")
        expr = self.unquote(module, expr)
        if isinstance(expr, BinOp) and expr.op == "|":
            yield from self.union_members(module, expr.left, depth + 1)
            yield from self.union_members(module, expr.right, depth + 1)
            return
        if isinstance(expr, Subscript):
            head = self.linker.external_name(module, expr.value)
            if head in _OPTIONAL:
                if len(expr.items) != 1:
                    raise Unsupported(module, expr.pos, "Optional[...] takes one type")
                yield from self.union_members(module, expr.items[0], depth + 1)
                yield module, Const(None, expr.pos)
                return
            if head in _UNION:
                for item in expr.items:
                    yield from self.union_members(module, item, depth + 1)
                return
        alias = self.alias(module, expr)
        if alias is not None and self.is_union(alias[0], alias[1]):
            yield from self.union_members(alias[0], alias[1], depth + 1)
            return
        yield module, expr

    def is_union(self, module: str, expr: Expr) -> bool:
        expr = self.unquote(module, expr)
        if isinstance(expr, BinOp):
            return expr.op == "|"
        return isinstance(expr, Subscript) and self.linker.external_name(module, expr.value) in _OPTIONAL | _UNION

    def is_context(self, module: str, annotation: Expr) -> bool:
        """``ToolContext``, ``ToolContext | None`` or ``Optional[ToolContext]``: not an input."""
        names = []
        for item_module, item in self.union_members(module, annotation, 0):
            none = isinstance(item, Const) and item.value is None
            names.append("None" if none else self.linker.external_name(item_module, item) or "")
        return _CONTEXT in names and all(name in (_CONTEXT, "None") for name in names)

    def is_classvar(self, module: str, annotation: Expr) -> bool:
        expr = self.unquote(module, annotation)
        head = expr.value if isinstance(expr, Subscript) else expr
        return self.linker.external_name(module, head) in _CLASSVAR

    def generic_node(self, module: str, expr: Subscript, depth: int) -> Node:
        head = self.linker.external_name(module, expr.value)
        items = expr.items
        if head in _LITERAL:
            return self.literal_node(module, expr)
        if head in _ANNOTATED:
            return self.annotated_node(module, expr, depth)
        kind = _COLLECTIONS.get(head or "")
        if kind in ("list", "set") and len(items) == 1:
            return Node(kind, args=(self.type_node(module, items[0], depth + 1),))
        if kind == "tuple":
            if len(items) == 2 and isinstance(items[1], Const) and items[1].value is ...:
                return Node("tuple", args=(self.type_node(module, items[0], depth + 1),), variadic=True)
            if len(items) == 1 and isinstance(items[0], Container) and items[0].kind == "tuple" and not items[0].items:
                return Node("tuple")
            return Node("tuple", args=tuple(self.type_node(module, item, depth + 1) for item in items))
        if kind == "dict" and len(items) == 2:
            key = self.type_node(module, items[0], depth + 1)
            if key != Node("str"):
                raise Unsupported(module, items[0].pos, "dict keys other than plain str are outside the static subset")
            return Node("dict", args=(key, self.type_node(module, items[1], depth + 1)))
        raise Unsupported(module, expr.pos, f"type {describe(expr)} is outside the static schema subset")

    def literal_node(self, module: str, expr: Subscript) -> Node:
        """``Literal[...]``: values deduplicated by value and type, as ``typing`` does."""
        seen: list[tuple[object, object]] = []
        for item in expr.items:
            value: object = MISSING
            kind: object = None
            if isinstance(item, Const) and (item.value is None or isinstance(item.value, str | bytes | int | bool)):
                value, kind = item.value, type(item.value)
            elif isinstance(item, Ref):
                value, kind = enum_member(self.linker, module, item), enum_of(self.linker, module, item)
            if isinstance(value, Missing):
                raise Unsupported(module, item.pos, f"Literal value {describe(item)} is not a literal or enum member")
            if (kind, value) not in seen:  # an enum member is of its enum's type, not its value's
                seen.append((kind, value))
        return Node("literal", values=tuple(to_json(value, module, expr) for _, value in seen))

    def annotated_node(self, module: str, expr: Subscript, depth: int) -> Node:
        """``Annotated[T, Field(...)]`` inside a type: constraints and schema updates on ``T``."""
        base, metadata = self.split_annotated(module, expr, depth + 1)
        assert base is not None
        node = self.type_node(base[0], base[1], depth + 1)
        extras = 0
        for item_module, item in metadata:
            call = self.field_call(item_module, item)
            for name in call.attributes:
                if name not in ("title", "description", "examples", "deprecated", "json_schema_extra"):
                    raise Unsupported(
                        item_module, item.pos, f"Field({name}=...) inside a type has no effect pydantic documents"
                    )
            for name, value, where in call.constraints:
                node = self.constrain(node, name, value, where, item_module)
            extra = call.attributes.get("json_schema_extra")
            extras += extra is not None
            if extras > 1:
                raise Unsupported(item_module, item.pos, "two json_schema_extra inside one Annotated")
            updates = field_updates(call.attributes)
            if node.kind == "ref" and (updates or extra):
                self.annotated_refs.append(AnnotatedRef(node.ref, item_module, item.pos))
            node = dataclasses.replace(
                node,
                updates={**node.updates, **updates},
                extra={**node.extra, **(extra if isinstance(extra, dict) else {})},
                origin=(module, expr.pos.line, expr.pos.col),
            )
        return node

    # --- reading annotations ---------------------------------------------------------

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
        if isinstance(expr, Subscript) and self.linker.external_name(module, expr.value) in _ANNOTATED:
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
    from .index import IndexFailure, index_source  # LibCST, imported only for quoted annotations

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


def _describe_symbol(dotted: str, symbol: Symbol | None) -> str:
    if symbol is None:
        return f"{dotted} (not defined)"
    return f"{dotted} ({type(symbol).__name__.removesuffix('Sym').lower()})"
