"""The strict variant of an input schema, for OpenAI's strict mode (Structured Outputs).

In strict mode the model's arguments are decoded against the schema itself, so the
schema must stay inside the subset OpenAI compiles (its Structured Outputs guide,
"Supported schemas"):

- every object is closed (``additionalProperties: false``) and lists every property in
  ``required``; a property that had a default becomes nullable instead, so the model
  can still leave it out by sending ``null``;
- the root is an object, not an ``anyOf``; ``$defs`` and ``$ref`` are allowed (recursion
  too) but a ``$ref`` takes no sibling keys, so one with a description is wrapped in a
  one-member ``anyOf``, as pydantic-ai does against the live API; the ``oneOf`` of a
  discriminated union becomes an ``anyOf`` (its members exclude each other by their
  tags anyway) and its ``discriminator`` is dropped;
- only these keywords are kept: ``type``, ``properties``, ``required``,
  ``additionalProperties``, ``items``, ``anyOf``, ``enum``, ``description``, ``$ref``,
  ``$defs``; for strings ``pattern`` and ``format`` (date-time, time, date, duration,
  email, hostname, ipv4, ipv6, uuid); for numbers ``minimum``, ``maximum``,
  ``exclusiveMinimum``, ``exclusiveMaximum``, ``multipleOf``; for arrays ``minItems``
  and ``maxItems``.  ``const`` becomes a one-value ``enum``.

Everything else is dropped, which only loosens what the model is held to: the runtime
still validates every call with the tool's pydantic model, which enforces it all.
Dropped are ``title``, ``default``, ``examples``, ``deprecated``, ``minLength``,
``maxLength``, ``uniqueItems``, ``minProperties``/``maxProperties``, other formats
(``binary``), patterns with look-around (OpenAI's regex subset has none) and keys added
through ``json_schema_extra``.

What strict mode cannot express at all is refused, with the reason as a string: dicts
with free-form keys, models that allow extra fields, values of any type (``Any``, a bare
``list``), tuples of mixed types and empty tuples.

The caller is the one to turn a ``null`` for a widened property back into "absent"
before validating, since the pydantic model does not accept ``null`` there.
"""

from __future__ import annotations

from typing import Any

__all__ = ["STRICT_FORMATS", "strict_schema"]

#: String formats OpenAI's strict mode accepts.
STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
_NUMBER_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")
_NULL: dict[str, Any] = {"type": "null"}


class _NotStrict(Exception):
    """Raised where strict mode cannot express the schema; caught in ``strict_schema``."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path or 'the input'} {problem}")
        self.reason = str(self)


def strict_schema(schema: dict[str, Any]) -> dict[str, Any] | str:
    """The strict-mode variant of ``schema``, or why there is none.

    ``schema`` is a JSON Schema as pydantic writes it (``model_json_schema()``); it is
    not modified.
    """
    definitions = schema.get("$defs", {})
    try:
        root = schema
        if "$ref" in schema:  # a recursive model: the root must be the object itself
            root = {**definitions[_def_name(schema["$ref"])], **_without(schema, "$ref", "$defs")}
        strict = _schema(root, "")
        if strict.get("type") != "object":
            raise _NotStrict("", "is not an object, and strict mode takes only objects as arguments")
        if definitions:
            strict["$defs"] = {name: _schema(value, name) for name, value in definitions.items()}
    except _NotStrict as error:
        return error.reason
    return strict


def _schema(schema: object, path: str) -> dict[str, Any]:
    """One schema node in its strict form."""
    if not isinstance(schema, dict) or not _typed(schema):
        raise _NotStrict(path, "accepts a value of any type, which strict mode cannot express")
    strict: dict[str, Any]
    if "$ref" in schema:
        strict = {"$ref": schema["$ref"]}
        if "description" in schema:  # no siblings beside a $ref
            strict = {"anyOf": [strict]}
    elif "anyOf" in schema:
        strict = {"anyOf": [_schema(member, path) for member in schema["anyOf"]]}
    elif "oneOf" in schema:  # a discriminated union: its members exclude each other by their tags
        strict = {"anyOf": [_schema(member, path) for member in schema["oneOf"]]}
    elif "enum" in schema or "const" in schema:
        strict = _enum(schema)
    else:
        strict = _typed_schema(schema, path)
    if isinstance(schema.get("description"), str):
        strict["description"] = schema["description"]
    return strict


def _typed(schema: dict[str, Any]) -> bool:
    return any(key in schema for key in ("type", "$ref", "anyOf", "oneOf", "enum", "const"))


def _enum(schema: dict[str, Any]) -> dict[str, Any]:
    strict: dict[str, Any] = {"enum": list(schema["enum"]) if "enum" in schema else [schema["const"]]}
    if "type" in schema:
        strict["type"] = schema["type"]
    return strict


def _typed_schema(schema: dict[str, Any], path: str) -> dict[str, Any]:
    kind = schema["type"]
    if kind == "object":
        return _object(schema, path)
    if kind == "array":
        return _array(schema, path)
    strict: dict[str, Any] = {"type": kind}
    if kind == "string":
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and not any(token in pattern for token in _LOOKAROUND):
            strict["pattern"] = pattern
        if schema.get("format") in STRICT_FORMATS:
            strict["format"] = schema["format"]
    if kind in ("integer", "number"):
        strict.update((key, schema[key]) for key in _NUMBER_KEYWORDS if key in schema)
    return strict


def _object(schema: dict[str, Any], path: str) -> dict[str, Any]:
    extra = schema.get("additionalProperties", False)
    if extra is not False:
        problem = (
            "is a dict with free-form keys" if "properties" not in schema else "allows extra fields (extra='allow')"
        )
        raise _NotStrict(path, f"{problem}, which strict mode cannot close")
    if "patternProperties" in schema or "propertyNames" in schema:
        raise _NotStrict(path, "constrains its keys, which strict mode cannot express")
    required = set(schema.get("required", ()))
    properties: dict[str, Any] = {}
    for name, value in schema.get("properties", {}).items():
        strict = _schema(value, f"{path}.{name}" if path else name)
        properties[name] = strict if name in required else _nullable(strict)
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _array(schema: dict[str, Any], path: str) -> dict[str, Any]:
    items = schema.get("items")
    prefix = schema.get("prefixItems")
    if prefix:
        if items is not None or any(item != prefix[0] for item in prefix):
            raise _NotStrict(path, "is a tuple of mixed types, which strict mode cannot express")
        items = prefix[0]  # a tuple of one type: a list of that type, of that length
    if items is None:
        raise _NotStrict(path, "is an array with no item type (an empty tuple)")
    strict: dict[str, Any] = {"type": "array", "items": _schema(items, f"{path}[]")}
    strict.update((key, schema[key]) for key in ("minItems", "maxItems") if key in schema)
    return strict


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` also accepting ``null``, which strict mode uses for "left out"."""
    if _accepts_null(schema):
        return schema
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], dict(_NULL)]}
    inner = _without(schema, "description")
    widened: dict[str, Any] = {"anyOf": [inner, dict(_NULL)]}
    if "description" in schema:
        widened["description"] = schema["description"]
    return widened


def _accepts_null(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return "enum" not in schema or None in schema["enum"]
    if "anyOf" in schema:
        return any(isinstance(member, dict) and _accepts_null(member) for member in schema["anyOf"])
    return "enum" in schema and "type" not in schema and None in schema["enum"]


def _without(schema: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in schema.items() if key not in keys}


def _def_name(ref: str) -> str:
    return ref.removeprefix("#/$defs/")
