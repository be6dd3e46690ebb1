"""skillc's own copies of the standard library's JSON encoder and decoder, made at import.

Tool code runs in skillc's process and may replace ``json.dumps``, patch
``json.JSONEncoder`` or swap ``json.JSONDecoder``; what skillc itself reads and writes
(arguments, results, thread files, the command line's output) must not change with it.
The modules here are fresh executions of ``json.encoder`` and ``json.decoder``, taken
before any tool's code runs, that nobody else holds.

The C scanner raises the ``JSONDecodeError`` of the shared ``json.decoder`` module: catch
``ValueError`` and read ``msg``, ``lineno`` and ``colno`` from it, not a class from here.
"""

from __future__ import annotations

import importlib.util
import json
from types import ModuleType
from typing import Any, Final

__all__ = ["DECODING", "ENCODING", "as_text", "read_json", "write_json"]


def _own_copy(name: str) -> ModuleType:
    """A fresh copy of the standard library's module ``name``, run now, before any tool's code."""
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.loader is not None, name
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: ``json.encoder``, skillc's own: ``ENCODING.JSONEncoder(...)``.
ENCODING: Final = _own_copy("json.encoder")
#: ``json.decoder``, skillc's own: ``DECODING.JSONDecoder(...)``.
DECODING: Final = _own_copy("json.decoder")

_DECODE: Final = DECODING.JSONDecoder().decode
_detect_encoding: Final = json.detect_encoding


def as_text(data: str | bytes | bytearray) -> str:
    """JSON text as ``json.loads`` reads bytes (UTF-8, -16 or -32); not in any of them is a ``ValueError``."""
    if isinstance(data, str):
        return data
    return bytes(data).decode(_detect_encoding(data), "surrogatepass")


def write_json(
    value: object,
    *,
    indent: int | None = None,
    ensure_ascii: bool = True,
    sort_keys: bool = False,
    separators: tuple[str, str] | None = None,
) -> str:
    """``json.dumps(value, ...)`` as the standard library defines it, whatever tool code did to ``json``.

    NaN and infinities are refused (``ValueError``), as JSON has no spelling for them;
    a value that is not JSON data raises ``TypeError``.
    """
    encoder = ENCODING.JSONEncoder(
        indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys, allow_nan=False, separators=separators
    )
    text: str = encoder.encode(value)
    return text


def read_json(text: str | bytes | bytearray) -> Any:
    """``json.loads(text)`` as the standard library defines it, whatever tool code did to ``json``.

    Malformed text raises a ``ValueError`` (a ``JSONDecodeError``).
    """
    return _DECODE(as_text(text))
