"""The folder a compile fills beside ``dist/`` and swaps in: fresh, or recycled from the last ``dist/`` retired.

After one tool changed, the next ``dist/`` is nearly the previous one, and making its
hundreds of folders (then deleting as many of the one it replaces) costs more than all
the rest of writing it.  So the ``dist/`` a swap retires is not deleted: it is parked in
``.skill/spare/`` (skillc's own folder, on the same file system), and the next compile
claims it as its staging folder and changes only the entries that differ.

What holds, whichever way the folder was made:

- Nothing in a recycled folder is trusted.  It is used only if it is exactly a tree skillc
  writes (``manifest.json``, ``tools/<name>/`` and ``skills/<name>/`` holding only the files
  of ``dist/``; folders and regular files, no symbolic link, nothing else), and only its
  folders and the inode identity of its files are used: a file is kept only if it is the
  very file the current ``dist/`` holds at the same place, whose bytes are compared with
  the new ones.  Anything else in it is unlinked, never opened.  (A process that compiles
  again and again proves it such a tree partly by what it recorded, ``spare_survey``, and
  compares with the bytes it wrote into a ``dist/`` proven unchanged since, ``dist_record``,
  rather than reading them back.)
- Nothing is written in place: a new file is always a new inode under a new name, so no
  byte of the current ``dist/`` changes while the next one is made.
- Every operation goes through folders opened without following links (``O_NOFOLLOW``),
  so nothing is read, written or deleted through a symbolic link, even one planted while
  the compile runs.
- A file of the current ``dist/`` is shared (hard-linked) only if its bytes equal the new
  ones and it has no name but its own and, at the same place, the recycled folder's.
- What the fill makes is recorded as it is made (``Staged.record``): the fingerprint of
  the new ``dist/`` needs no walk of it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Final, NamedTuple, TypeVar

from .dist_record import FOLDER, DistRecord, Recorder, Seen, Status, Written, proven, seen
from .output import staging_prefix
from .spare_survey import Survey, Unexpected, survey

__all__ = [
    "RECYCLING",
    "SPARE_DIR",
    "DistFiles",
    "Staged",
    "by_folder",
    "real_folder",
    "spare_folder",
    "stage_dist",
    "throw_away",
]

#: Where a retired ``dist/`` waits, inside the project, to become the next compile's staging folder.
SPARE_DIR = Path(".skill") / "spare"
#: Whether folders can be opened and worked in by descriptor (POSIX); elsewhere nothing is recycled.
RECYCLING = (
    hasattr(os, "O_DIRECTORY")
    and hasattr(os, "O_NOFOLLOW")
    and os.scandir in os.supports_fd
    and all(call in os.supports_dir_fd for call in (os.open, os.mkdir, os.unlink, os.rmdir, os.stat, os.link))
)
_USER = os.geteuid() if hasattr(os, "geteuid") else 0
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_READ = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | getattr(os, "O_BINARY", 0)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | getattr(os, "O_BINARY", 0)
_J = TypeVar("_J")
_R = TypeVar("_R")

#: Every file of a ``dist/`` by folder (``""`` for the top, then ``tools``, ``tools/<name>``, ...),
#: parents first, then by name: the bytes each holds.
DistFiles = Mapping[str, Mapping[str, bytes]]


@dataclass(frozen=True)
class Staged:
    """A staging folder beside ``dist/`` holding the whole next ``dist/``."""

    path: Path
    #: How many of its files are also files of the current ``dist/`` (hard links).
    shared: int
    #: Every file and folder in it as the fill left them (``dist_record``).
    record: DistRecord


def spare_folder(root: Path, out: Path) -> Path:
    """Where the retired ``out`` of the project at ``root`` is parked: one slot per output folder."""
    key = hashlib.sha256(os.fsencode(os.path.abspath(out))).hexdigest()[:16]
    return root / SPARE_DIR / f"{out.name}-{key}"


def stage_dist(
    out: Path,
    spare: Path,
    wanted: DistFiles,
    record: DistRecord | None = None,
    now: Mapping[str, Status] | None = None,
    spared: DistRecord | None = None,
) -> Staged:
    """Make a folder beside ``out`` that holds exactly ``wanted`` (``by_folder`` makes it of paths).

    It is the ``spare`` folder if one is parked there and is exactly a tree skillc
    writes, else a new one; a recycled folder that turns out unusable half-way is thrown
    away and the work done again in a new one.  Call it holding ``output_lock``.

    ``now`` is the fingerprint of ``out`` taken in this compile (by name), ``record`` what
    this process wrote there last: a file of ``out`` they prove unchanged since
    (``dist_record.proven``) is not read back to be compared; ``now`` alone spares opening
    files that are not there.  ``spared`` is how this process left the folder parked in
    ``spare`` (``spare_survey``).
    """
    previous = out if out.is_dir() and not out.is_symlink() else None
    known = _Known(
        record if record is not None and record.path == out else None,
        now,
        spared if spared is not None and spared.path == spare else None,
    )
    staging = Path(tempfile.mkdtemp(prefix=staging_prefix(out), dir=out.parent))
    try:
        if RECYCLING and _claim(spare, staging):
            try:
                staging.chmod(0o755)
                return _fill(staging, previous, wanted, known, recycled=True)
            except (Unexpected, OSError):  # not a tree skillc writes, or not one it can write in
                throw_away(staging)
                staging = Path(tempfile.mkdtemp(prefix=staging_prefix(out), dir=out.parent))
        staging.chmod(0o755)  # mkdtemp makes it private; dist/ is as readable as the sources
        return _fill(staging, previous, wanted, known, recycled=False)
    except BaseException:
        throw_away(staging)
        raise


class _Known(NamedTuple):
    """What this compile knows of the current ``dist/`` without reading it (see ``stage_dist``)."""

    record: DistRecord | None
    now: Mapping[str, Status] | None
    spared: DistRecord | None


# --------------------------------------------------------------------- the spare folder


def real_folder(path: Path) -> bool:
    """Whether ``path`` is a folder itself, not a link to one."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _claim(spare: Path, staging: Path) -> bool:
    """Move ``spare`` onto the empty folder ``staging`` if it is a folder on the same file system."""
    skill = spare.parent.parent
    if not (real_folder(skill) and real_folder(spare.parent) and real_folder(spare)):
        return False  # never take a folder from where a link points
    try:
        if os.lstat(spare).st_dev != os.lstat(staging).st_dev:
            return False
        os.rename(spare, staging)
    except OSError:
        return False
    return True


def throw_away(folder: Path) -> None:
    """Delete a staging or retired folder; if a link was put in its place, the link alone."""
    if folder.is_symlink():
        folder.unlink()
    else:
        shutil.rmtree(folder, ignore_errors=True)


# ---------------------------------------------------------------- filling the folder


def by_folder(files: Mapping[str, bytes]) -> dict[str, dict[str, bytes]]:
    """``files`` (relative path -> bytes) as ``DistFiles``."""
    wanted: dict[str, dict[str, bytes]] = {"": {}}
    for relative, data in files.items():
        folder, _, name = relative.rpartition("/")
        inside = wanted.get(folder)
        if inside is None:
            wanted.setdefault(folder.partition("/")[0], {})
            inside = wanted[folder] = {}
        inside[name] = data
    return dict(sorted(wanted.items()))


class _Folders:
    """Folders of one tree opened by descriptor, each without following a link; or plain paths."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self._open: dict[str, int] = {}
        #: Held while a folder is opened: threads filling folders side by side open each once.
        self._opening = threading.RLock()

    def fd(self, folder: str) -> int | None:
        """The descriptor of ``folder`` (relative), opened on first use; ``None`` without descriptors."""
        if not RECYCLING:
            return None
        found = self._open.get(folder)
        if found is not None:
            return found
        with self._opening:
            if folder not in self._open:
                if folder == "":
                    self._open[folder] = os.open(self.root, FOLDER)
                else:
                    parent, _, name = folder.rpartition("/")
                    self._open[folder] = os.open(name, FOLDER, dir_fd=self.fd(parent))
            return self._open[folder]

    def at(self, folder: str, name: str) -> tuple[str, int | None]:
        """What names ``name`` inside ``folder`` for an ``os`` call: the name and its folder's descriptor."""
        fd = self.fd(folder)
        return (name, fd) if fd is not None else (os.path.join(self.root, folder, name), None)

    def unlink(self, folder: str, name: str) -> None:
        target, fd = self.at(folder, name)
        os.unlink(target, dir_fd=fd)

    def mkdir(self, folder: str) -> None:
        target, fd = self.at(*_split(folder))
        os.mkdir(target, dir_fd=fd)

    def rmdir(self, folder: str) -> None:
        self.close(folder)
        target, fd = self.at(*_split(folder))
        os.rmdir(target, dir_fd=fd)

    def status(self, folder: str) -> os.stat_result:
        """The status of ``folder`` (relative, not the top) itself, without following a link."""
        if folder in self._open:
            return os.fstat(self._open[folder])
        target, fd = self.at(*_split(folder))
        return os.stat(target, dir_fd=fd, follow_symlinks=False)

    def close(self, folder: str | None = None) -> None:
        for key in [folder] if folder is not None else list(self._open):
            fd = self._open.pop(key, None)
            if fd is not None:
                os.close(fd)


def _fill(staging: Path, previous: Path | None, wanted: DistFiles, known: _Known, *, recycled: bool) -> Staged:
    """Make ``staging`` hold exactly ``wanted``, sharing what it can with ``previous``, and record it.

    The top folder, the groups (``tools``, ``skills``) and the folders a recycled tree
    holds already first, in this thread; then each new folder of a tool or a skill, which
    depends on nothing but its group.  Those the previous ``dist/`` has too are mostly
    hard links to its files, a few microseconds of the file system's work each: they are
    made in this thread, where threads would only wait for each other's turn to run
    Python (and the folders themselves, all in one group, the kernel makes one at a time
    whichever thread asks).  The others, whose files are all new, are made in threads
    (``_each_in_threads``): creating files in different folders is the file system's
    slower work, which overlaps.  What each made is recorded here, the new folders after
    the others, in ``wanted``'s order: the record does not depend on which thread
    finished first.
    """
    new, old = _Folders(staging), _Folders(previous) if previous is not None else None
    recorder = Recorder()
    try:
        surveyed = survey(_require(new.fd("")), known.spared, known.record, known.now) if recycled else None
        present = surveyed.files if surveyed is not None else {"": {}}
        shared = 0
        # New folders of tools and skills, made once their groups are there.
        jobs: list[tuple[str, Mapping[str, bytes], dict[str, Seen] | None]] = []
        for folder, files in wanted.items():
            if surveyed is not None and _as_it_is(surveyed, folder, files, recorder):
                del present[folder]
                shared += len(files)
                continue
            have = present.pop(folder, None)
            if "/" in folder and have is None:
                jobs.append((folder, files, have))
                continue
            # The top, a group (before the folders inside it), or a recycled folder: mostly kept as it is.
            filled = _fill_folder(new, old, known, folder, files, have)
            if "/" not in folder and folder:
                new.fd(folder)  # opened here, once, for the threads that work inside it
            shared += _recorded(recorder, filled)

        def fill(job: tuple[str, Mapping[str, bytes], dict[str, Seen] | None]) -> _Filled:
            return _fill_folder(new, old, known, *job)

        there = {job[0] for job in jobs if _in_previous(old, known.now, job[0])}
        made = {job[0]: fill(job) for job in jobs if job[0] in there}  # mostly links: in this thread
        written = [job for job in jobs if job[0] not in there]
        made.update(zip([job[0] for job in written], _each_in_threads(fill, written), strict=True))
        for folder, _, _ in jobs:
            shared += _recorded(recorder, made[folder])
        for folder in sorted(present, reverse=True):  # folders of tools and skills that are gone, then groups
            for name in present[folder]:
                new.unlink(folder, name)
            new.rmdir(folder)
        for group in wanted:
            if group and "/" not in group:  # done with last: removing a tool's folder changes its group's
                recorder.folder(group, new.status(group))
        return Staged(staging, shared, recorder.record(staging))
    finally:
        new.close()
        if old is not None:
            old.close()


class _Filled(NamedTuple):
    """What ``_fill_folder`` made of one folder, to be recorded."""

    folder: str
    #: How many of its files are the current ``dist/``'s own (hard links).
    shared: int
    #: Each file: its name, its status once there, its bytes.
    files: list[tuple[str, Seen, bytes]]
    #: The folder's own status once filled; ``None`` for the top folder and the groups (recorded last).
    status: os.stat_result | None


def _fill_folder(
    new: _Folders,
    old: _Folders | None,
    known: _Known,
    folder: str,
    files: Mapping[str, bytes],
    have: dict[str, Seen] | None,
) -> _Filled:
    """Make ``folder`` of the staging tree hold exactly ``files``; ``have`` is what the recycled folder holds there
    (``None``: nothing, the folder is made)."""
    if have is None:
        new.mkdir(folder)  # never the top: it is there, recycled or new
        have = {}
    old_fd = _folder_fd(old, folder, known.now)
    shared = 0
    made: list[tuple[str, Seen, bytes]] = []
    for name, data in files.items():
        prior = _prior(known, folder, name, old_fd, data)
        kept, found = _put(new, folder, name, data, have.pop(name, None), old, prior)
        shared += kept
        made.append((name, found, data))
    for name in have:  # what the recycled folder holds and the new dist/ does not
        new.unlink(folder, name)
    status = None
    if folder.count("/") == 1:
        status = new.status(folder)
        new.close(folder)
        if old is not None:
            old.close(folder)
    return _Filled(folder, shared, made, status)


def _recorded(recorder: Recorder, filled: _Filled) -> int:
    """Record what ``_fill_folder`` made; how many of its files are shared."""
    for name, found, data in filled.files:
        recorder.file(filled.folder, name, found, data)
    if filled.status is not None:
        recorder.folder(filled.folder, filled.status)
    return filled.shared


#: Folders are filled in threads from this many on (fewer are done in this thread).
THREADED_FROM: Final = 4
#: How many threads fill folders at once: past a few, the file system gives no more.
_THREADS: Final = 4


def _each_in_threads(function: Callable[[_J], _R], jobs: Sequence[_J]) -> list[_R]:
    """``function(job)`` for each of ``jobs``, in a few threads; the results in the order of ``jobs``.

    The first job that raised (in that order) raises here, once every job has ended:
    the caller closes the folders they work in only then, even when this thread is
    interrupted meanwhile (the interruption is raised once they have).
    """
    if len(jobs) < THREADED_FROM:
        return [function(job) for job in jobs]
    pool = ThreadPoolExecutor(max_workers=_THREADS, thread_name_prefix="skillc-staging")
    futures: list[Future[_R]] = []
    interruption: BaseException | None = None
    try:
        futures.extend(pool.submit(function, job) for job in jobs)
    except BaseException as error:  # noqa: BLE001 - raised below, once the jobs submitted have ended
        interruption = error
    while True:
        try:
            pool.shutdown(wait=True, cancel_futures=interruption is not None)
            break
        except BaseException as error:  # noqa: BLE001 - an interruption while the threads still write
            interruption = interruption or error
    if interruption is not None:
        raise interruption
    return [future.result() for future in futures]


def _as_it_is(surveyed: Survey, folder: str, files: Mapping[str, bytes], recorder: Recorder) -> bool:
    """Whether the recycled ``folder`` already holds exactly ``files``, each the current ``dist/``'s
    very file, known without looking (``spare_survey``); if so, it is recorded as it is."""
    known = surveyed.known.get(folder)
    if known is None:
        return False
    info, written = known
    if written.keys() != files.keys():
        return False
    for name, data in files.items():  # its one other name is dist/'s; anything else takes the long way
        mine = written[name]
        if mine.seen.links != 2 or mine.data != data:
            return False
    recorder.kept_folder(folder, written, info)
    return True


def _require(fd: int | None) -> int:
    if fd is None:
        raise Unexpected("no descriptors")
    return fd


def _in_previous(old: _Folders | None, now: Mapping[str, Status] | None, folder: str) -> bool:
    """Whether the previous ``dist/`` has ``folder`` (as the fingerprint taken ``now`` says, if there is one)."""
    if old is None:
        return False
    if now is not None:
        return folder in now
    try:
        return stat.S_ISDIR(old.status(folder).st_mode)
    except OSError:
        return False


def _split(folder: str) -> tuple[str, str]:
    parent, _, name = folder.rpartition("/")
    return parent, name


def _folder_fd(old: _Folders | None, folder: str, now: Mapping[str, Status] | None) -> int | str | None:
    """The previous ``dist/``'s ``folder``: a descriptor (or path), ``None`` if it has none
    (as a fingerprint taken ``now`` may already say)."""
    if old is None or (folder and now is not None and folder not in now):
        return None
    try:
        fd = old.fd(folder)
    except OSError:
        return None
    return fd if fd is not None else os.path.join(old.root, folder)


class _Prior(NamedTuple):
    """The previous ``dist/``'s file at a place: which file it is, its links, whether it holds the new bytes."""

    device: int
    inode: int
    links: int
    #: It holds exactly the new bytes and has no name outside ``dist/`` and the recycled folder.
    same: bool


def _put(
    new: _Folders,
    folder: str,
    name: str,
    data: bytes,
    have: Seen | None,
    old: _Folders | None,
    prior: _Prior | None,
) -> tuple[int, Seen]:
    """Give ``folder/name`` the bytes ``data`` in the staging tree: 1 if it is the previous ``dist/``'s
    file (``prior``), and its status once it is there.

    ``have`` is what the recycled folder holds there: kept only if it is the previous
    ``dist/``'s very file and that holds ``data``; a file with any other name (a hard
    link made from outside) makes the recycled folder unusable (``Unexpected``).
    """
    if have is not None and have.links != 1 and not (have.links == 2 and _same_inode(have, prior)):
        raise Unexpected(f"{folder}/{name}")
    # Shared only if its one other name, if any, is the recycled folder's at the same place.
    same = prior is not None and prior.same and (prior.links == 1 or _same_inode(have, prior))
    if same and have is not None and _same_inode(have, prior):
        return 1, have  # the recycled folder already holds that very file
    target, fd = new.at(folder, name)
    if have is not None:
        os.unlink(target, dir_fd=fd)
    if same and prior is not None and old is not None:
        linked = _link(old, folder, name, target, fd, prior)
        if linked is not None:
            return 1, seen(linked)
    return 0, seen(_write(target, fd, data))


def _same_inode(first: Seen | None, prior: _Prior | None) -> bool:
    """Whether ``first`` is the previous ``dist/``'s file ``prior``."""
    return first is not None and prior is not None and (first.device, first.status[0]) == (prior.device, prior.inode)


def _prior(known: _Known, folder: str, name: str, old_fd: int | str | None, data: bytes) -> _Prior | None:
    """The previous ``dist/``'s file ``name`` in ``folder`` (open as ``old_fd``), compared with ``data``.

    Taken from what this process wrote there when the fingerprint taken now proves it
    unchanged since; read back otherwise (and not even opened where that fingerprint
    shows nothing).
    """
    written: Written | None = proven(known.record, known.now, folder, name)
    if written is not None:
        found = written.seen
        return _Prior(found.device, found.status[0], found.links, found.links <= 2 and written.data == data)
    if known.now is not None and (f"{folder}/{name}" if folder else name) not in known.now:
        return None
    return _previous_file(old_fd, name, data)


def _previous_file(old_fd: int | str | None, name: str, data: bytes) -> _Prior | None:
    """The previous ``dist/``'s file ``name``, read back if it has as many bytes as ``data`` and may be shared.

    A file with a name outside ``dist/`` (a hard link made from anywhere but the recycled
    folder's same place) is never shared, so its bytes are not read: what is written
    through that other name would change ``dist/``.
    """
    if old_fd is None:
        return None
    try:
        fd = (
            os.open(name, _READ, dir_fd=old_fd)
            if isinstance(old_fd, int)
            else os.open(os.path.join(old_fd, name), _READ)
        )
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        size = len(data)
        if not stat.S_ISREG(info.st_mode) or info.st_size != size or info.st_nlink > 2 or info.st_uid != _USER:
            return _Prior(info.st_dev, info.st_ino, info.st_nlink, False)
        return _Prior(info.st_dev, info.st_ino, info.st_nlink, _read(fd, size + 1) == data)
    finally:
        os.close(fd)


def _read(fd: int, limit: int) -> bytes:
    chunks, total = [], 0
    while total < limit:
        chunk = os.read(fd, limit - total)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def _link(old: _Folders, folder: str, name: str, target: str, fd: int | None, same: _Prior) -> os.stat_result | None:
    """Hard-link the previous ``dist/``'s file to ``target``, if it is still the file that was compared;
    the status of the link made."""
    source, source_fd = old.at(folder, name)
    try:
        os.link(source, target, src_dir_fd=source_fd, dst_dir_fd=fd, follow_symlinks=False)
    except OSError:  # another file system, or no hard links there: it is written instead
        return None
    linked = os.stat(target, dir_fd=fd, follow_symlinks=False)
    if (linked.st_dev, linked.st_ino) == (same.device, same.inode):
        return linked
    os.unlink(target, dir_fd=fd)  # replaced since it was compared
    return None


def _write(target: str, fd: int | None, data: bytes) -> os.stat_result:
    """Write a new file ``target``; its status once written."""
    descriptor = os.open(target, _CREATE, 0o666, dir_fd=fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
        return os.fstat(descriptor)
    finally:
        os.close(descriptor)
