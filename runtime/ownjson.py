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
from types import ModuleType
from typing import Final

__all__ = ["DECODING", "ENCODING"]


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
