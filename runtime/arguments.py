"""The arguments of a call as the tool's input model takes them.

``parse_arguments`` turns what the model sent (JSON text, bytes or a mapping) into a
dict, refusing anything else with the error result the model reads (``invalid_json``,
``validation``).  ``remove_strict_nulls`` undoes what OpenAI's strict mode makes a model
send for the optional fields of a strict tool.  ``decode_json`` is the JSON reading
both use (and ``skill test --input``): it refuses what JSON cannot spell (``NaN``,
``Infinity``, a number too large to be finite such as ``1e999``), integers of more than
4,300 digits and nesting too deep, each with a ``ValueError`` that says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final, NoReturn

from .ownjson import DECODING, as_text
from .results import refuse

__all__ = ["decode_json", "parse_arguments", "remove_strict_nulls"]

#: Deeper than this, a strict tool's arguments are left as they are.
_MAX_DEPTH: Final = 64
#: Python's own limit for turning digits into an ``int`` (``sys.get_int_max_str_digits``).
MAX_INTEGER_DIGITS: Final = 4300
_NO_INFINITY: Final = "JSON numbers are finite, JSON has no NaN or infinity"


def _json_type(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null" if value is None else type(value).__name__


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON: {_NO_INFINITY}")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"a number too large to be finite is not valid JSON: {_NO_INFINITY}")
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise ValueError(f"an integer has more than {MAX_INTEGER_DIGITS:,} digits")
    return int(text)


#: skillc's own decoder (``ownjson``): tool code that patches ``json`` does not change how arguments are read.
_DECODER: Final = DECODING.JSONDecoder(
    parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_bounded_int
)


def decode_json(text: str | bytes | bytearray) -> Any:
    """JSON text as Python values; a ``ValueError`` saying why when it is not JSON, or too much.

    Refused: malformed text (with its line and column), ``NaN`` and infinities, spelt
    out or as a number too large to be finite, integers of more than 4,300 digits,
    nesting deeper than the interpreter's recursion limit, bytes not in UTF-8.
    """
    text = as_text(text)  # bytes as json.loads reads them; not in a UTF is a ValueError too
    try:
        return _DECODER.decode(text)
    except RecursionError:
        raise ValueError("it is nested too deeply") from None
    except ValueError as error:  # a JSONDecodeError (of the shared json.decoder: the C scanner's)
        message, line, column = (getattr(error, name, None) for name in ("msg", "lineno", "colno"))
        if message is None:
            raise
        raise ValueError(f"{message} at line {line} column {column}") from None


def parse_arguments(arguments: object) -> dict[Any, Any]:
    """The arguments as a dict: from JSON text, bytes or a mapping; else ``CallRefused``.

    Empty text means no arguments, as several model servers send it for tools that
    take none.
    """
    if isinstance(arguments, str | bytes | bytearray):
        if not arguments.strip():
            return {}
        try:
            document = decode_json(arguments)
        except ValueError as error:  # also: not UTF-8, NaN, infinities, integers with thousands of digits
            refuse("invalid_json", f"The arguments are not valid JSON: {error}.")
    elif isinstance(arguments, Mapping):
        document = dict(arguments)
    else:
        refuse("validation", f"The arguments must be a JSON object, not {type(arguments).__name__}.")
    if not isinstance(document, dict):
        refuse("validation", f"The arguments must be a JSON object, not {_json_type(document)}.")
    return document


# --- strict mode ------------------------------------------------------------------------


def _resolve(schema: Any, root: Mapping[str, Any]) -> Any:
    """Follow ``$ref`` (to ``#/$defs/...``) until a schema that is not a reference."""
    for _ in range(_MAX_DEPTH):
        if not isinstance(schema, Mapping) or not isinstance(schema.get("$ref"), str):
            return schema
        reference: str = schema["$ref"]
        if not reference.startswith("#/"):
            return None
        target: Any = root
        for step in reference[2:].split("/"):
            target = target.get(step) if isinstance(target, Mapping) else None
        schema = target
    return None


def _object_schema(schema: Any, root: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The one object schema ``schema`` allows (through ``anyOf``, ``Optional``), else ``None``."""
    schema = _resolve(schema, root)
    if not isinstance(schema, Mapping):
        return None
    if schema.get("type") == "object" or "properties" in schema:
        return schema
    for key in ("anyOf", "oneOf", "allOf"):
        variants = schema.get(key)
        if isinstance(variants, list):
            objects = [found for item in variants if (found := _object_schema(item, root)) is not None]
            return objects[0] if len(objects) == 1 else None
    return None


def _array_items(schema: Any, root: Mapping[str, Any]) -> Any:
    schema = _resolve(schema, root)
    if not isinstance(schema, Mapping):
        return None
    if schema.get("type") == "array":
        return schema.get("items")
    for key in ("anyOf", "oneOf"):
        variants = schema.get(key)
        if isinstance(variants, list):
            resolved = (_resolve(variant, root) for variant in variants)
            arrays = [item for item in resolved if isinstance(item, Mapping) and item.get("type") == "array"]
            return arrays[0].get("items") if len(arrays) == 1 else None
    return None


def remove_strict_nulls(
    value: Any, schema: Mapping[str, Any], root: Mapping[str, Any] | None = None, depth: int = 0
) -> Any:
    """Drop the ``null`` of every optional field (not ``required`` in ``schema``), nested ones too.

    OpenAI's strict mode makes every field required, so the model sends ``null`` for
    an optional field it means to leave out; without this, the field's default
    would be replaced by ``None`` (or fail validation).
    """
    root = schema if root is None else root
    if depth > _MAX_DEPTH:
        return value
    if isinstance(value, dict):
        shape = _object_schema(schema, root)
        if shape is None:
            return value
        properties = shape.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        required = shape.get("required")
        required = set(required) if isinstance(required, list) else set()
        extra = shape.get("additionalProperties")
        cleaned: dict[Any, Any] = {}
        for key, item in value.items():
            if item is None and key in properties and key not in required:
                continue
            inner = properties.get(key, extra if isinstance(extra, Mapping) else None)
            cleaned[key] = remove_strict_nulls(item, inner, root, depth + 1) if isinstance(inner, Mapping) else item
        return cleaned
    if isinstance(value, list):
        items = _array_items(schema, root)
        if isinstance(items, Mapping):
            return [remove_strict_nulls(item, items, root, depth + 1) for item in value]
    return value
