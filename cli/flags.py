"""Values of flags that several commands take, checked: a bad one is a usage error (exit 2)."""

from __future__ import annotations

from typing import Any

from ..contracts.errors import UsageError
from ..runtime.arguments import decode_json

__all__ = ["json_object_flag"]


def json_object_flag(flag: str, text: str | None) -> dict[str, Any]:
    """The JSON object a flag such as ``--user`` gives (empty without it); a usage error otherwise."""
    if text is None:
        return {}
    try:
        value = decode_json(text)
    except ValueError as error:
        raise UsageError(
            f"{flag} is not JSON: {error}", hint=f"""pass a JSON object, e.g. {flag} '{{"id": "u1"}}'"""
        ) from None
    if not isinstance(value, dict):
        raise UsageError(f"{flag} must be a JSON object, not {type(value).__name__}", hint=f"e.g. {flag} '{{}}'")
    return value
