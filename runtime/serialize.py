"""Turn values into the text a model sees: results as JSON, validation errors as field paths.

Results go through pydantic_core's serializer, which knows pydantic models,
dataclasses, dates, enums, sets, UUIDs, decimals and the rest; a ``str`` result is
sent as it is.  Validation errors are listed by field path and expectation, never
with the value that was sent: arguments carry whatever the user typed, secrets included
(keys too: an undeclared key is counted, and named only when it looks like a field name).

The JSON that skillc writes and reads itself goes through ``ownjson``, which tool code
patching the shared ``json`` module does not reach.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails, PydanticSerializationError, from_json, to_json

from .arguments import decode_json

__all__ = [
    "DEFAULT_MAX_OUTPUT_BYTES",
    "MAX_LISTED",
    "SerializationFailure",
    "declared_location",
    "describe_exception",
    "describe_validation_error",
    "format_location",
    "human_size",
    "resolve_schema",
    "unexpected_keys",
    "to_json_text",
]

#: The largest result, in bytes of UTF-8, that is sent to the model.
DEFAULT_MAX_OUTPUT_BYTES: Final = 1024 * 1024
#: At most this many problems are listed in one message; the rest are counted.
MAX_LISTED: Final = 20
#: An exception's message is cut after this many characters.
_MAX_MESSAGE: Final = 2000
#: A run of digits this long may be an integer too large for JSON readers (Python's included).
_LONG_DIGITS: Final = re.compile(rb"[0-9]{4301}")
#: ... so shorter text cannot hold one.
_LONG_DIGITS_AT: Final = 4300
#: A path step shown as it is: what field names and aliases look like, not e-mail addresses or prose.
_SHOWN_STEP: Final = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}", re.ASCII)
#: An undeclared key is named only when it looks like a mistyped field name.
_SHOWN_KEY: Final = re.compile(r"[A-Za-z0-9_]{1,24}", re.ASCII)
#: The JSON type of a union branch that pydantic labels ``int``, ``list[int]``, ``dict[str,int]``...
_LABEL_TYPES: Final = {
    "int": "integer",
    "float": "number",
    "str": "string",
    "bool": "boolean",
    "list": "array",
    "tuple": "array",
    "set": "array",
    "frozenset": "array",
    "dict": "object",
}
#: The errors pydantic gives for a key the schema does not declare.
_UNDECLARED: Final = frozenset({"extra_forbidden", "unexpected_keyword_argument"})


class SerializationFailure(Exception):
    """A result that cannot become JSON text, or only text larger than the limit."""


def human_size(size: int) -> str:
    """``1048576`` -> ``"1 MiB"``: sizes as people read them."""
    value = float(size)
    for unit in ("bytes", "KiB", "MiB"):
        if value < 1024 or unit == "MiB":
            text = f"{value:.1f}".removesuffix(".0")
            return f"{text} {unit}"
        value /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def to_json_text(value: object, *, limit: int = DEFAULT_MAX_OUTPUT_BYTES) -> str:
    """Serialize ``value`` for the model; ``SerializationFailure`` says why it cannot be."""
    if isinstance(value, str):
        try:
            size = len(value.encode("utf-8"))
        except UnicodeEncodeError as error:
            raise SerializationFailure(f"the text is not valid Unicode ({error.reason})") from None
        text = value
    else:
        try:
            # NaN and infinities have no JSON spelling; null is what JSON.stringify sends.
            data = to_json(value, inf_nan_mode="null")
            text = data.decode("utf-8")
            # Rare: then read back, and written again if need be.  (Looked for in the text: ``in``
            # on bytes first tries its operand as an integer, which costs ten times as much.)
            if "NaN" in text or "Infinity" in text:
                data = _finite(data)
                text = data.decode("utf-8")
        except (PydanticSerializationError, ValueError, TypeError, RecursionError) as error:
            raise SerializationFailure(_first_line(error)) from None
        size = len(data)
        # Rare, and only in text that long: only then is the text read back to be sure.
        if size > _LONG_DIGITS_AT and _LONG_DIGITS.search(data) is not None:
            try:
                decode_json(data)
            except ValueError as error:
                raise SerializationFailure(f"its JSON cannot be read back: {error}") from None
    if size > limit:
        raise SerializationFailure(f"it is {human_size(size)} of text, more than the limit of {human_size(limit)}")
    return text


def _finite(data: bytes) -> bytes:
    """``data`` with every ``NaN``, ``Infinity`` and ``-Infinity`` that is a value, not text, made ``null``.

    A pydantic model serializes its own floats as its configuration says, whatever the
    caller asks: ``ser_json_inf_nan="constants"`` writes those JavaScript spellings, which
    are not JSON.  The same letters inside a string are only text, and leave ``data`` as it is.
    """
    try:
        from_json(data, allow_inf_nan=False)
    except ValueError:
        return to_json(from_json(data, allow_inf_nan=True), inf_nan_mode="null")
    return data


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def describe_exception(error: BaseException) -> str:
    """``ValueError: bad order`` for the model; ``sys.exit(3)`` for a ``SystemExit``."""
    if isinstance(error, SystemExit):
        return f"sys.exit({error.code!r})"
    text = str(error).strip()
    if len(text) > _MAX_MESSAGE:
        text = text[:_MAX_MESSAGE] + " ..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def format_location(location: Sequence[int | str], root: str = "(arguments)") -> str:
    """``("items", 0, "name")`` -> ``"items[0].name"``; the root is ``root``."""
    text = ""
    for step in location:
        if isinstance(step, int):
            text += f"[{step}]"
        else:
            text += f".{step}" if text else str(step)
    return text or root


def _message(item: ErrorDetails) -> str:
    context = item.get("ctx") or {}
    if item["type"] == "union_tag_invalid":  # pydantic's message quotes the tag that was sent
        return (
            f"Input tag found using {context.get('discriminator')} does not match any of "
            f"the expected tags: {context.get('expected_tags')}"
        )
    return item["msg"]


def _safe_step(step: int | str) -> int | str:
    """A location step as it may be shown: a dict key of the caller's choosing may not be."""
    return step if isinstance(step, int) or _SHOWN_STEP.fullmatch(step) else "<key>"


@functools.lru_cache(maxsize=256)
def _json_schema(model: type[BaseModel]) -> Mapping[str, Any] | None:
    try:
        return model.model_json_schema()
    except Exception:  # a schema hook of the model's own that fails: fall back to the heuristic
        return None


def _choices(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A union's branches, ``null`` left out (pydantic adds no location step for ``X | None``)."""
    branches = node.get("anyOf") or node.get("oneOf") or ()
    return [branch for branch in branches if isinstance(branch, Mapping) and branch.get("type") != "null"]


def resolve_schema(node: object, definitions: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``node`` with references followed, single ``allOf`` and nullable unions unwrapped (``None``: no schema)."""
    for _ in range(32):  # bounded: a reference may lead to itself
        if not isinstance(node, Mapping):
            return None
        reference = node.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/"):
            node = definitions.get(reference.removeprefix("#/$defs/"))
        elif isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
            node = node["allOf"][0]
        elif ("anyOf" in node or "oneOf" in node) and len(_choices(node)) == 1:
            node = _choices(node)[0]
        else:
            return node
    return None


def _branch(node: Mapping[str, Any], label: str, definitions: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The branch of a union that pydantic's location step ``label`` names (a model, a tag, a type)."""
    mapping = (node.get("discriminator") or {}).get("mapping") or {}
    if label in mapping:
        return resolve_schema({"$ref": mapping[label]}, definitions)
    branches = [branch for branch in (resolve_schema(choice, definitions) for choice in _choices(node)) if branch]
    titled = [branch for branch in branches if branch.get("title") == label]
    kind = _LABEL_TYPES.get(label.partition("[")[0])
    typed = [branch for branch in branches if kind is not None and branch.get("type") == kind]
    found = titled or typed
    return found[0] if len(found) == 1 else None


def declared_location(location: Sequence[int | str], schema: Mapping[str, Any]) -> tuple[int | str, ...]:
    """``location`` with every step that is no declared name of ``schema`` (a dict key) shown as ``<key>``.

    Properties, array positions and the labels pydantic gives union branches are the
    schema's own; a step where the schema takes any key is the caller's text.  Past a
    step the schema does not explain, the heuristic of ``_safe_step`` applies.
    """
    definitions = schema.get("$defs") or {}
    node: Mapping[str, Any] | None = schema
    shown: list[int | str] = []
    for step in location:
        node = resolve_schema(node, definitions) if node is not None else None
        if node is None:
            shown.append(_safe_step(step))
            continue
        properties = node.get("properties") or {}
        if isinstance(step, int):
            shown.append(step)
            prefix = node.get("prefixItems") or []
            node = prefix[step] if 0 <= step < len(prefix) else node.get("items")
        elif step in properties:
            shown.append(step)
            node = properties[step]
        elif step == "[key]":  # pydantic's own step: the key itself failed
            shown.append(step)
            node = None
        elif len(_choices(node)) > 1:  # a union: the step is pydantic's label of a branch, not the caller's
            shown.append(step)
            node = _branch(node, step, definitions)
        elif node.get("type") == "object" or "additionalProperties" in node or "patternProperties" in node:
            shown.append("<key>")
            extra = node.get("additionalProperties")
            node = extra if isinstance(extra, Mapping) else None
        else:
            shown.append(_safe_step(step))
            node = None
    return tuple(shown)


def unexpected_keys(parent: tuple[int | str, ...], keys: list[str], root: str = "(arguments)") -> str:
    """One line for the keys of one object that its schema does not declare, naming only those that look like names."""
    shown = [key for key in keys if _SHOWN_KEY.fullmatch(key)][:MAX_LISTED]
    count = len(keys)
    text = (
        f"{format_location(parent, root)}: {count} unexpected propert{'y' if count == 1 else 'ies'}, not in the schema"
    )
    if not shown:
        return text
    rest = count - len(shown)
    return text + ": " + ", ".join(repr(key) for key in shown) + (f" and {rest} not shown" if rest else "")


def describe_validation_error(error: ValidationError, model: type[BaseModel] | None = None) -> list[str]:
    """One ``path: expectation`` line per problem, without the values that were sent.

    Declared fields are named by their path.  Keys the schema does not declare are the
    caller's text (an e-mail address, a token): they are counted per object, and named
    only when short and made of ``[A-Za-z0-9_]`` alone (a mistyped field name).  A key
    of a ``dict[str, X]`` in a path is the caller's text too: given the ``model`` that
    raised ``error``, every such step is shown as ``<key>``, however much it looks like
    a field name (``scores.<key>``, never ``scores.bob``); without it, a step that does
    not look like a field name is.
    """
    schema = _json_schema(model) if model is not None else None
    lines: list[str] = []
    extras: dict[tuple[int | str, ...], list[str]] = {}
    for item in error.errors(include_input=False, include_url=False):
        if schema is not None:
            location = declared_location(item["loc"], schema)
        else:
            location = tuple(_safe_step(step) for step in item["loc"])
        if item["type"] in _UNDECLARED and item["loc"] and isinstance(item["loc"][-1], str):
            parent = location[:-1]
            if parent not in extras:
                extras[parent] = []
                lines.append("")  # filled in below, in the place of the object's first extra key
            extras[parent].append(item["loc"][-1])
            continue
        lines.append(f"{format_location(location)}: {_message(item)}")
    grouped = iter([unexpected_keys(parent, keys) for parent, keys in extras.items()])
    lines = [line or next(grouped) for line in lines]
    if len(lines) > MAX_LISTED:
        hidden = len(lines) - MAX_LISTED
        lines = [*lines[:MAX_LISTED], f"... and {hidden} more"]
    return lines
