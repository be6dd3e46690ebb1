"""The compiler's caches under ``.skill/cache/``: data only, versioned, signed, written atomically.

A cache in a project folder is input like any other file: it may arrive with a cloned
repository or be written by anyone.  So every cache file is signed with a key that
only this user's skillc knows (HMAC-SHA256; the key lives in the user's cache folder,
outside every project), and a file whose signature does not verify is ignored before
a byte of it is decoded.  What it holds is a pickle of plain data, loaded by an
unpickler that accepts only the compiler's own data types, so that even a signed file
cannot run code.  A file written by another skillc or Python version, or damaged in
any way, is ignored too.

Caches are used only where ``.skill/`` and ``.skill/cache/`` are real folders: through
a symbolic link, a compile would write (and later delete) wherever the link points.

A process that compiles again and again (``skill compile --watch``) keeps what it last
read or wrote of each cache file in memory, and uses it as long as the file is the very
one it was taken from: same inode, size, and modification and change times (no write,
rename or copy keeps all four).  Any other file is read and verified again.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import hashlib
import hmac
import io
import os
import pickle
import secrets
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..contracts.version import __version__

__all__ = ["CACHE_DIR", "CACHE_FORMAT", "cache_key_path", "load_cache", "write_cache"]

CACHE_DIR = Path(".skill") / "cache"
#: Bump when a cached data type changes shape: older caches are then ignored.
CACHE_FORMAT = 14
_SAFE_BUILTINS = frozenset({"Ellipsis", "complex", "frozenset", "set"})
#: Every cache file starts with this, then the signature of the rest.
_MAGIC = b"skillc-cache\n"
_SIGNATURE = hashlib.sha256().digest_size
_KEY_BYTES = 32


def cache_key_path() -> Path:
    """Where this user's cache key lives: ``$XDG_CACHE_HOME/skillc/cache.key``, else ``~/.cache``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "skillc" / "cache.key"


@functools.cache
def _key(path: Path) -> bytes | None:
    """This user's signing key, made on first use; ``None`` where none can be kept."""
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        key = b""
    except OSError:
        return None
    if len(key) == _KEY_BYTES:
        return key
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".cache-key-")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(secrets.token_bytes(_KEY_BYTES))
            try:
                os.link(temporary, path)  # fails if another process made the key first: use theirs
            except FileExistsError:
                if len(path.read_bytes()) != _KEY_BYTES:
                    os.replace(temporary, path)  # a damaged key: replace it
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        key = path.read_bytes()
    except OSError:
        return None
    return key if len(key) == _KEY_BYTES else None


def _usable(path: Path) -> bool:
    """Whether ``path``'s cache folder and ``.skill/`` above it are real folders, not links."""
    folder = path.parent
    return not folder.is_symlink() and not folder.parent.is_symlink()


def _version() -> str:
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


#: What this process last read or wrote of each cache file, by path: the file's identity
#: (``_identity``) then and its entries.
_REMEMBERED: dict[Path, tuple[tuple[int, int, int, int], dict[str, object]]] = {}


def _identity(path: Path) -> tuple[int, int, int, int] | None:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def load_cache(path: Path, types: Iterable[type]) -> dict[str, object]:
    """The entries of a cache file, or ``{}`` when it is missing, stale or corrupt."""
    key = _key(cache_key_path())
    if key is None or not _usable(path):
        return {}
    remembered = _REMEMBERED.get(path)
    identity = _identity(path) if remembered is not None else None
    if remembered is not None and identity == remembered[0]:
        return dict(remembered[1])
    allowed = {(cls.__module__, cls.__qualname__): cls for cls in types}
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    head = len(_MAGIC) + _SIGNATURE
    if not data.startswith(_MAGIC) or len(data) < head:
        return {}
    payload = memoryview(data)[head:]
    if not hmac.compare_digest(data[len(_MAGIC) : head], hmac.digest(key, payload, "sha256")):
        return {}  # not written by this user's skillc
    try:
        document = _DataUnpickler(io.BytesIO(payload), allowed).load()
    except Exception:  # a corrupt cache is ignored, whatever is wrong with it
        return {}
    if (
        not isinstance(document, dict)
        or document.get("version") != _version()
        or not isinstance(document.get("entries"), dict)
    ):
        return {}
    entries: dict[str, object] = document["entries"]
    identity = _identity(path)
    if identity is not None:
        _REMEMBERED[path] = (identity, entries)
    return dict(entries)


def write_cache(path: Path, entries: Mapping[str, object]) -> None:
    """Replace the cache file atomically; failing to write only costs speed next time."""
    key = _key(cache_key_path())
    if key is None:
        return
    temporary: str | None = None
    try:
        if not _usable(path):
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = pickle.dumps({"version": _version(), "entries": dict(entries)}, protocol=5)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            stream.write(_MAGIC + hmac.digest(key, payload, "sha256") + payload)
        os.replace(temporary, path)
        identity = _identity(path)
        if identity is not None:
            _REMEMBERED[path] = (identity, dict(entries))
    except OSError:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
