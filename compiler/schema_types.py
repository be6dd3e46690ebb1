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

import dataclasses
from collections.abc import Iterator

from .evaluate import MISSING, Evaluator, Missing, Unsupported, describe
from .index_types import BinOp, Call, Const, Container, Expr, ImportBinding, Ref, Subscript
from .resolve import Linker
from .schema_annotations import ANNOTATED, AnnotationReader, typing_names
from .schema_defs import AnnotatedRef
from .schema_enums import enum_member, enum_of, is_enum
from .schema_json import CallableDiscriminator, Node, field_updates, to_json
from .schema_named import named_type
from .symbols import ClassSym, ExternalSym, Symbol, UnknownSym
from .types import Pos

__all__ = [
    "BASE_MODEL",
    "BASE_MODEL_MEMBERS",
    "ROOT_MODEL",
    "TypeReader",
    "Where",
    "generic_base",
    "generic_model",
    "is_model",
]

#: Other frameworks' call contexts, by their package and name (FastMCP's Context, pydantic-ai's RunContext,
#: the OpenAI Agents SDK's RunContextWrapper): a tool ported with one keeps it as a parameter.
_FOREIGN_CONTEXTS = frozenset({"Context", "RunContext", "RunContextWrapper"})
_FOREIGN_FRAMEWORKS = frozenset({"mcp", "fastmcp", "pydantic_ai", "agents"})

_MAX_DEPTH = 64

#: Where a model or enum is used: the module and the position of the name.
Where = tuple[str, Pos]


# --- The names of the subset, as the linker spells external symbols ----------------


_OPTIONAL = typing_names("Optional")
_UNION = typing_names("Union")
_LITERAL = typing_names("Literal")
_CLASSVAR = typing_names("ClassVar")
_JSON = frozenset({"pydantic.Json", "pydantic.types.Json"})
#: ``Secret[T]`` validates and shows as ``T``; ``ImportString[T]`` is a dotted name whatever ``T``.
_SECRET = frozenset({"pydantic.Secret", "pydantic.types.Secret"})
_IMPORT_STRING = frozenset({"pydantic.ImportString", "pydantic.types.ImportString"})
#: condate's bounds check values, they never show in the schema: any expression will do.
_DATE_BOUNDS = frozenset({"gt", "ge", "lt", "le"})
_CON = {
    f"{module}.{name}": name
    for module in ("pydantic", "pydantic.types")
    for name in (
        "conint",
        "confloat",
        "condecimal",
        "constr",
        "conbytes",
        "conlist",
        "conset",
        "confrozenset",
        "condate",
    )
}
# The parameters of pydantic's con* functions; the first of a collection's is its item type.
_NUMBER_KEYWORDS = ("strict", "gt", "ge", "lt", "le", "multiple_of")
_CON_KEYWORDS = {
    "conint": ("int", _NUMBER_KEYWORDS),
    "confloat": ("float", (*_NUMBER_KEYWORDS, "allow_inf_nan")),
    "condecimal": ("decimal", (*_NUMBER_KEYWORDS, "max_digits", "decimal_places", "allow_inf_nan")),
    "constr": ("str", ("strip_whitespace", "to_upper", "to_lower", "strict", "min_length", "max_length", "pattern")),
    "conbytes": ("bytes", ("min_length", "max_length", "strict")),
    "conlist": ("list", ("min_length", "max_length")),
    "conset": ("set", ("min_length", "max_length")),
    "confrozenset": ("set", ("min_length", "max_length")),
    "condate": ("date", ("strict",)),
}
# Field() attributes that mean something inside a type (Tag(...) is read as one too).
_INNER_ATTRIBUTES = frozenset(
    {"title", "description", "examples", "deprecated", "json_schema_extra", "discriminator", "tag"}
)
# Kinds a dict key may be (pydantic shows the others' constraints as propertyNames).
_KEY_KINDS = frozenset({"str", "int", "float", "bool", "literal", "uuid", "date", "datetime", "time", "decimal"})
BASE_MODEL = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel"})
ROOT_MODEL = frozenset({"pydantic.RootModel", "pydantic.root_model.RootModel"})
#: What an instance of any pydantic v2 model has besides its own fields and class attributes
#: (every minor version skillc supports; v1's names among them, deprecated), dunders aside.
BASE_MODEL_MEMBERS = frozenset(
    {
        "construct",
        "copy",
        "dict",
        "from_orm",
        "json",
        "model_computed_fields",
        "model_config",
        "model_construct",
        "model_copy",
        "model_dump",
        "model_dump_json",
        "model_extra",
        "model_fields",
        "model_fields_set",
        "model_json_schema",
        "model_parametrized_name",
        "model_post_init",
        "model_rebuild",
        "model_validate",
        "model_validate_json",
        "model_validate_strings",
        "parse_file",
        "parse_obj",
        "parse_raw",
        "schema",
        "schema_json",
        "update_forward_refs",
        "validate",
    }
)
#: pydantic's model of one value (``class Ids(RootModel[list[int]])``): no static schema reads it.
ROOT_MODEL = frozenset({"pydantic.RootModel", "pydantic.root_model.RootModel"})
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
    **{name: "any" for name in typing_names("Any")},
}
_COLLECTIONS = {
    "builtins.list": "list",
    "builtins.set": "set",
    "builtins.frozenset": "set",
    "builtins.tuple": "tuple",
    "builtins.dict": "dict",
    "collections.abc.Sequence": "list",
    **{name: "list" for name in typing_names("List", "Sequence")},
    **{name: "set" for name in typing_names("Set", "FrozenSet")},
    **{name: "tuple" for name in typing_names("Tuple")},
    **{name: "dict" for name in typing_names("Dict")},
}


def is_model(linker: Linker, cls: ClassSym) -> bool:
    """Whether ``cls`` derives from ``pydantic.BaseModel``."""
    return any(linker.is_subclass(cls, name) for name in BASE_MODEL)


def is_root_model(linker: Linker, cls: ClassSym) -> bool:
    """Whether ``cls`` derives from ``pydantic.RootModel`` (a base that is mostly subscripted: ``RootModel[list[int]]``)."""
    for item in linker.mro(cls):
        if isinstance(item, ExternalSym):
            if item.qualname in ROOT_MODEL:
                return True
            continue
        for base in item.info.bases:
            if isinstance(base, Subscript):
                symbol = linker.resolve_base(item, base.value)
                if isinstance(symbol, ExternalSym) and symbol.qualname in ROOT_MODEL:
                    return True
    return False


def generic_model(linker: Linker, module: str, expr: Expr) -> ClassSym | None:
    """The project model ``expr`` parametrizes, when it is one subscripted (``Page[Order]``):
    a generic model, whose parametrized class the static schema does not read."""
    if not isinstance(expr, Subscript):
        return None
    symbol = linker.resolve_expr(module, expr.value)
    return symbol if isinstance(symbol, ClassSym) and is_model(linker, symbol) else None


def generic_base(linker: Linker, cls: ClassSym) -> tuple[Expr, ClassSym] | None:
    """The first base of ``cls`` that parametrizes a project model (``class Input(Page[Order])``), if one does."""
    for base in cls.info.bases:
        if not isinstance(base, Subscript):
            continue
        with linker.class_scope(linker.enclosing(cls), cls.info.pos, deferred=False):
            found = generic_model(linker, cls.module, base)
        if found is not None:
            return base, found
    return None


class TypeReader(AnnotationReader):
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

    def class_node(self, cls: ClassSym, where: Where) -> Node | None:
        """The ``$ref`` node of a project TypedDict, NamedTuple or dataclass, else ``None``."""
        raise NotImplementedError

    def discriminate(self, node: Node, name: str | CallableDiscriminator, module: str, pos: Pos) -> Node:
        """``node`` (a union of models) as the tagged union ``Field(discriminator=name)`` makes it,
        or (a union of tagged members) as ``Discriminator(function)`` makes it."""
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
        if isinstance(expr, Call):
            return self.call_node(module, expr, depth)
        raise Unsupported(module, expr.pos, f"type {describe(expr)} is outside the static schema subset")

    def call_node(self, module: str, expr: Call, depth: int) -> Node:
        """``conint(gt=0)``, ``constr(pattern=...)``, ``conlist(int, min_length=1)``, ...:
        the type and the constraints pydantic's function puts on it."""
        function = _CON.get(self.linker.external_name(module, expr.func) or "")
        if function is None or expr.has_star:
            raise Unsupported(module, expr.pos, f"type {describe(expr)} is outside the static schema subset")
        kind, keywords = _CON_KEYWORDS[function]
        if kind in ("list", "set"):
            item = expr.args[0] if expr.args else expr.keyword("item_type")
            if item is None or len(expr.args) > 1:
                raise Unsupported(module, expr.pos, f"{function}(...) takes its item type first")
            node = Node(kind, args=(self.type_node(module, item, depth + 1),))
            rest = Call(expr.func, (), tuple(pair for pair in expr.kwargs if pair[0] != "item_type"), expr.pos)
            values = self.call_arguments(module, rest, (), keywords)
        elif function == "condate":
            node = Node(kind)
            rest = Call(expr.func, (), tuple(pair for pair in expr.kwargs if pair[0] not in _DATE_BOUNDS), expr.pos)
            values = self.call_arguments(module, rest, (), keywords)
        else:
            node = Node(kind)
            values = self.call_arguments(module, expr, (), keywords)
        if function != "constr" and values.get("min_length") == 0:  # annotated_types.Len(0): no bound
            del values["min_length"]
        for name, value in values.items():
            if value is not None:
                node = self.constrain(node, name, value, expr, module)
        return node

    def named_node(self, module: str, expr: Ref, depth: int) -> Node:
        head = expr.dotted.split(".", 1)[0]
        binding = self.linker.binding(module, head, warn=False)
        if binding is not None and isinstance(binding.item, ImportBinding) and binding.item.typing_only:
            raise Unsupported(
                module,
                expr.pos,
                f"{head} is imported only under `if TYPE_CHECKING:`, so it does not exist when the module "
                "runs, and building the tool's schema there fails",
                hint=f"import {head} outside the `if TYPE_CHECKING:` block: its type is part of the tool's input",
            )
        symbol = self.linker.resolve_expr(module, expr)
        if isinstance(symbol, ExternalSym):
            named = named_type(symbol.qualname)
            if named is not None:
                return Node(named[0], constraints=dict(named[1]))
            if symbol.qualname in _JSON:
                return Node("json")
            kind = _SCALARS.get(symbol.qualname) or _COLLECTIONS.get(symbol.qualname)
            if kind in ("list", "set"):
                return Node(kind, args=(Node("any"),))
            if kind == "tuple":
                return Node("tuple", args=(Node("any"),), variadic=True)
            if kind == "dict":
                return Node("dict", args=(Node("str"), Node("any")))
            if kind is not None:
                return Node(kind)
            package, name = symbol.qualname.partition(".")[0], symbol.qualname.rpartition(".")[2]
            if package in _FOREIGN_FRAMEWORKS and name in _FOREIGN_CONTEXTS:
                raise Unsupported(
                    module,
                    expr.pos,
                    f"{expr.dotted} ({symbol.qualname}) is another framework's context, which the runtime never "
                    "passes: the parameter would be an argument the model must send",
                    hint="annotate it with skillc's ToolContext (`ctx: ToolContext`): ctx.logger logs, ctx.state "
                    "and ctx.data keep what tools keep",
                )
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
            node = self.class_node(symbol, (module, expr.pos))
            if node is not None:
                return node
            if is_root_model(self.linker, symbol):
                raise Unsupported(
                    module,
                    expr.pos,
                    f"class {expr.dotted} is a pydantic RootModel, which the static schema subset does not cover",
                )
            raise Unsupported(
                module,
                expr.pos,
                f"class {expr.dotted} is not a pydantic model, an Enum, a TypedDict, a NamedTuple or a dataclass",
            )
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
        if head in ANNOTATED:
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
            if key.kind not in _KEY_KINDS and not (key.kind == "ref" and self.is_enum_type(module, items[0])):
                raise Unsupported(
                    module, items[0].pos, f"dict keys of type {describe(items[0])} are outside the static subset"
                )
            return Node("dict", args=(key, self.type_node(module, items[1], depth + 1)))
        if head in _JSON and len(items) == 1:
            return Node("json", args=(self.type_node(module, items[0], depth + 1),))
        if head in _IMPORT_STRING and len(items) == 1:
            return Node("import-string")
        if head in _SECRET and len(items) == 1:
            inner = self.type_node(module, items[0], depth + 1)
            if inner.kind in ("ref", "nullable", "union", "tagged"):
                raise Unsupported(module, items[0].pos, f"Secret[{describe(items[0])}]: only a scalar inside a Secret")
            return Node("secret-of", args=(inner,))
        raise Unsupported(module, expr.pos, f"type {describe(expr)} is outside the static schema subset")

    def is_enum_type(self, module: str, expr: Expr, depth: int = 0) -> bool:
        """Whether ``expr`` names a project enum (through quotes and aliases)."""
        expr = self.unquote(module, expr)
        alias = self.alias(module, expr)
        if alias is not None and depth < _MAX_DEPTH:
            return self.is_enum_type(alias[0], alias[1], depth + 1)
        symbol = self.linker.resolve_expr(module, expr)
        return isinstance(symbol, ClassSym) and is_enum(self.linker, symbol)

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
        for (item_module, item), call in zip(metadata, self.metadata_calls(metadata), strict=True):
            for name in call.attributes:
                if name not in _INNER_ATTRIBUTES:
                    raise Unsupported(
                        item_module, item.pos, f"Field({name}=...) inside a type has no effect pydantic documents"
                    )
            for name, value, where in call.constraints:
                node = self.constrain(node, name, value, where, item_module)
            discriminator = call.attributes.get("discriminator")
            if isinstance(discriminator, str | CallableDiscriminator):
                node = self.discriminate(node, discriminator, item_module, item.pos)
            tag = call.attributes.get("tag")
            if isinstance(tag, str):
                node = dataclasses.replace(node, tag=tag)
            extra = call.attributes.get("json_schema_extra")
            extras += extra is not None
            if extras > 1:
                raise Unsupported(item_module, item.pos, "two json_schema_extra inside one Annotated")
            updates = field_updates(call.attributes)
            if (updates or extra) and node.kind.startswith(("ipv4", "ipv6", "ipvany")):
                raise Unsupported(
                    item_module, item.pos, "Field(...) metadata on an IP address type inside a type: pydantic drops it"
                )
            if node.kind == "ref" and (updates or extra):
                self.annotated_refs.append(AnnotatedRef(node.ref, item_module, item.pos))
            node = dataclasses.replace(
                node,
                updates={**node.updates, **updates},
                extra={**node.extra, **(extra if isinstance(extra, dict) else {})},
                origin=(module, expr.pos.line, expr.pos.col),
            )
        return node


def _describe_symbol(dotted: str, symbol: Symbol | None) -> str:
    if symbol is None:
        return f"{dotted} (not defined)"
    return f"{dotted} ({type(symbol).__name__.removesuffix('Sym').lower()})"
