"""The compiler's caches under ``.skill/cache/``: data only, versioned, written atomically.

A cache file is a pickle of plain data, loaded by an unpickler that accepts only the
compiler's own data types: a cache in a project folder is input like any other file,
and loading it must never run code.  A file written by another skillc or Python
version, or damaged in any way, is ignored.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import pickle
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["CACHE_DIR", "CACHE_FORMAT", "load_cache", "write_cache"]

CACHE_DIR = Path(".skill") / "cache"
#: Bump when a cached data type changes shape: older caches are then ignored.
CACHE_FORMAT = 3
_SAFE_BUILTINS = frozenset({"Ellipsis", "complex", "frozenset", "set"})


def _version() -> str:
    from .. import __version__

    return f"{__version__}/{CACHE_FORMAT}/{sys.version_info[:2]}"


class _DataUnpickler(pickle.Unpickler):
    """Load only the given classes (and a few harmless builtins)."""

    def __init__(self, stream: object, allowed: dict[tuple[str, str], type]) -> None:
        super().__init__(stream)  # type: ignore[arg-type]
        self.allowed = allowed

    def find_class(self, module: str, name: str) -> object:
        if (module, name) in self.allowed:
            return self.allowed[(module, name)]
        if module == "builtins" and name in _SAFE_BUILTINS:
            return getattr(builtins, name)
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from the cache")


def load_cache(path: Path, types: Iterable[type]) -> dict[str, object]:
    """The entries of a cache file, or ``{}`` when it is missing, stale or corrupt."""
    allowed = {(cls.__module__, cls.__qualname__): cls for cls in types}
    try:
        with path.open("rb") as stream:
            document = _DataUnpickler(stream, allowed).load()
    except FileNotFoundError:
        return {}
    except Exception:  # a corrupt cache is ignored, whatever is wrong with it
        return {}
    if (
        not isinstance(document, dict)
        or document.get("version") != _version()
        or not isinstance(document.get("entries"), dict)
    ):
        return {}
    entries: dict[str, object] = document["entries"]
    return entries


def write_cache(path: Path, entries: Mapping[str, object]) -> None:
    """Replace the cache file atomically; failing to write only costs speed next time."""
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            pickle.dump({"version": _version(), "entries": dict(entries)}, stream, protocol=5)
        os.replace(temporary, path)
    except OSError:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
