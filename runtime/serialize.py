"""Turn values into the text a model sees: results as JSON, validation errors as field paths.

Results go through pydantic_core's serializer, which knows pydantic models,
dataclasses, dates, enums, sets, UUIDs, decimals and the rest; a ``str`` result is
sent as it is.  Validation errors are listed by field path and expectation, never
with the value that was sent: arguments carry whatever the user typed, secrets included
(keys too: an undeclared key is counted, and named only when it looks like a field name).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from pydantic import ValidationError
from pydantic_core import ErrorDetails, PydanticSerializationError, to_json

from .arguments import decode_json

__all__ = [
    "DEFAULT_MAX_OUTPUT_BYTES",
    "SerializationFailure",
    "describe_exception",
    "describe_validation_error",
    "format_location",
    "human_size",
    "to_json_text",
]

#: The largest result, in bytes of UTF-8, that is sent to the model.
DEFAULT_MAX_OUTPUT_BYTES: Final = 1024 * 1024
#: At most this many problems are listed in one message; the rest are counted.
_MAX_LISTED: Final = 20
#: An exception's message is cut after this many characters.
_MAX_MESSAGE: Final = 2000
#: A run of digits this long may be an integer too large for JSON readers (Python's included).
_LONG_DIGITS: Final = re.compile(rb"[0-9]{4301}")
#: A path step shown as it is: what field names and aliases look like, not e-mail addresses or prose.
_SHOWN_STEP: Final = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}", re.ASCII)
#: An undeclared key is named only when it looks like a mistyped field name.
_SHOWN_KEY: Final = re.compile(r"[A-Za-z0-9_]{1,24}", re.ASCII)
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
        except (PydanticSerializationError, ValueError, TypeError, RecursionError) as error:
            raise SerializationFailure(_first_line(error)) from None
        if _LONG_DIGITS.search(data) is not None:  # rare: only then is the text read back to be sure
            try:
                decode_json(data)
            except ValueError as error:
                raise SerializationFailure(f"its JSON cannot be read back: {error}") from None
        size = len(data)
        text = data.decode("utf-8")
    if size > limit:
        raise SerializationFailure(f"it is {human_size(size)} of text, more than the limit of {human_size(limit)}")
    return text


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


def format_location(location: Sequence[int | str]) -> str:
    """``("items", 0, "name")`` -> ``"items[0].name"``; the root is ``"(arguments)"``."""
    text = ""
    for step in location:
        if isinstance(step, int):
            text += f"[{step}]"
        else:
            text += f".{step}" if text else str(step)
    return text or "(arguments)"


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


def _unexpected(parent: tuple[int | str, ...], keys: list[str]) -> str:
    shown = [key for key in keys if _SHOWN_KEY.fullmatch(key)][:_MAX_LISTED]
    count = len(keys)
    text = f"{format_location(parent)}: {count} unexpected propert{'y' if count == 1 else 'ies'}, not in the schema"
    if not shown:
        return text
    rest = count - len(shown)
    return text + ": " + ", ".join(repr(key) for key in shown) + (f" and {rest} not shown" if rest else "")


def describe_validation_error(error: ValidationError) -> list[str]:
    """One ``path: expectation`` line per problem, without the values that were sent.

    Declared fields are named by their path.  Keys the schema does not declare are the
    caller's text (an e-mail address, a token): they are counted per object, and named
    only when short and made of ``[A-Za-z0-9_]`` alone (a mistyped field name); a path
    step that does not look like a field name (a dict key) is shown as ``<key>``.
    """
    lines: list[str] = []
    extras: dict[tuple[int | str, ...], list[str]] = {}
    for item in error.errors(include_input=False, include_url=False):
        location = tuple(_safe_step(step) for step in item["loc"])
        if item["type"] in _UNDECLARED and item["loc"] and isinstance(item["loc"][-1], str):
            parent = location[:-1]
            if parent not in extras:
                extras[parent] = []
                lines.append("")  # filled in below, in the place of the object's first extra key
            extras[parent].append(item["loc"][-1])
            continue
        lines.append(f"{format_location(location)}: {_message(item)}")
    grouped = iter([_unexpected(parent, keys) for parent, keys in extras.items()])
    lines = [line or next(grouped) for line in lines]
    if len(lines) > _MAX_LISTED:
        hidden = len(lines) - _MAX_LISTED
        lines = [*lines[:_MAX_LISTED], f"... and {hidden} more"]
    return lines
