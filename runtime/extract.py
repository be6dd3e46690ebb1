"""Put a verified bundle on disk once, so that its modules have a real ``__file__``.

A tool that reads ``Path(__file__).parent / "data" / "x.json"`` or uses
``importlib.resources.files(__package__)`` needs its package to be a folder, not a
member of a zip.  ``extracted_folder`` writes the bundle's files into a folder named
by the bundle's sha256 (``$XDG_CACHE_HOME/skillc/bundles/<sha256>/``, else
``~/.cache/...``, else a private folder in the temporary directory) and returns it;
a folder that already exists is reused as it is: its name is the content it was
made from, and only this user can write there, and it is sealed once written
(``bundle_cache.seal``: read-only, so that no tool changes the files it reads).  The process holds the folder from before
it first looks at it until it ends, and folders that no process used for a week are
removed (``bundle_cache``): the cache does not grow for ever, and a folder in use is never
taken away.

Extraction is atomic and safe with several processes loading the same bundle at
once: the files are written into a fresh private folder that is then renamed to its
final name; whoever loses the race drops its copy and uses the winner's.  Files are
created exclusively and never through a symbolic link; member names are checked by
the caller (``bundles``) before anything is written.  The code that runs is still
compiled from the verified bytes in memory: the folder only gives data files a place.
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from .bundle_cache import SEALED_FILE, hold_folder, private_folder, remove_tree, schedule_prune, seal

__all__ = ["bundle_cache_root", "extracted_folder", "unsafe_member"]

_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


def unsafe_member(name: str) -> str | None:
    """Why the archive member ``name`` may not be written to disk, or ``None`` when it may."""
    if not name or "\0" in name or "\\" in name:
        return "an empty name, a NUL or a backslash"
    if name.startswith("/"):
        return "an absolute path"
    parts = PurePosixPath(name).parts
    if any(part in ("", ".", "..") for part in name.rstrip("/").split("/")):
        return "a '.' or '..' part"
    if parts and ":" in parts[0]:
        return "a drive name"
    return None


def _candidates() -> list[Path]:
    base = os.environ.get("XDG_CACHE_HOME")
    home = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    getuid = getattr(os, "getuid", None)
    user = str(getuid()) if getuid is not None else "user"
    return [home / "skillc" / "bundles", Path(tempfile.gettempdir()) / f"skillc-{user}" / "bundles"]


def bundle_cache_root() -> Path | None:
    """The folder extracted bundles live in, made if need be; ``None`` if none can be."""
    for root in _candidates():
        try:
            root.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            root.mkdir(mode=0o700, exist_ok=True)
        except OSError:
            continue
        if private_folder(root) and private_folder(root.parent):
            return root
    return None


def _write(folder: Path, files: Mapping[str, bytes]) -> None:
    for name, content in files.items():
        target = folder / name
        target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        descriptor = os.open(target, _WRITE_FLAGS, SEALED_FILE)
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(content)


def extracted_folder(
    sha256: str, files: Mapping[str, bytes], root: Path | None = None, *, holder: object | None = None
) -> Path | None:
    """The folder holding ``files`` (the bundle whose sha256 is ``sha256``), extracted once,
    and held (never pruned) for as long as ``holder`` lives, or without one until the process ends.

    ``None`` when no cache folder can be written (a read-only home and temporary
    directory): the modules are then served from memory alone, without a ``__file__``
    on disk.
    """
    root = root if root is not None else bundle_cache_root()
    if root is None:
        return None
    hold_folder(root, sha256, holder)  # before the folder is looked at: no pruner takes it away now
    schedule_prune(root)
    final = root / sha256
    if private_folder(final):
        return final
    try:
        work = Path(tempfile.mkdtemp(prefix=f".{sha256[:16]}-", dir=root))
    except OSError:
        return None
    try:
        _write(work, files)
        os.chmod(work, 0o755)  # mkdtemp makes it private; the sources it holds are not secret
        seal(work)
        os.rename(work, final)
    except OSError as error:
        remove_tree(work)
        if error.errno in (errno.EEXIST, errno.ENOTEMPTY) and private_folder(final):
            return final  # another process extracted it first
        return None
    return final
