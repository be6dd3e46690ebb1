"""What a document is: JSON checked on the way in, one canonical text, merge patches, search words.

Both backends store exactly the text ``encode_document`` gives and read it back with
``json.loads``, so a document reads back as it was written (key order included) whichever
backend holds it.  The rules are the ones both backends can keep alike:

- a document is a JSON object; its key ``_id`` is its id (a string), kept apart from the
  stored body;
- keys are non-empty strings without ``.`` (the separator of field paths) or a leading
  ``$`` (the mark of a filter operator);
- values are ``null``, booleans, integers in the signed 64-bit range, finite floats, strings,
  arrays and objects, nested at most ``MAX_DEPTH`` deep; strings and keys hold no NUL and
  no lone surrogate (PostgreSQL's ``jsonb`` stores neither).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

from ..ownjson import read_json, write_json
from .errors import InvalidData

__all__ = [
    "ID_KEY",
    "MAX_DEPTH",
    "MAX_DOCUMENT_BYTES",
    "check_collection_name",
    "check_id",
    "check_value",
    "decode_document",
    "encode_document",
    "json_equal",
    "merge_patch",
    "search_words",
    "split_document",
]

#: The key that carries a document's id in what the store returns and accepts.
ID_KEY: Final = "_id"
MAX_DEPTH: Final = 64
MAX_DOCUMENT_BYTES: Final = 16 * 1024 * 1024
MAX_ID_LENGTH: Final = 256
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1
_COLLECTION: Final = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
_WORD: Final = re.compile(r"[^\W_]+")
_UNSAFE_TEXT: Final = re.compile(r"[\x00\ud800-\udfff]")


def check_collection_name(name: object) -> str:
    """``name`` if it may name a collection: 1-64 letters, digits, ``_ . -``, not starting with ``.`` or ``-``."""
    if not isinstance(name, str) or _COLLECTION.fullmatch(name) is None:
        raise InvalidData(
            f"collection name {name!r} is not allowed: use 1-64 letters, digits, '_', '.' or '-', "
            "starting with a letter, digit or '_'"
        )
    return name


def check_id(value: object) -> str:
    """``value`` if it may be a document id: a non-empty string of at most 256 characters without control characters."""
    if not isinstance(value, str):
        raise InvalidData(f"a document id must be a string, not {type(value).__name__}")
    if not value or len(value) > MAX_ID_LENGTH:
        raise InvalidData(f"a document id must have 1 to {MAX_ID_LENGTH} characters, not {len(value)}")
    if any(ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0 for char in value) or _UNSAFE_TEXT.search(value):
        raise InvalidData("a document id must not contain control characters or lone surrogates")
    return value


def _where(path: str) -> str:
    return f"field {path!r}" if path else "the document"


def check_value(value: Any, path: str = "", depth: int = 0) -> Any:
    """``value`` as plain JSON (tuples become lists, subclasses their base), or ``InvalidData`` naming the field that is not."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if not _INT_MIN <= value <= _INT_MAX:
            raise InvalidData(f"{_where(path)}: integers must fit in 64 bits (store a larger one as a string)")
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidData(f"{_where(path)}: NaN and infinite numbers are not JSON")
        return float(value)
    if isinstance(value, str):
        if _UNSAFE_TEXT.search(value):
            raise InvalidData(f"{_where(path)}: text must not contain NUL characters or lone surrogates")
        return str.__str__(value)
    if depth >= MAX_DEPTH:
        raise InvalidData(f"{_where(path)}: documents may be nested at most {MAX_DEPTH} levels deep")
    if isinstance(value, Mapping):
        checked: dict[str, Any] = {}
        for key, item in value.items():
            inner = f"{path}.{key}" if path else str(key)
            checked[_check_key(key, path)] = check_value(item, inner, depth + 1)
        return checked
    if isinstance(value, list | tuple):
        return [check_value(item, f"{path}[{index}]", depth + 1) for index, item in enumerate(value)]
    raise InvalidData(
        f"{_where(path)}: a value of type {type(value).__name__} is not JSON "
        "(store a pydantic model, or convert it to text, a number or a list first)"
    )


def _check_key(key: object, path: str) -> str:
    where = f"in {_where(path)}" if path else "in the document"
    if not isinstance(key, str):
        raise InvalidData(f"{where}: keys must be strings, not {type(key).__name__}")
    if not key or "." in key or key.startswith("$") or _UNSAFE_TEXT.search(key):
        raise InvalidData(
            f"{where}: key {key!r} is not allowed (keys are non-empty, without '.' or a leading '$', and without NUL)"
        )
    return key


def split_document(document: Mapping[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """The ``_id`` of ``document`` (``None`` without one) and its checked body, which never holds ``_id``."""
    if not isinstance(document, Mapping):
        raise InvalidData(f"a document must be a JSON object, not {type(document).__name__}")
    given = document.get(ID_KEY)
    identifier = None if given is None else check_id(given)
    body = check_value({key: value for key, value in document.items() if key != ID_KEY})
    return identifier, body


def encode_document(body: Mapping[str, Any]) -> str:
    """The one text a checked body is stored as."""
    text = write_json(body, ensure_ascii=False, separators=(",", ":"))
    if len(text) > MAX_DOCUMENT_BYTES // 4 and len(text.encode()) > MAX_DOCUMENT_BYTES:
        raise InvalidData(f"a document may hold at most {MAX_DOCUMENT_BYTES} bytes of JSON")
    return text


def decode_document(identifier: str, text: str) -> dict[str, Any]:
    """A stored body read back, with its id first under ``_id``."""
    body = read_json(text)
    return {ID_KEY: identifier, **body}


def merge_patch(target: Any, patch: Any) -> Any:
    """``target`` changed by ``patch`` as RFC 7396 says: objects merge, ``None`` removes, anything else replaces."""
    if not isinstance(patch, dict):
        return patch
    merged = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = merge_patch(merged.get(key), value)
    return merged


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def search_words(text_or_body: str | Mapping[str, Any]) -> list[str]:
    """The words text search sees: runs of letters and digits, lower-cased, from every string value.

    The same words are given to both backends' full-text indexes, so that they agree on what matches.
    """
    text = text_or_body if isinstance(text_or_body, str) else "\n".join(_strings(text_or_body))
    return _WORD.findall(text.lower())


def json_equal(left: Any, right: Any) -> bool:
    """Whether two JSON values are equal: numbers by value, ``true`` never equal to ``1``, objects by keys."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[key], right[key]) for key in left)
    return type(left) is type(right) and left == right
