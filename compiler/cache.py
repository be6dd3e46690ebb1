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

The folder never holds more than this version uses (``CACHE_FILES``): a cache that becomes
empty is removed rather than written, and the first write of a process removes every
skillc cache file of another layout or version (``prune_cache``): a file is skillc's by
its name and its first bytes (``_MAGIC``, or the bare pickle that skillc wrote before caches
were signed), and nothing else a user put there is touched.  Files are removed by name
inside the folder opened without following a link, never through one.

A process that compiles again and again (``skill compile --watch``) keeps what it last
read or wrote of each cache file in memory, and uses it as long as the file is the very
one it was taken from: same inode, size, and modification and change times (no write,
rename or copy keeps all four).  Any other file is read and verified again.  It also
holds back what a compile writes (``held_writes``) until it has reported the compile:
the files are then written, before it waits for the next change.  A cache only makes a
compile faster, and never decides its result, so one that a killed process did not
write in time only makes the next compile do more of the work again.
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
import re
import stat
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path

from ..contracts.version import __version__

__all__ = [
    "ARTIFACT_SHARDS",
    "CACHE_DIR",
    "CACHE_FILES",
    "CACHE_FORMAT",
    "INDEX_KEYS_FILE",
    "INDEX_SHARDS",
    "LINK_FILE",
    "REPORT_FILE",
    "artifacts_file",
    "cache_key_path",
    "held_writes",
    "index_file",
    "load_cache",
    "prune_cache",
    "write_cache",
]

CACHE_DIR = Path(".skill") / "cache"
#: Bump when a cached data type changes shape: older caches are then ignored.
CACHE_FORMAT = 61
_SAFE_BUILTINS = frozenset({"Ellipsis", "complex", "frozenset", "set"})
#: Every cache file starts with this, then the signature of the rest.
_MAGIC = b"skillc-cache\n"
_SIGNATURE = hashlib.sha256().digest_size
_KEY_BYTES = 32

# The files of ``CACHE_DIR`` are named here, and the modules that write them take their names
# from here: ``prune_cache`` removes any other skillc cache file (the tests check that a
# compile writes nothing else).

#: The last compile's report (``api``).
REPORT_FILE = "report.pickle"
#: The last link (``link_cache``).
LINK_FILE = "link.pickle"
#: The index's keys and what each holds (``index_cache``): read first, it tells which
#: summaries can wait until they are needed.
INDEX_KEYS_FILE = "index-keys.pickle"
#: The index's shards, by the first two hex digits of a key (``index_cache.shard_of``): so
#: that changing one file rewrites a small part of it, and a compile that needs a few modules
#: reads a small part; more shards would cost a cold compile more files to write.
INDEX_SHARDS = tuple(f"{number:02x}" for number in range(64))
#: The artifacts' shards, by tool (``artifacts.artifact_shard``): a change of one tool
#: rewrites a sixteenth of them (its bundles are most of their bytes).
ARTIFACT_SHARDS = "0123456789abcdef"


def index_file(shard: str) -> str:
    """The name of one of ``INDEX_SHARDS``' files."""
    return f"index-{shard}.pickle"


def artifacts_file(shard: str) -> str:
    """The name of one of ``ARTIFACT_SHARDS``' files."""
    return f"artifacts-{shard}.pickle"


#: Every file this version keeps in ``CACHE_DIR``.
CACHE_FILES = frozenset(
    {
        REPORT_FILE,
        LINK_FILE,
        INDEX_KEYS_FILE,
        *map(index_file, INDEX_SHARDS),
        *map(artifacts_file, ARTIFACT_SHARDS),
    }
)
#: How every pickle that skillc wrote before caches were signed begins (protocol 5).
_BARE_PICKLE = b"\x80\x05"
#: The names such unsigned caches had: one index or artifacts file, or shards of them.
_UNSIGNED_NAMES = re.compile(r"(?:index|artifacts)(?:-[0-9a-z]+)?\.pickle")
#: ``write_cache``'s temporary files (``tempfile.mkstemp``); older than an hour, their writer is gone.
_TEMPORARY = re.compile(r"\.[0-9a-z-]+-[0-9a-z_]+\.tmp")
_TEMPORARY_AGE = 3600.0
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


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
                stream.write(os.urandom(_KEY_BYTES))  # what secrets.token_bytes returns, without importing it
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


#: The folders this process has pruned already (``write_cache``).
_PRUNED: set[Path] = set()

#: Inside ``held_writes``: the cache files it will write, by path, each with the last entries given.
_HELD: ContextVar[dict[Path, dict[str, object]] | None] = ContextVar("skillc_held_cache_writes", default=None)


@contextlib.contextmanager
def held_writes() -> Iterator[None]:
    """Write the cache files that ``write_cache`` is given inside the block when the block
    ends (however it ends), each once, with the last entries given for it; inside, ``load_cache``
    gives what is held for a file as if it had been written.
    """
    held: dict[Path, dict[str, object]] = {}
    token = _HELD.set(held)
    try:
        yield
    finally:
        _HELD.reset(token)
        for path, entries in held.items():
            _write_cache(path, entries)


def _identity(path: Path) -> tuple[int, int, int, int] | None:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def load_cache(path: Path, types: Iterable[type]) -> dict[str, object]:
    """The entries of a cache file, or ``{}`` when it is missing, stale or corrupt."""
    held = _HELD.get()
    if held is not None and path in held:
        return dict(held[path])
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
    """Replace the cache file atomically; failing to write only costs speed next time.

    Empty ``entries`` remove the file instead (a missing cache reads as an empty one), and
    the first write of a process into a folder removes its orphans first (``prune_cache``).
    Inside ``held_writes``, the file is written when the block ends.
    """
    held = _HELD.get()
    if held is not None:
        held[path] = dict(entries)
        return
    _write_cache(path, entries)


def _write_cache(path: Path, entries: Mapping[str, object]) -> None:
    key = _key(cache_key_path())
    if key is None:
        return
    temporary: str | None = None
    try:
        if not _usable(path):
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.parent not in _PRUNED:
            _PRUNED.add(path.parent)
            prune_cache(path.parent)
        if not entries:
            _REMEMBERED.pop(path, None)
            _remove(path.parent, path.name)
            return
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


@contextlib.contextmanager
def _opened_folder(folder: Path) -> Iterator[int | None]:
    """A descriptor of ``folder``, opened without following a link there or at its parent
    (``.skill/``); ``None`` when either is a link or missing, or this system cannot."""
    descriptor: int | None = None
    if os.open in os.supports_dir_fd:
        try:
            parent = os.open(folder.parent, _FOLDER_FLAGS)
        except OSError:
            parent = None
        if parent is not None:
            try:
                descriptor = os.open(folder.name, _FOLDER_FLAGS, dir_fd=parent)
            except OSError:
                descriptor = None
            finally:
                os.close(parent)
    try:
        yield descriptor
    finally:
        if descriptor is not None:
            os.close(descriptor)


def _unlink(folder: int, name: str) -> bool:
    try:
        os.unlink(name, dir_fd=folder)
    except OSError:
        return False
    return True


def _remove(folder: Path, name: str) -> None:
    """Unlink ``name`` inside ``folder``, never through a link."""
    with _opened_folder(folder) as descriptor:
        if descriptor is not None:
            _unlink(descriptor, name)


def _orphan(folder: int, name: str) -> bool:
    """Whether ``name`` in the open ``folder`` is a skillc cache file this version does not use:
    a regular file (never a link), named as skillc names its caches, that begins as they do."""
    temporary = _TEMPORARY.fullmatch(name) is not None
    if name in CACHE_FILES or not (temporary or name.endswith(".pickle")):
        return False
    try:
        handle = os.open(name, _READ_FLAGS, dir_fd=folder)
    except OSError:  # a link (O_NOFOLLOW), gone, unreadable: not to be touched
        return False
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            return False
        if temporary and info.st_mtime > time.time() - _TEMPORARY_AGE:
            return False  # a compile may be writing it now
        head = os.read(handle, len(_MAGIC))
    except OSError:
        return False
    finally:
        os.close(handle)
    if head == _MAGIC:
        return True
    if temporary:  # its writer stopped before the header, or it is an unsigned cache's
        return _MAGIC.startswith(head) or head.startswith(_BARE_PICKLE)
    return head.startswith(_BARE_PICKLE) and _UNSIGNED_NAMES.fullmatch(name) is not None


def prune_cache(folder: Path) -> tuple[str, ...]:
    """Remove every skillc cache file in ``folder`` that this version does not use; the names removed.

    Only where ``folder`` and its parent are real folders; a link, a folder, a file that is not
    skillc's and a temporary file that a compile may still be writing are left alone.
    """
    with _opened_folder(folder) as descriptor:
        if descriptor is None:
            return ()
        try:
            names = os.listdir(descriptor)
        except OSError:
            return ()
        return tuple(name for name in sorted(names) if _orphan(descriptor, name) and _unlink(descriptor, name))
