"""Turn values into the text a model sees: results as JSON, validation errors as field paths.

Results go through pydantic_core's serializer, which knows pydantic models,
dataclasses, dates, enums, sets, UUIDs, decimals and the rest; a ``str`` result is
sent as it is.  Validation errors are listed by field path and expectation, never
with the value that was sent: arguments carry whatever the user typed, secrets included.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from pydantic import ValidationError
from pydantic_core import ErrorDetails, PydanticSerializationError, to_json

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


def describe_validation_error(error: ValidationError) -> list[str]:
    """One ``path: expectation`` line per problem, without the values that were sent."""
    lines = [
        f"{format_location(item['loc'])}: {_message(item)}"
        for item in error.errors(include_input=False, include_url=False)
    ]
    if len(lines) > _MAX_LISTED:
        hidden = len(lines) - _MAX_LISTED
        lines = [*lines[:_MAX_LISTED], f"... and {hidden} more"]
    return lines
