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
  the new ones.  Anything else in it is unlinked, never opened.
- Nothing is written in place: a new file is always a new inode under a new name, so no
  byte of the current ``dist/`` changes while the next one is made.
- Every operation goes through folders opened without following links (``O_NOFOLLOW``),
  so nothing is read, written or deleted through a symbolic link, even one planted while
  the compile runs.
- A file of the current ``dist/`` is shared (hard-linked) only if its bytes equal the new
  ones and it has no name but its own and, at the same place, the recycled folder's.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..contracts.spec import MANIFEST, NAME_PATTERN
from .output import SKILL_FILES, TOOL_FILES, staging_prefix

__all__ = ["RECYCLING", "SPARE_DIR", "Staged", "real_folder", "spare_folder", "stage_dist", "throw_away"]

#: Where a retired ``dist/`` waits, inside the project, to become the next compile's staging folder.
SPARE_DIR = Path(".skill") / "spare"
#: The folders of ``dist/`` that hold one folder per tool or skill, and the files each may hold.
_GROUPS: Mapping[str, frozenset[str]] = {"tools": TOOL_FILES, "skills": SKILL_FILES}
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
_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
_READ = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | getattr(os, "O_BINARY", 0)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | getattr(os, "O_BINARY", 0)


class _Unexpected(Exception):
    """A recycled folder holds something skillc would not have written there."""


@dataclass(frozen=True)
class Staged:
    """A staging folder beside ``dist/`` holding the whole next ``dist/``."""

    path: Path
    #: How many of its files are also files of the current ``dist/`` (hard links).
    shared: int


def spare_folder(root: Path, out: Path) -> Path:
    """Where the retired ``out`` of the project at ``root`` is parked: one slot per output folder."""
    key = hashlib.sha256(os.fsencode(os.path.abspath(out))).hexdigest()[:16]
    return root / SPARE_DIR / f"{out.name}-{key}"


def stage_dist(out: Path, spare: Path, files: Mapping[str, bytes]) -> Staged:
    """Make a folder beside ``out`` that holds exactly ``files`` (relative path -> bytes).

    It is the ``spare`` folder if one is parked there and is exactly a tree skillc
    writes, else a new one; a recycled folder that turns out unusable half-way is thrown
    away and the work done again in a new one.  Call it holding ``output_lock``.
    """
    previous = out if out.is_dir() and not out.is_symlink() else None
    wanted = _by_folder(files)
    staging = Path(tempfile.mkdtemp(prefix=staging_prefix(out), dir=out.parent))
    try:
        if RECYCLING and _claim(spare, staging):
            try:
                staging.chmod(0o755)
                return Staged(staging, _fill(staging, previous, wanted, recycled=True))
            except (_Unexpected, OSError):  # not a tree skillc writes, or not one it can write in
                throw_away(staging)
                staging = Path(tempfile.mkdtemp(prefix=staging_prefix(out), dir=out.parent))
        staging.chmod(0o755)  # mkdtemp makes it private; dist/ is as readable as the sources
        return Staged(staging, _fill(staging, previous, wanted, recycled=False))
    except BaseException:
        throw_away(staging)
        raise


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


def _by_folder(files: Mapping[str, bytes]) -> dict[str, dict[str, bytes]]:
    """``files`` by folder (``""`` for the top, then ``tools``, ``tools/<name>``, ...), parents first."""
    wanted: dict[str, dict[str, bytes]] = {"": {}}
    for relative, data in files.items():
        folder, _, name = relative.rpartition("/")
        if folder:
            wanted.setdefault(folder.partition("/")[0], {})
        wanted.setdefault(folder, {})[name] = data
    return dict(sorted(wanted.items()))


def _survey(root: int) -> dict[str, dict[str, os.stat_result]]:
    """The folders and files of a recycled tree, by folder; ``_Unexpected`` unless it is exactly a ``dist/``."""
    found: dict[str, dict[str, os.stat_result]] = {"": {}}
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.name == MANIFEST:
                found[""][MANIFEST] = _regular(entry)
            elif entry.name in _GROUPS and stat.S_ISDIR(entry.stat(follow_symlinks=False).st_mode):
                found[entry.name] = {}
            else:
                raise _Unexpected(entry.name)
    for group, allowed in _GROUPS.items():
        if group in found:
            group_fd = os.open(group, _FOLDER, dir_fd=root)
            try:
                found.update(_survey_group(group, group_fd, allowed))
            finally:
                os.close(group_fd)
    return found


def _survey_group(group: str, group_fd: int, allowed: frozenset[str]) -> dict[str, dict[str, os.stat_result]]:
    """The folders of one tool or skill each, in ``group``, and their files."""
    with os.scandir(group_fd) as entries:
        names = [entry.name for entry in entries]
    found: dict[str, dict[str, os.stat_result]] = {}
    for name in names:
        if NAME_PATTERN.fullmatch(name) is None:
            raise _Unexpected(name)
        folder = os.open(name, _FOLDER, dir_fd=group_fd)  # a link (or a file) fails here
        try:
            with os.scandir(folder) as entries:
                files = {entry.name: _regular(entry) for entry in entries}
        finally:
            os.close(folder)
        if not files.keys() <= allowed:
            raise _Unexpected(f"{group}/{name}")
        found[f"{group}/{name}"] = files
    return found


def _regular(entry: os.DirEntry[str]) -> os.stat_result:
    """The status of a file that is a regular file of this user's; ``_Unexpected`` otherwise."""
    info = entry.stat(follow_symlinks=False)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != _USER:
        raise _Unexpected(entry.name)
    return info


class _Folders:
    """Folders of one tree opened by descriptor, each without following a link; or plain paths."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self._open: dict[str, int] = {}

    def fd(self, folder: str) -> int | None:
        """The descriptor of ``folder`` (relative), opened on first use; ``None`` without descriptors."""
        if not RECYCLING:
            return None
        if folder not in self._open:
            if folder == "":
                self._open[folder] = os.open(self.root, _FOLDER)
            else:
                parent, _, name = folder.rpartition("/")
                self._open[folder] = os.open(name, _FOLDER, dir_fd=self.fd(parent))
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

    def close(self, folder: str | None = None) -> None:
        for key in [folder] if folder is not None else list(self._open):
            fd = self._open.pop(key, None)
            if fd is not None:
                os.close(fd)


def _fill(staging: Path, previous: Path | None, wanted: dict[str, dict[str, bytes]], *, recycled: bool) -> int:
    """Make ``staging`` hold exactly ``wanted``; returns how many files it shares with ``previous``."""
    new, old = _Folders(staging), _Folders(previous) if previous is not None else None
    try:
        present = _survey(_require(new.fd(""))) if recycled else {"": {}}
        shared = 0
        for folder, files in wanted.items():
            have = present.pop(folder, None)
            if have is None:
                new.mkdir(folder)  # never the top: it is there, recycled or new
                have = {}
            old_fd = _folder_fd(old, folder)
            for name, data in files.items():
                shared += _put(new, folder, name, data, have.pop(name, None), old, old_fd)
            for name in have:  # what the recycled folder holds and the new dist/ does not
                new.unlink(folder, name)
            if folder.count("/") == 1:
                new.close(folder)
                if old is not None:
                    old.close(folder)
        for folder in sorted(present, reverse=True):  # folders of tools and skills that are gone, then groups
            for name in present[folder]:
                new.unlink(folder, name)
            new.rmdir(folder)
        return shared
    finally:
        new.close()
        if old is not None:
            old.close()


def _require(fd: int | None) -> int:
    if fd is None:
        raise _Unexpected("no descriptors")
    return fd


def _split(folder: str) -> tuple[str, str]:
    parent, _, name = folder.rpartition("/")
    return parent, name


def _folder_fd(old: _Folders | None, folder: str) -> int | str | None:
    """The previous ``dist/``'s ``folder``: a descriptor (or path), ``None`` if it has none."""
    if old is None:
        return None
    try:
        fd = old.fd(folder)
    except OSError:
        return None
    return fd if fd is not None else os.path.join(old.root, folder)


def _put(
    new: _Folders,
    folder: str,
    name: str,
    data: bytes,
    have: os.stat_result | None,
    old: _Folders | None,
    old_fd: int | str | None,
) -> int:
    """Give ``folder/name`` the bytes ``data`` in the staging tree; 1 if it is the previous ``dist/``'s file.

    ``have`` is what the recycled folder holds there: kept only if it is the previous
    ``dist/``'s very file and that holds ``data``; a file with any other name (a hard
    link made from outside) makes the recycled folder unusable (``_Unexpected``).
    """
    info, content = _previous_file(old_fd, name, len(data))
    if have is not None and have.st_nlink != 1 and not (have.st_nlink == 2 and _same_inode(have, info)):
        raise _Unexpected(f"{folder}/{name}")
    # Shared only if its one other name, if any, is the recycled folder's at the same place.
    same = info is not None and content == data and (info.st_nlink == 1 or _same_inode(info, have))
    if same and _same_inode(have, info):
        return 1  # the recycled folder already holds that very file
    target, fd = new.at(folder, name)
    if have is not None:
        os.unlink(target, dir_fd=fd)
    if same and info is not None and old is not None and _link(old, folder, name, target, fd, info):
        return 1
    _write(target, fd, data)
    return 0


def _same_inode(first: os.stat_result | None, second: os.stat_result | None) -> bool:
    """Whether both describe one and the same file."""
    return first is not None and second is not None and (first.st_dev, first.st_ino) == (second.st_dev, second.st_ino)


def _previous_file(old_fd: int | str | None, name: str, size: int) -> tuple[os.stat_result | None, bytes | None]:
    """The previous ``dist/``'s file ``name``: its status, and its bytes if it has ``size`` of them and may be shared.

    A file with a name outside ``dist/`` (a hard link made from anywhere but the recycled
    folder's same place) is never shared, so its bytes are not read: what is written
    through that other name would change ``dist/``.
    """
    if old_fd is None:
        return None, None
    try:
        fd = (
            os.open(name, _READ, dir_fd=old_fd)
            if isinstance(old_fd, int)
            else os.open(os.path.join(old_fd, name), _READ)
        )
    except OSError:
        return None, None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size != size or info.st_nlink > 2:
            return info, None
        return info, _read(fd, size + 1)
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


def _link(old: _Folders, folder: str, name: str, target: str, fd: int | None, same: os.stat_result) -> bool:
    """Hard-link the previous ``dist/``'s file to ``target``, if it is still the file that was compared."""
    source, source_fd = old.at(folder, name)
    try:
        os.link(source, target, src_dir_fd=source_fd, dst_dir_fd=fd, follow_symlinks=False)
    except OSError:  # another file system, or no hard links there: it is written instead
        return False
    linked = os.stat(target, dir_fd=fd, follow_symlinks=False)
    if (linked.st_dev, linked.st_ino) == (same.st_dev, same.st_ino):
        return True
    os.unlink(target, dir_fd=fd)  # replaced since it was compared
    return False


def _write(target: str, fd: int | None, data: bytes) -> None:
    descriptor = os.open(target, _CREATE, 0o666, dir_fd=fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
    finally:
        os.close(descriptor)
