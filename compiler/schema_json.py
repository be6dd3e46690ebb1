"""pydantic's JSON for annotation nodes and literal values, as pure functions.

A field's annotation is first read into a ``Node`` shaped like the core schema pydantic
builds for it (``schema_types``); here nodes become JSON with the keys in the order
pydantic's ``GenerateJsonSchema`` inserts them, and literal values (defaults, examples,
``json_schema_extra``) are encoded as ``to_jsonable_python`` would encode them.
"""

from __future__ import annotations

import dataclasses
import json
import math
import typing
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from .evaluate import Unsupported
from .index_types import Expr
from .schema_named import FORMAT_JSON
from .schema_versions import DECIMAL_PATTERN, SORTS_SET_DEFAULTS, decimal_pattern
from .types import Pos

__all__ = [
    "VALIDATIONS",
    "CallableDiscriminator",
    "Factory",
    "FieldCall",
    "JsonDict",
    "Node",
    "deduplicate",
    "encode_default",
    "field_alias",
    "field_updates",
    "json_type_of",
    "merge_fields",
    "node_json",
    "plain_json",
    "to_json",
]

JsonDict: TypeAlias = dict[str, Any]

_SCALAR_JSON: dict[str, JsonDict] = {
    "str": {"type": "string"},
    "bytes": {"type": "string", "format": "binary"},
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "none": {"type": "null"},
    "any": {},
    "datetime": {"type": "string", "format": "date-time"},
    "date": {"type": "string", "format": "date"},
    "time": {"type": "string", "format": "time"},
    "timedelta": {"type": "string", "format": "duration"},
    "uuid": {"type": "string", "format": "uuid"},
    **FORMAT_JSON,
}
_NULL: JsonDict = {"type": "null"}

# Constraint -> JSON keyword, per kind, in the order pydantic writes them
# (GenerateJsonSchema.ValidationsMapping).
_NUMERIC = (
    ("multiple_of", "multipleOf"),
    ("le", "maximum"),
    ("ge", "minimum"),
    ("lt", "exclusiveMaximum"),
    ("gt", "exclusiveMinimum"),
)
_STRING = (("min_length", "minLength"), ("max_length", "maxLength"), ("pattern", "pattern"))
_BYTES = (("min_length", "minLength"), ("max_length", "maxLength"))
_ARRAY = (("min_length", "minItems"), ("max_length", "maxItems"))
_OBJECT = (("min_length", "minProperties"), ("max_length", "maxProperties"))
VALIDATIONS = {
    "int": _NUMERIC,
    "float": _NUMERIC,
    "decimal": _NUMERIC,
    "str": _STRING,
    "bytes": _BYTES,
    "list": _ARRAY,
    "set": _ARRAY,
    "tuple": _ARRAY,
    "dict": _OBJECT,
}


# --- Values ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Factory:
    """A ``default_factory``: pydantic's schema omits the default, it never calls it."""


@dataclass(frozen=True)
class CallableDiscriminator:
    """``Discriminator(function)``: the union's members are told apart by their ``Tag``s,
    which the schema lists without naming a property."""


@dataclass
class FieldCall:
    """One ``Field(...)``: its attributes in the order given, and its constraints."""

    attributes: dict[str, object]
    constraints: list[tuple[str, object, Expr]]
    #: A validator (``AfterValidator(check)``) rather than a ``Field``: no attribute, no constraint.
    validator: bool = False


@dataclass
class Node:
    """An annotation as pydantic's core schema sees it.

    ``kind`` is a scalar (``str``, ``int``, ``decimal``, ...), a string of a fixed format
    (``uri``, ``secret``, ``ipv4``, ... of ``schema_named``), a collection (``list``,
    ``set``, ``tuple``, ``dict``), ``json`` (``Json[T]``), ``literal``, ``nullable``,
    ``union``, ``secret-of`` (``Secret[T]``), ``tagged`` (a discriminated union: ``values`` holds (tag, member index),
    ``ref`` the property name, empty for a callable discriminator), or ``ref`` (a model, enum or other class under ``$defs``).  ``updates``/``extra`` come from a ``Field`` inside
    ``Annotated``; ``origin`` tells two such annotations apart, as ``typing`` does.
    """

    kind: str
    args: tuple[Node, ...] = ()
    variadic: bool = False
    values: tuple[object, ...] = ()
    ref: str = ""
    constraints: dict[str, object] = field(default_factory=dict)
    updates: dict[str, object] = field(default_factory=dict)
    extra: dict[str, object] = field(default_factory=dict)
    origin: tuple[str, int, int] | None = None
    #: ``Annotated[T, Tag("x")]``: the member's tag in a union with a callable discriminator.
    tag: str | None = None

    @property
    def identity(self) -> str:
        """What ``typing`` compares to deduplicate union members (``1`` is not ``True`` here)."""
        return json.dumps(dataclasses.asdict(self), sort_keys=True, default=str)

    @property
    def titled(self) -> bool:
        """Whether a field of this type gets a title (pydantic: not when it is a ``$ref``)."""
        if self.kind == "ref":
            return False
        return self.args[0].titled if self.kind == "nullable" else True


# --- Nodes as pydantic writes them ----------------------------------------------------


def node_json(node: Node) -> JsonDict:
    """pydantic's JSON for one node, keys in pydantic's order."""
    schema = _kind_json(node)
    for name, keyword in VALIDATIONS.get(node.kind, ()) if node.kind != "decimal" else ():
        if name in node.constraints:
            schema[keyword] = node.constraints[name]
    schema = {**schema, **node.updates}
    schema.update(node.extra)
    return schema


def _kind_json(node: Node) -> JsonDict:
    kind = node.kind
    if kind == "nullable":
        inner = node_json(node.args[0])
        return dict(_NULL) if inner == _NULL else _union_of([inner, dict(_NULL)])
    if kind == "union":
        members = [node_json(item) for item in node.args]
        return members[0] if len(members) == 1 else _union_of(members)
    if kind == "ref":
        return {"$ref": node.ref}
    if kind == "literal":
        return _literal_json(list(node.values))
    if kind == "decimal":
        number: JsonDict = {"type": "number"}
        for name, keyword in _NUMERIC:
            if name in node.constraints:
                number[keyword] = float(node.constraints[name])  # type: ignore[arg-type]
        text: JsonDict = {"type": "string"}
        if DECIMAL_PATTERN:
            text["pattern"] = decimal_pattern(
                node.constraints.get("max_digits"), node.constraints.get("decimal_places")
            )
        return {"anyOf": [number, text]}
    if kind in ("list", "set"):
        items = node_json(node.args[0])
        return (
            {"type": "array", "items": items}
            if kind == "list"
            else {"type": "array", "uniqueItems": True, "items": items}
        )
    if kind == "tuple":
        return _tuple_json(node)
    if kind == "dict":
        return _dict_json(node)
    if kind == "json":
        inner = node_json(node.args[0]) if node.args else {}
        return {"type": "string", "contentMediaType": "application/json", "contentSchema": inner}
    if kind == "tagged":
        return _tagged_json(node)
    if kind == "secret-of":  # Secret[T]: T's schema, no constraint of its own
        return node_json(node.args[0])
    return dict(_SCALAR_JSON[kind])


def _dict_json(node: Node) -> JsonDict:
    """``_common_dict_schema``: keys other than plain strings show as ``propertyNames``."""
    schema: JsonDict = {"type": "object"}
    keys = dict(node_json(node.args[0]))
    pattern = None
    if "$ref" not in keys:
        pattern = keys.pop("pattern", None)
        keys.pop("title", None)
    values = dict(node_json(node.args[1]))
    values.pop("title", None)
    if values or pattern is not None:
        if pattern is None:
            schema["additionalProperties"] = values
        else:
            schema["patternProperties"] = {pattern: values}
    else:
        schema["additionalProperties"] = True
    if (keys.get("type") == "string" and len(keys) > 1) or "$ref" in keys:
        keys.pop("type", None)
        schema["propertyNames"] = keys
    return schema


def _tagged_json(node: Node) -> JsonDict:
    """``tagged_union_schema``: one choice per tag (``values`` holds (tag, member index))."""
    pairs = typing.cast("tuple[tuple[object, int], ...]", node.values)
    generated = {str(tag): node_json(node.args[index]) for tag, index in pairs}
    schema: JsonDict = {"oneOf": deduplicate(list(generated.values()))}
    if node.ref:  # a property name; a callable discriminator has none to show
        schema["discriminator"] = {
            "propertyName": node.ref,
            "mapping": {tag: choice.get("$ref", choice) for tag, choice in generated.items()},
        }
    return schema


def _tuple_json(node: Node) -> JsonDict:
    if node.variadic:
        return {"type": "array", "items": node_json(node.args[0])}
    schema: JsonDict = {"type": "array"}
    if node.args:
        schema["prefixItems"] = [node_json(item) for item in node.args]
    schema["minItems"] = len(node.args)
    schema["maxItems"] = len(node.args)
    return schema


def hashable(value: object) -> object:
    """``_make_json_hashable``: how pydantic tells equal schemas apart (``1 == True``)."""
    if isinstance(value, dict):
        return tuple(sorted((key, hashable(item)) for key, item in value.items()))
    if isinstance(value, list):
        return tuple(hashable(item) for item in value)
    return value


def deduplicate(schemas: list[JsonDict]) -> list[JsonDict]:
    """Equal schemas once each, as pydantic tells them apart (``hashable``)."""
    return list({hashable(schema): schema for schema in schemas}.values())


def _union_of(schemas: list[JsonDict]) -> JsonDict:
    """``get_union_of_schemas`` (``anyOf`` format): flattened and deduplicated."""
    members: list[JsonDict] = []
    for schema in schemas:
        if len(schema) == 1 and "anyOf" in schema:
            members.extend(schema["anyOf"])
        else:
            members.append(schema)
    members = deduplicate(members)
    return members[0] if len(members) == 1 else {"anyOf": members}


def json_type_of(values: list[object]) -> str | None:
    types = {type(value) for value in values}
    return {
        frozenset({str}): "string",
        frozenset({int}): "integer",
        frozenset({float}): "number",
        frozenset({bool}): "boolean",
        frozenset({list}): "array",
        frozenset({type(None)}): "null",
    }.get(frozenset(types))


def _literal_json(values: list[object]) -> JsonDict:
    schema: JsonDict = {"const": values[0]} if len(values) == 1 else {"enum": values}
    json_type = json_type_of(values)
    if json_type is not None:
        schema["type"] = json_type
    return schema


# --- Values as pydantic encodes them -------------------------------------------------


def to_json(value: object, module: str, where: object) -> Any:
    """``to_jsonable_python`` for literal values: tuples become lists, bytes text."""
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise Unsupported(module, _pos_of(where), f"{value!r} is not a finite number")
        return value
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise Unsupported(module, _pos_of(where), "bytes that are not UTF-8 have no JSON form") from None
    if isinstance(value, list | tuple):
        return [to_json(item, module, where) for item in value]
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {key: to_json(item, module, where) for key, item in value.items()}
    if isinstance(value, set | frozenset):
        raise Unsupported(module, _pos_of(where), "a set inside a value is serialized in hash order")
    raise Unsupported(module, _pos_of(where), f"{value!r} has no literal JSON form skillc can predict")


def encode_default(value: object, module: str, where: object) -> Any:
    """``default_schema``: sets are sorted first (pydantic 2.13 on), then the value is encoded."""
    if isinstance(value, set | frozenset) and len(value) > 1 and not SORTS_SET_DEFAULTS:
        raise Unsupported(
            module,
            _pos_of(where),
            "pydantic before 2.13 writes a set default in hash order, which differs from run to run",
            hint="use a list or tuple default, or pydantic 2.13 or newer",
        )
    if isinstance(value, set | frozenset):
        try:
            value = sorted(value)
        except TypeError:
            raise Unsupported(module, _pos_of(where), "a set default whose items cannot be sorted") from None
    return to_json(value, module, where)


def plain_json(value: object) -> bool:
    """Whether a value is JSON as written (model ``json_schema_extra`` is not encoded)."""
    if isinstance(value, bool | int | str) or value is None:
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list | tuple):
        return all(plain_json(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and plain_json(item) for key, item in value.items())
    return False


def _pos_of(where: object) -> Pos:
    pos = getattr(where, "pos", where)
    return pos if isinstance(pos, Pos) else Pos(1, 0)


def field_updates(attributes: dict[str, object]) -> JsonDict:
    """``_extract_json_schema_info_from_field_info``: title, description, deprecated, examples."""
    deprecated = attributes.get("deprecated")
    updates = {
        "title": attributes.get("title"),
        "description": attributes.get("description"),
        "deprecated": True if (bool(deprecated) or deprecated == "") and deprecated is not None else None,
        "examples": attributes.get("examples"),
    }
    return {key: value for key, value in updates.items() if value is not None}


def field_alias(attributes: dict[str, object]) -> str | None:
    """The name a field has in validation mode: ``validation_alias``, else ``alias``."""
    for name in ("validation_alias", "alias"):
        value = attributes.get(name)
        if isinstance(value, str):
            return value
    return None


def merge_fields(
    calls: list[FieldCall], assigned: FieldCall | None
) -> tuple[dict[str, object], list[tuple[str, object, Expr]]]:
    """``FieldInfo._construct``: attributes later-wins (``json_schema_extra`` dicts merged);
    the assigned ``Field``'s constraints go first, so ``Annotated``'s win (pydantic's HACK 1)."""
    attributes: dict[str, object] = {}
    for call in (*calls, *([assigned] if assigned else [])):
        extra = call.attributes.get("json_schema_extra")
        existing = attributes.get("json_schema_extra")
        attributes.update(call.attributes)
        if isinstance(existing, dict) and isinstance(extra, dict):
            attributes["json_schema_extra"] = {**existing, **extra}
    constraints = [*(assigned.constraints if assigned else []), *(c for call in calls for c in call.constraints)]
    return attributes, constraints
