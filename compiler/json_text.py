"""JSON text with a two-space indent, as ``json.dumps(indent=2)`` writes it, several times faster.

``json.dumps`` with an indent falls back to its pure-Python encoder; a compile writes a
thousand documents (``emit``) and ``--format json`` prints a report of every tool.
``indented_json`` writes plain JSON data (dicts with string keys, lists, tuples, strings,
integers, finite floats, booleans, ``None``) itself and hands anything else to
``json.dumps``, so its text is always exactly ``json.dumps``'s.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from json.encoder import encode_basestring, encode_basestring_ascii

__all__ = ["indented_json"]


def indented_json(document: object, *, sort_keys: bool = False, ensure_ascii: bool = False) -> str:
    """``json.dumps(document, indent=2, sort_keys=sort_keys, ensure_ascii=ensure_ascii)``, byte for byte."""
    try:
        return _indented(document, "\n", sort_keys, encode_basestring_ascii if ensure_ascii else encode_basestring)
    except (_NotPlain, RecursionError):
        return json.dumps(document, indent=2, sort_keys=sort_keys, ensure_ascii=ensure_ascii)


class _NotPlain(Exception):
    """A value ``_indented`` leaves to ``json.dumps``."""


def _indented(value: object, newline: str, sort_keys: bool, encode: Callable[[str], str]) -> str:
    if type(value) is str:  # the most frequent first: strings, objects, arrays
        return encode(value)
    if type(value) is dict:
        if not value:
            return "{}"
        inner = newline + "  "
        parts = []
        for key, item in sorted(value.items()) if sort_keys else value.items():
            if not isinstance(key, str):
                raise _NotPlain
            text = encode(item) if type(item) is str else _indented(item, inner, sort_keys, encode)
            parts.append(f"{encode(key)}: {text}")
        return "{" + inner + ("," + inner).join(parts) + newline + "}"
    if type(value) is list or type(value) is tuple:
        if not value:
            return "[]"
        inner = newline + "  "
        texts = [encode(item) if type(item) is str else _indented(item, inner, sort_keys, encode) for item in value]
        return "[" + inner + ("," + inner).join(texts) + newline + "]"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return int.__repr__(value)
    if type(value) is float and math.isfinite(value):
        return float.__repr__(value)
    if isinstance(value, str):
        return encode(value)
    raise _NotPlain
