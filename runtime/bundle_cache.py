"""The per-user folder of extracted bundles: held while in use, pruned when unused for a week.

Every compile of a changed tool gives its bundle a new sha256, so the folder of extracted
bundles (``extract``) would only grow.  Extraction is a pure function of the bundle and costs
milliseconds, so a folder that no process used for ``MAX_AGE`` (a week, as a build cache
keeps what an active week used) is removed, and made again if it is ever needed:

- Beside ``<root>/<sha256>/`` the folder ``<root>.locks/`` holds ``<sha256>.lock``.  A process
  that uses an extracted folder takes a shared ``flock`` on its lock file before it first
  looks at the folder, and keeps it for as long as the module space that imports from it
  lives (``hold_folder``; its modules keep it alive), or until the process ends: a running
  ``skill serve`` imports bundle modules and reads their data files at call time.  One
  descriptor per folder in use, for at most a quarter of the descriptors the process may
  open (``RLIMIT_NOFILE``): a process that uses more folders than that (a server of
  hundreds of tools, under macOS's default of 256) marks the others used without holding
  them, so that its tools' own files, sockets and databases still find descriptors, and
  marks them again every day while it uses them (a daemon thread), so that a server running
  for weeks never finds one pruned under it.  The lock file's modification time is the
  folder's last use, refreshed at most once an hour.
- ``prune_bundles`` removes a folder only when its last use is older than ``MAX_AGE`` and it
  has taken the exclusive lock without waiting (so no live process holds it), then looks at
  the last use again; it renames the folder aside (``.prune-*``) and removes the lock file
  before it lets go, then deletes the renamed folder.  A process that opened the lock file
  meanwhile finds, once it has its lock, that the file is no longer the one at that name,
  and starts again: it extracts a fresh folder, never sees half of one.  Everything is
  removed by name inside the folders opened without following a link; a link, a file or a
  name that is not an extraction's is left alone.
- ``schedule_prune`` prunes in a background thread, never on the path of a call, at most
  once a day per folder (the modification time of ``<root>.locks/prune.stamp``), one process
  at a time (an exclusive lock on the stamp); at exit a process waits at most
  ``_FINISH_WAIT`` seconds for it.  Any error while pruning is logged and ignored.

Where ``flock`` does not exist (Windows), nothing is held and nothing is pruned.

An extracted folder is sealed once written (``seal``): every folder in it ``0o555``, every
file ``0o444``, so that a tool that writes into the bundle it runs from (a notes file next
to its module) fails there with ``PermissionError``, as the compile's
``skill/write-into-bundle`` says, instead of changing a cache that other tools never read
and the next compile replaces.  (The superuser writes anyway: permissions do not bind it.)
``remove_tree`` unseals what it removes.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import re
import shutil
import stat
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

if sys.platform != "win32":
    import fcntl
    import resource

__all__ = [
    "MAX_AGE",
    "SEALED_FILE",
    "hold_folder",
    "locks_folder",
    "private_folder",
    "prune_bundles",
    "remove_tree",
    "schedule_prune",
    "seal",
]

logger = logging.getLogger("skillc.runtime")

#: An extracted folder unused for this long (seconds) is removed.
MAX_AGE = 7 * 24 * 3600.0
#: A folder is pruned at most this often (seconds).
PRUNE_EVERY = 24 * 3600.0
#: A lock file's modification time is refreshed when it is older than this (seconds).
_TOUCH_EVERY = 3600.0
#: A process holds at most this share of the descriptors it may open (1/4): the rest are its tools'.
_HOLD_SHARE = 4
#: A folder used past that share is marked used again this often (seconds), while it is used:
#: a prune, which removes what was unused for ``MAX_AGE``, never finds it stale.
_REMARK_EVERY = PRUNE_EVERY
#: How long a process waits for its shared lock (a pruner holds the exclusive one only for a
#: rename and an unlink), and how many times it opens the lock file again when a pruner
#: removed the one it had opened.
_LOCK_WAIT = 5.0
_LOCK_POLL = 0.01
_LOCK_ATTEMPTS = 8
#: What a process waits at exit for a prune it started.
_FINISH_WAIT = 2.0
#: A work folder of ``extract`` older than this (seconds) belongs to an extraction that died.
_WORK_AGE = 24 * 3600.0
_STAMP = "prune.stamp"
_LOCK_SUFFIX = ".lock"
_ASIDE = ".prune-"
_SHA256 = re.compile(r"[0-9a-f]{64}")
#: ``extract``'s work folders: ``tempfile.mkdtemp(prefix=f".{sha256[:16]}-")``.
_WORK = re.compile(r"\.[0-9a-f]{16}-[0-9a-z_]+")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW
_LOCK_FLAGS = os.O_RDWR | os.O_CREAT | _NOFOLLOW


def private_folder(path: Path) -> bool:
    """Whether ``path`` is a real folder (no link) that only this user may write to."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return False
    getuid = getattr(os, "getuid", None)
    if getuid is not None and (info.st_uid != getuid() or info.st_mode & 0o022):
        return False
    return True


#: The mode of every folder of a sealed extraction: read and list, never change.
SEALED_FOLDER = 0o555
#: The mode an extracted file is created with.
SEALED_FILE = 0o444
#: Whether folders are sealed here (Windows reads 0o444 as "read-only", which no removal undoes).
_SEALING = sys.platform != "win32"


def seal(folder: Path) -> None:
    """Make every folder of the extracted ``folder`` (itself included) read and list only; its
    files were created read-only (``SEALED_FILE``).  Never through a link."""
    if _SEALING:
        for _, _, _, descriptor in os.fwalk(folder):
            os.fchmod(descriptor, SEALED_FOLDER)


def remove_tree(name: str | Path, folder: int | None = None) -> None:
    """Remove the tree ``name`` (in the folder open as ``folder``, if given), sealed or not, never
    following a link; whatever cannot be removed stays."""
    if _SEALING:
        with contextlib.suppress(OSError):
            for _, _, _, descriptor in os.fwalk(name, dir_fd=folder):
                os.fchmod(descriptor, 0o700)
    shutil.rmtree(name, ignore_errors=True, dir_fd=folder)


def locks_folder(root: Path) -> Path:
    """Where the lock files of the extracted folders in ``root`` live."""
    return root.with_name(root.name + ".locks")


def _made_locks_folder(root: Path) -> Path | None:
    folder = locks_folder(root)
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    return folder if private_folder(folder) else None


# --- holding a folder ---------------------------------------------------------------------

#: The lock files this process holds, each open with its shared lock: its descriptor, and how
#: many holders use it.  A holder that is garbage collected is only noted in ``_COLLECTED``
#: (a finalizer may run at any allocation, even inside ``hold_folder``); the next
#: ``hold_folder`` lets its locks go.
_HELD: dict[Path, list[int]] = {}
#: The lock files of the folders this process uses past its share, unheld, and how many
#: holders use each: ``_remark`` marks them used every ``_REMARK_EVERY``.
_MARKED: dict[Path, int] = {}
#: Each collected holder's lock file, and whether it held it (else it had it marked).
_COLLECTED: list[tuple[Path, bool]] = []
_HELD_GUARD = threading.Lock()
_REMARKER: list[threading.Thread] = []


def hold_folder(root: Path, sha256: str, holder: object | None = None) -> bool:
    """Hold the extracted folder ``root/<sha256>`` for as long as ``holder`` lives (without
    one, until the process ends): see the module.

    Call it before looking at the folder.  ``False`` when no lock can be had (no lock folder,
    no ``flock``, no free descriptor) or when the process holds its share of descriptors
    already (``_HOLD_SHARE``; the folder's lock file is then marked used, now and every
    ``_REMARK_EVERY`` for as long as ``holder`` lives, so that a pruner leaves it): the folder
    is then used as before there were locks.
    """
    if sys.platform == "win32":
        return False
    path = locks_folder(root) / f"{sha256}{_LOCK_SUFFIX}"
    with _HELD_GUARD:
        _let_collected_go()
        entry = _HELD.get(path)
        if entry is None:
            if _made_locks_folder(root) is None:
                return False
            if len(_HELD) >= _hold_budget():
                _mark_path_used(path)
                _MARKED[path] = _MARKED.get(path, 0) + 1
                if holder is not None:
                    weakref.finalize(holder, _COLLECTED.append, (path, False))
                _start_remarking()
                return False
            try:
                descriptor = _shared_lock(path)
            except OSError as error:
                logger.debug("cannot lock %s: %s", path, error)
                return False
            if descriptor is None:
                return False
            entry = _HELD[path] = [descriptor, 0]
        entry[1] += 1
        if holder is not None:
            weakref.finalize(holder, _COLLECTED.append, (path, True))
    return True


def _hold_budget() -> int:
    """How many lock files this process may hold open: its share of the descriptors it may open now."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft // _HOLD_SHARE if soft != resource.RLIM_INFINITY else sys.maxsize


def _mark_path_used(path: Path) -> None:
    """Mark the folder of the lock file ``path`` used now (making the file if need be), holding nothing."""
    try:
        descriptor = os.open(path, _LOCK_FLAGS, 0o600)
        try:
            _mark_used(descriptor)
        finally:
            os.close(descriptor)
    except OSError as error:
        logger.debug("cannot mark %s used: %s", path, error)


def _let_collected_go() -> None:
    """Release the holds and marks of the holders collected since the last call (under ``_HELD_GUARD``)."""
    while _COLLECTED:
        path, held = _COLLECTED.pop()
        if not held:
            count = _MARKED.get(path, 0) - 1
            if count > 0:
                _MARKED[path] = count
            else:
                _MARKED.pop(path, None)
            continue
        entry = _HELD.get(path)
        if entry is not None:
            entry[1] -= 1
            if entry[1] <= 0:
                del _HELD[path]
                os.close(entry[0])


def _start_remarking() -> None:
    """Start the thread that marks the unheld folders used again, once per process (under ``_HELD_GUARD``)."""
    if _REMARKER:
        return
    thread = threading.Thread(target=_remark, name="skillc-remark-bundles", daemon=True)
    try:
        thread.start()
    except RuntimeError as error:  # no thread to be had: the folders were marked once, now
        logger.debug("cannot start marking the bundle folders in use: %s", error)
        return
    _REMARKER.append(thread)


def _remark() -> None:
    """Every ``_REMARK_EVERY``, mark used the folders this process uses past its share."""
    while True:
        time.sleep(_REMARK_EVERY)
        with _HELD_GUARD:
            _let_collected_go()
            paths = list(_MARKED)
        for path in paths:
            _mark_path_used(path)


def _shared_lock(path: Path) -> int | None:
    """A descriptor of the lock file ``path`` holding a shared lock, the file still at ``path``."""
    deadline = time.monotonic() + _LOCK_WAIT
    for _ in range(_LOCK_ATTEMPTS):
        descriptor = os.open(path, _LOCK_FLAGS, 0o600)
        kept = False
        try:
            if not _lock(descriptor, fcntl.LOCK_SH, deadline):
                return None
            if _still_at(descriptor, path):
                _mark_used(descriptor)
                kept = True
                return descriptor
        finally:
            if not kept:
                os.close(descriptor)
    return None


def _lock(descriptor: int, mode: int, deadline: float) -> bool:
    """Take the ``flock`` ``mode`` on ``descriptor``, polling until ``deadline`` (monotonic)."""
    while True:
        try:
            fcntl.flock(descriptor, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(_LOCK_POLL)
        else:
            return True


def _still_at(descriptor: int, path: Path | str, folder: int | None = None) -> bool:
    """Whether the open ``descriptor`` is still the file named ``path`` (not removed by a pruner)."""
    try:
        named = os.stat(path, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(descriptor)
    return (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino)


def _mark_used(descriptor: int) -> None:
    if time.time() - os.fstat(descriptor).st_mtime > _TOUCH_EVERY:
        os.utime(descriptor)


# --- pruning ------------------------------------------------------------------------------


@contextlib.contextmanager
def _opened(folder: Path) -> Iterator[int]:
    """``folder`` opened as a folder, never through a link."""
    descriptor = os.open(folder, _FOLDER_FLAGS)
    try:
        yield descriptor
    finally:
        os.close(descriptor)


def _lstat(name: str, folder: int) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None


def prune_bundles(root: Path, *, max_age: float = MAX_AGE, every: float = 0.0) -> tuple[str, ...]:
    """Remove the extracted folders of ``root`` that no process used for ``max_age`` seconds and
    none holds now; the sha256 of each removed, sorted.

    Nothing when another process is pruning ``root``, or when a prune of it finished less than
    ``every`` seconds ago; errors other than a folder's own are raised (``schedule_prune``
    logs them).
    """
    if sys.platform == "win32" or not private_folder(root):
        return ()
    locks = _made_locks_folder(root)
    if locks is None:
        return ()
    stamp = locks / _STAMP
    before = _lstat_path(stamp)
    descriptor = os.open(stamp, _LOCK_FLAGS, 0o600)
    try:
        if not _lock(descriptor, fcntl.LOCK_EX, time.monotonic()):
            return ()  # another process is pruning
        if before is not None and time.time() - os.fstat(descriptor).st_mtime < every:
            return ()
        with _opened(root) as root_folder, _opened(locks) as lock_folder:
            removed = _prune(root_folder, lock_folder, time.time() - max_age)
        os.utime(descriptor)
        return removed
    finally:
        os.close(descriptor)


def _lstat_path(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _prune(root: int, locks: int, cutoff: float) -> tuple[str, ...]:
    names = os.listdir(root)
    candidates = {name for name in names if _SHA256.fullmatch(name)}
    for name in os.listdir(locks):
        sha256 = name.removesuffix(_LOCK_SUFFIX)
        if name.endswith(_LOCK_SUFFIX) and _SHA256.fullmatch(sha256):
            candidates.add(sha256)  # a lock file whose folder is gone goes too
    removed = []
    for sha256 in sorted(candidates):
        try:
            if _prune_one(root, locks, sha256, cutoff):
                removed.append(sha256)
        except OSError as error:  # this folder stays; the others are still pruned
            logger.debug("cannot prune the extracted bundle %s: %s", sha256, error)
    now = time.time()
    for name in names:
        leftover = name.startswith(_ASIDE) or _WORK.fullmatch(name) is not None
        info = _lstat(name, root) if leftover else None
        if info is not None and stat.S_ISDIR(info.st_mode):
            if name.startswith(_ASIDE) or info.st_mtime < now - _WORK_AGE:
                remove_tree(name, root)
    return tuple(removed)


def _last_use(*infos: os.stat_result | None) -> float:
    return max((info.st_mtime for info in infos if info is not None), default=0.0)


def _prune_one(root: int, locks: int, sha256: str, cutoff: float) -> bool:
    """Remove the extracted folder ``sha256`` and its lock file if unused since ``cutoff``."""
    lock_name = sha256 + _LOCK_SUFFIX
    folder = _lstat(sha256, root)
    if folder is not None and not stat.S_ISDIR(folder.st_mode):
        return False  # a link or a file: not an extraction
    lock = _lstat(lock_name, locks)
    if lock is not None and not stat.S_ISREG(lock.st_mode):
        return False
    if _last_use(folder, lock) >= cutoff:
        return False
    # A lock file that did not exist is made exclusively: a process that makes it first is using it.
    flags = _LOCK_FLAGS if lock is not None else _LOCK_FLAGS | os.O_EXCL
    try:
        descriptor = os.open(lock_name, flags, 0o600, dir_fd=locks)
    except (FileExistsError, FileNotFoundError):
        return False
    aside: str | None = None
    try:
        if not _lock(descriptor, fcntl.LOCK_EX, time.monotonic()) or not _still_at(descriptor, lock_name, locks):
            return False  # held by a live process, or replaced meanwhile
        if lock is not None and os.fstat(descriptor).st_mtime_ns != lock.st_mtime_ns:
            return False  # used since it was looked at
        if _lstat(sha256, root) is not None:
            aside = f"{_ASIDE}{sha256[:16]}-{os.urandom(4).hex()}"
            os.rename(sha256, aside, src_dir_fd=root, dst_dir_fd=root)
        os.unlink(lock_name, dir_fd=locks)
    finally:
        os.close(descriptor)
    if aside is not None:
        remove_tree(aside, root)
    return True


# --- pruning in the background -----------------------------------------------------------

_SCHEDULED: set[Path] = set()
_PRUNERS: list[threading.Thread] = []
_SCHEDULE_GUARD = threading.Lock()


def schedule_prune(root: Path) -> None:
    """Prune ``root`` in a background thread if no prune of it finished in the last day.

    Looked at once per process and folder (one ``stat``), so it may be called on every
    extraction.
    """
    if sys.platform == "win32":
        return
    with _SCHEDULE_GUARD:
        if root in _SCHEDULED:
            return
        _SCHEDULED.add(root)
        stamp = _lstat_path(locks_folder(root) / _STAMP)
        if stamp is not None and time.time() - stamp.st_mtime < PRUNE_EVERY:
            return
        thread = threading.Thread(target=_prune_quietly, args=(root,), name="skillc-prune-bundles", daemon=True)
        try:
            thread.start()
        except RuntimeError as error:  # no thread to be had: the next process prunes
            logger.debug("cannot start pruning %s: %s", root, error)
            return
        if not _PRUNERS:
            atexit.register(_let_pruning_finish)
        _PRUNERS.append(thread)


def _prune_quietly(root: Path) -> None:
    try:
        prune_bundles(root, every=PRUNE_EVERY)
    except Exception as error:  # pruning only saves space: whatever goes wrong, no command fails for it
        logger.warning("could not prune the extracted bundles in %s: %s", root, error)


def _let_pruning_finish() -> None:
    deadline = time.monotonic() + _FINISH_WAIT
    for thread in list(_PRUNERS):
        thread.join(max(0.0, deadline - time.monotonic()))
