"""MongoDB-style filters and sorts: checked into a small tree, then written as SQL for each backend.

A filter is a JSON object.  ``{"status": "shipped"}`` compares a field with a value;
``{"total": {"$gte": 10, "$lt": 50}}`` applies operators to it (all must hold);
``{"$or": [{...}, {...}]}`` and ``{"$and": [...]}`` combine filters; several keys in one
object must all hold.  A field is a path of object keys joined by ``.``
(``customer.address.city``); ``_id`` is the document's id.  What each operator means,
identically on every backend:

- ``$eq`` (or a bare value): the field holds an equal JSON value (numbers by value,
  ``true`` never equals ``1``, arrays and objects as a whole); ``null`` also matches a
  missing field.  ``$ne`` is its negation, so it matches documents without the field.
- ``$gt`` ``$gte`` ``$lt`` ``$lte`` take a number or a string and match fields of the same
  kind only: numbers by value, strings by code point.
- ``$in`` / ``$nin`` take a list: ``$eq`` one of them / none of them.
- ``$exists``: ``true`` if the field is there (even as ``null``), ``false`` if not.

A sort is a field or a list of fields, each ``-field`` for descending.  Values of
different kinds sort as: missing, ``null``, booleans (``false`` first), numbers,
strings (by code point), then arrays and objects (which tie); ties are broken by id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from ..ownjson import write_json
from .documents import ID_KEY, check_value
from .errors import InvalidData

__all__ = [
    "Condition",
    "Filter",
    "Group",
    "SortKey",
    "parse_filter",
    "parse_sort",
    "postgres_order",
    "postgres_where",
    "sqlite_order",
    "sqlite_where",
]

Operator = Literal["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists"]
OPERATORS: Final = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists")
_RANGE: Final = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}


@dataclass(frozen=True)
class Condition:
    """One operator applied to one field (``path`` empty for ``_id``)."""

    path: tuple[str, ...]
    operator: Operator
    value: Any


@dataclass(frozen=True)
class Group:
    """Filters that must all hold (``all_of``) or of which one must (not ``all_of``)."""

    all_of: bool
    parts: tuple[Filter, ...]


Filter = Condition | Group


@dataclass(frozen=True)
class SortKey:
    """A field to sort by (``path`` empty for ``_id``) and its direction."""

    path: tuple[str, ...]
    descending: bool = False


def _field_path(name: object, where: str) -> tuple[str, ...]:
    if not isinstance(name, str) or not name:
        raise InvalidData(f"{where}: a field name must be a non-empty string")
    if name == ID_KEY:
        return ()
    parts = tuple(name.split("."))
    if any(not part or part.startswith("$") or "\x00" in part for part in parts):
        raise InvalidData(
            f"{where}: {name!r} is not a field path (keys joined by '.', none empty or starting with '$')"
        )
    return parts


def _operand(operator: str, value: Any, where: str, for_id: bool) -> Any:
    if operator == "$exists":
        if not isinstance(value, bool):
            raise InvalidData(f"{where}: $exists takes true or false")
        return value
    if operator in ("$in", "$nin"):
        if not isinstance(value, list | tuple):
            raise InvalidData(f"{where}: {operator} takes a list of values")
        return tuple(_operand("$eq", item, f"{where}[{index}]", for_id) for index, item in enumerate(value))
    checked = check_value(value, where)
    if operator in _RANGE and (isinstance(checked, bool) or not isinstance(checked, int | float | str)):
        raise InvalidData(f"{where}: {operator} compares with a number or a string")
    if for_id and not isinstance(checked, str) and not (checked is None and operator in ("$eq", "$ne")):
        raise InvalidData(f"{where}: ids are strings, so _id is compared with a string")
    return checked


def _is_operators(value: Any) -> bool:
    return (
        isinstance(value, Mapping)
        and bool(value)
        and all(isinstance(key, str) and key.startswith("$") for key in value)
    )


def parse_filter(document: Mapping[str, Any] | None, where: str = "filter") -> Filter | None:
    """The checked tree of a filter (``None`` for no filter); ``InvalidData`` names the first mistake."""
    if document is None:
        return None
    if not isinstance(document, Mapping):
        raise InvalidData(f"{where} must be a JSON object, not {type(document).__name__}")
    parts: list[Filter] = []
    for key, value in document.items():
        inner = f"{where}.{key}"
        if key in ("$and", "$or"):
            if not isinstance(value, list | tuple) or not value:
                raise InvalidData(f"{inner} takes a non-empty list of filters")
            nested = [parse_filter(item, f"{inner}[{index}]") for index, item in enumerate(value)]
            parts.append(Group(key == "$and", tuple(part or Group(True, ()) for part in nested)))
            continue
        if isinstance(key, str) and key.startswith("$"):
            raise InvalidData(f"{where}: unknown operator {key!r} (combine filters with $and and $or)")
        path = _field_path(key, where)
        if _is_operators(value):
            for operator, operand in value.items():
                if operator not in OPERATORS:
                    known = ", ".join(OPERATORS)
                    raise InvalidData(f"{inner}: unknown operator {operator!r} (known: {known})")
                parts.append(Condition(path, operator, _operand(operator, operand, f"{inner}.{operator}", not path)))
        elif isinstance(value, Mapping) and any(isinstance(name, str) and name.startswith("$") for name in value):
            raise InvalidData(f"{inner}: an object that mixes operators and fields is ambiguous")
        else:
            parts.append(Condition(path, "$eq", _operand("$eq", value, inner, not path)))
    return parts[0] if len(parts) == 1 else Group(True, tuple(parts))


def parse_sort(sort: str | Sequence[str] | None) -> tuple[SortKey, ...]:
    """The checked sort keys of ``"field"``, ``"-field"`` or a list of them."""
    if sort is None:
        return ()
    names = [sort] if isinstance(sort, str) else list(sort)
    keys = []
    for name in names:
        if not isinstance(name, str):
            raise InvalidData("sort: each key must be a field name, '-' first for descending")
        descending = name.startswith("-")
        keys.append(SortKey(_field_path(name.removeprefix("-"), "sort"), descending))
    return tuple(keys)


# --- SQL, shared by both dialects --------------------------------------------------------
# ``$ne``, ``$nin`` and ``$in`` are spelt with ``$eq``, and groups with AND and OR, the same
# way in both; a dialect writes its constants and the base conditions.


@dataclass(frozen=True)
class _Dialect:
    true: str
    false: str
    #: The SQL of a ``$eq``, ``$exists`` or range condition (never ``$ne``, ``$in``, ``$nin``).
    base: Callable[[Condition, list[Any], str, str], str]

    def condition(self, condition: Condition, params: list[Any], body: str, ident: str) -> str:
        operator, value = condition.operator, condition.value
        if operator in ("$ne", "$nin"):
            positive = Condition(condition.path, "$eq" if operator == "$ne" else "$in", value)
            return f"NOT {self.condition(positive, params, body, ident)}"
        if operator == "$in":
            if not value:
                return self.false
            alternatives = (
                self.condition(Condition(condition.path, "$eq", item), params, body, ident) for item in value
            )
            return "(" + " OR ".join(alternatives) + ")"
        return self.base(condition, params, body, ident)

    def where(self, tree: Filter | None, params: list[Any], body: str, ident: str) -> str:
        if tree is None:
            return self.true
        if isinstance(tree, Condition):
            return self.condition(tree, params, body, ident)
        if not tree.parts:
            return self.true if tree.all_of else self.false
        joiner = " AND " if tree.all_of else " OR "
        return "(" + joiner.join(self.where(part, params, body, ident) for part in tree.parts) + ")"


# --- SQLite ---------------------------------------------------------------------------
# Every expression yields 0 or 1, never NULL, so that NOT and OR mean what they say.


def _sqlite_path(path: tuple[str, ...]) -> str:
    return "$" + "".join(f'."{part}"' for part in path)


def _sqlite_condition(condition: Condition, params: list[Any], body: str, ident: str) -> str:
    operator, value = condition.operator, condition.value
    if not condition.path:  # the id column
        if operator == "$exists":
            return "1" if value else "0"
        if value is None:
            return "0"
        params.append(value)
        return f"({ident} {'=' if operator == '$eq' else _RANGE[operator]} ?)"
    path = _sqlite_path(condition.path)
    kind = f"json_type({body}, ?)"
    extract = f"json_extract({body}, ?)"
    if operator == "$exists":
        params.append(path)
        return f"({kind} IS {'NOT ' if value else ''}NULL)"
    if operator == "$eq" and value is None:
        params.append(path)
        return f"(IFNULL({kind}, 'null') = 'null')"
    if operator == "$eq" and isinstance(value, bool):
        params.append(path)
        return f"({kind} IS '{'true' if value else 'false'}')"
    if operator == "$eq" and isinstance(value, list | dict):
        params.extend((path, path, write_json(value, separators=(",", ":"))))
        shape = "array" if isinstance(value, list) else "object"
        return f"({kind} IS '{shape}' AND skill_json_equal({extract}, ?))"
    comparison = "=" if operator == "$eq" else _RANGE[operator]
    kinds = "('text')" if isinstance(value, str) else "('integer', 'real')"
    params.extend((path, path, value))
    return f"(IFNULL({kind} IN {kinds}, 0) AND IFNULL({extract} {comparison} ?, 0))"


_SQLITE: Final = _Dialect("1", "0", _sqlite_condition)


def sqlite_where(tree: Filter | None, params: list[Any], *, body: str = "body", ident: str = "id") -> str:
    """The SQL condition of ``tree`` over the columns ``body`` (JSON text) and ``ident``; its parameters go to ``params``."""
    return _SQLITE.where(tree, params, body, ident)


_SQLITE_RANK: Final = (
    "CASE json_type({body}, ?) WHEN 'null' THEN 1 WHEN 'false' THEN 2 WHEN 'true' THEN 2 "
    "WHEN 'integer' THEN 3 WHEN 'real' THEN 3 WHEN 'text' THEN 4 WHEN 'array' THEN 5 WHEN 'object' THEN 5 ELSE 0 END"
)


def sqlite_order(keys: Sequence[SortKey], params: list[Any], *, body: str = "body", ident: str = "id") -> str:
    """The ORDER BY list for ``keys``, ending with the id."""
    terms = []
    for key in keys:
        direction = " DESC" if key.descending else ""
        if not key.path:
            terms.append(f"{ident}{direction}")
            continue
        path = _sqlite_path(key.path)
        params.extend((path, path, path))
        terms.append(_SQLITE_RANK.format(body=body) + direction)
        terms.append(
            f"CASE WHEN json_type({body}, ?) IN ('array', 'object') THEN NULL ELSE json_extract({body}, ?) END{direction}"
        )
    terms.append(ident)
    return ", ".join(terms)


# --- PostgreSQL -----------------------------------------------------------------------
# The body is jsonb; a path is followed with ``->`` and text keys, which never index an array.


def _postgres_value(path: tuple[str, ...], params: list[Any], body: str) -> str:
    params.extend(path)
    return body + "".join(" -> %s::text" for _ in path)


def _postgres_condition(condition: Condition, params: list[Any], body: str, ident: str) -> str:
    operator, value = condition.operator, condition.value
    if not condition.path:
        if operator == "$exists":
            return "true" if value else "false"
        if value is None:
            return "false"
        params.append(value)
        return f"({ident} {'=' if operator == '$eq' else _RANGE[operator]} %s::text)"
    if operator == "$exists":
        return f"({_postgres_value(condition.path, params, body)} IS {'NOT ' if value else ''}NULL)"
    if operator == "$eq" and value is None:
        return f"COALESCE({_postgres_value(condition.path, params, body)} = 'null'::jsonb, true)"
    if operator == "$eq":
        found = _postgres_value(condition.path, params, body)
        params.append(write_json(value, separators=(",", ":")))
        return f"COALESCE({found} = %s::jsonb, false)"
    first = _postgres_value(condition.path, params, body)
    if isinstance(value, str):
        second = _postgres_value(condition.path, params, body)
        params.append(value)
        return (
            f"COALESCE(jsonb_typeof({first}) = 'string' AND "
            f'({second} #>> \'{{}}\') COLLATE "C" {_RANGE[operator]} %s::text COLLATE "C", false)'
        )
    second = _postgres_value(condition.path, params, body)
    params.append(write_json(value))
    return f"COALESCE(jsonb_typeof({first}) = 'number' AND {second} {_RANGE[operator]} %s::jsonb, false)"


_POSTGRES: Final = _Dialect("true", "false", _postgres_condition)


def postgres_where(tree: Filter | None, params: list[Any], *, body: str = "body", ident: str = "id") -> str:
    """The SQL condition of ``tree`` over ``body`` (jsonb) and ``ident``; its parameters go to ``params``."""
    return _POSTGRES.where(tree, params, body, ident)


def postgres_order(keys: Sequence[SortKey], params: list[Any], *, body: str = "body", ident: str = "id") -> str:
    """The ORDER BY list for ``keys``, ending with the id (a ``COLLATE "C"`` column)."""
    terms = []
    for key in keys:
        direction = " DESC" if key.descending else ""
        if not key.path:
            terms.append(f"{ident}{direction}")
            continue
        kind = f"jsonb_typeof({_postgres_value(key.path, params, body)})"
        terms.append(
            f"CASE {kind} WHEN 'null' THEN 1 WHEN 'boolean' THEN 2 WHEN 'number' THEN 3 WHEN 'string' THEN 4 "
            f"WHEN 'array' THEN 5 WHEN 'object' THEN 5 ELSE 0 END{direction}"
        )
        kind = f"jsonb_typeof({_postgres_value(key.path, params, body)})"
        value = _postgres_value(key.path, params, body)
        terms.append(f"CASE WHEN {kind} IN ('boolean', 'number') THEN {value} END{direction}")
        kind = f"jsonb_typeof({_postgres_value(key.path, params, body)})"
        value = _postgres_value(key.path, params, body)
        terms.append(f"(CASE WHEN {kind} = 'string' THEN {value} #>> '{{}}' END) COLLATE \"C\"{direction}")
    terms.append(ident)
    return ", ".join(terms)
