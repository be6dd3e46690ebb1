"""What a compile wrote into ``dist/``, as it wrote it: so the next compile need not read it back.

A compile that fills a staging folder knows every file it puts there (its bytes) and sees
its status as it does so (a file it keeps, one it links, one it writes), and every folder
when it is done with it.  That is a ``DistRecord``: the fingerprint of the folder once it
is swapped in (``output.fingerprint`` would find the same, so no walk is needed to take
it), and, for a process that compiles again and again (``skill compile --watch``, through
``session.CompileSession``), what the next compile would otherwise read back: the bytes
of ``dist/``'s files, and the listing of every folder of the ``dist/`` it retires (which
becomes the next staging folder, see ``staging``).

A record never stands in for the file system, only for reading it again:

- ``proven`` believes a file holds the bytes recorded only while the fingerprint of
  ``dist/`` taken again shows it with the very status recorded (inode, mode, size,
  modification and change times: no write, link, rename or change of owner keeps all of
  them);
- ``unchanged`` believes a folder holds the entries recorded only while a ``stat`` of it
  shows the very status recorded (adding, removing or renaming an entry changes its times);
- and either only if its times were older than ``RACY_NS`` when recorded: within one tick
  of the file system's clock, a change may keep them.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from .file_identity import RACY_NS
from .output import Fingerprint, fingerprint

__all__ = [
    "FOLDER",
    "DistRecord",
    "Folder",
    "Recorder",
    "Seen",
    "Status",
    "Written",
    "current_status",
    "proven",
    "proven_files",
    "seen",
    "status_of",
]

#: What a fingerprint says of an entry besides its name: inode, mode, size, modification and change times.
Status = tuple[int, int, int, int, int]
#: How a folder is opened: as a folder, never through a link, not inherited by children.
FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class Seen(NamedTuple):
    """A file as a ``stat`` showed it: its status, the device it is on, and how many names it has."""

    status: Status
    device: int
    links: int


class Written(NamedTuple):
    """One file of a ``dist/`` as a compile left it: what a ``stat`` showed, and its bytes."""

    seen: Seen
    data: bytes
    #: Whether its times were older than ``RACY_NS`` when recorded: only then can they prove it unchanged.
    settled: bool


class Folder(NamedTuple):
    """One folder of a ``dist/`` as a compile left it (its entries are the record's)."""

    status: Status
    settled: bool


def status_of(info: os.stat_result) -> Status:
    """What a fingerprint says of an entry whose ``stat`` is ``info``, besides its name."""
    return (info.st_ino, info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def seen(info: os.stat_result) -> Seen:
    return Seen(status_of(info), info.st_dev, info.st_nlink)


@dataclass(frozen=True)
class DistRecord:
    """A ``dist/`` as the compile that wrote it left it: its files by folder (``""`` the top) and name,
    and every folder but the top."""

    path: Path
    files: Mapping[str, Mapping[str, Written]]
    folders: Mapping[str, Folder]
    #: The folders in each folder (``""`` the top), by name.
    subfolders: Mapping[str, tuple[str, ...]]

    def fingerprint(self) -> Fingerprint:
        """What ``output.fingerprint`` finds in the folder, as long as nothing changed it since (made once)."""
        return self._fingerprint

    @cached_property
    def _fingerprint(self) -> Fingerprint:
        entries = [
            ((f"{folder}/{name}" if folder else name), *written.seen.status)
            for folder, files in self.files.items()
            for name, written in files.items()
        ]
        entries.extend((name, *folder.status) for name, folder in self.folders.items())
        return tuple(sorted(entries))

    def statuses(self, now: Fingerprint | None) -> Mapping[str, Status] | None:
        """``current_status(now)``, made once for this record's own fingerprint (``fingerprint_now``'s
        usual answer): read it, never change it."""
        return self._statuses if now is self._fingerprint else current_status(now)

    def exactly(self, now: Mapping[str, Status] | None) -> bool:
        """Whether ``now`` is this record's own ``statuses``: the folder was found just as recorded."""
        return now is not None and now is self.__dict__.get("_statuses")

    @cached_property
    def _statuses(self) -> dict[str, Status]:
        found = current_status(self._fingerprint)
        assert found is not None
        return found

    def unchanged(self, folder: str, info: os.stat_result) -> Mapping[str, Written] | None:
        """The files ``folder`` held when recorded, if ``info`` (a ``stat`` of it now) proves it holds the same entries."""
        recorded = self.folders.get(folder)
        if recorded is None or not recorded.settled or status_of(info) != recorded.status:
            return None
        return self.files.get(folder, {})

    def fingerprint_now(self) -> Fingerprint | None:
        """``output.fingerprint`` of the folder, taken now: the very same entries and statuses, but
        a folder that ``unchanged`` proves to hold the entries recorded is not listed again (its
        entries still each get a ``stat``).  Every folder is opened without following a link.

        A folder that still holds exactly what was recorded, each entry with the status
        recorded (most often, in a watch), gives ``fingerprint()`` itself: the same
        object, with nothing built.
        """
        try:
            if self.path.is_symlink() or not self.path.is_dir():
                return None
            top = os.open(self.path, FOLDER)
        except OSError:
            return None
        found: list[tuple[str, int, int, int, int, int]] = []
        try:
            if self._as_recorded(top):
                return self._fingerprint
            self._take(top, "", os.fstat(top), found)
        except OSError:  # changed while it was looked at: a plain walk says what it holds
            return fingerprint(self.path)
        finally:
            os.close(top)
        return tuple(sorted(found))

    def _as_recorded(self, top: int) -> bool:
        """Whether the folder open as ``top`` holds exactly the entries recorded, each with the status
        recorded.  The top and every folder whose times are too recent to prove anything are
        listed, as ``_take`` lists them; every file gets a ``stat``.  It stops at the first
        difference (an entry gone among them)."""
        try:
            files = self.files.get("", {})
            return self._lists(top, "", files) and self._same_inside(top, "", files)
        except OSError:
            return False

    def _lists(self, fd: int, folder: str, files: Mapping[str, Written]) -> bool:
        """Whether the folder open as ``fd`` lists exactly the ``files`` and folders recorded in it."""
        with os.scandir(fd) as listing:
            return {entry.name for entry in listing} == {*files, *self.subfolders.get(folder, ())}

    def _same_inside(self, fd: int, folder: str, files: Mapping[str, Written]) -> bool:
        """``_as_recorded`` below the folder open as ``fd``, which holds the ``files`` recorded."""
        for name, written in files.items():
            if status_of(os.stat(name, dir_fd=fd, follow_symlinks=False)) != written.seen.status:
                return False
        prefix = f"{folder}/" if folder else ""
        for name in self.subfolders.get(folder, ()):
            relative = prefix + name
            sub = os.open(name, FOLDER, dir_fd=fd)
            try:
                recorded = self.folders.get(relative)
                if recorded is None or status_of(os.fstat(sub)) != recorded.status:
                    return False
                inner = self.files.get(relative, {})
                if not (recorded.settled or self._lists(sub, relative, inner)):
                    return False
                if not self._same_inside(sub, relative, inner):
                    return False
            finally:
                os.close(sub)
        return True

    def _take(
        self, fd: int, folder: str, info: os.stat_result, found: list[tuple[str, int, int, int, int, int]]
    ) -> None:
        """Add the entries of ``folder`` (open as ``fd``, its ``stat`` ``info``) and below to ``found``."""
        files = self.unchanged(folder, info) if folder else None
        names: Iterable[str]
        if files is not None:
            names, folders = files, self.subfolders.get(folder, ())
        else:
            with os.scandir(fd) as listing:
                listed = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in listing]
            names = [name for name, is_folder in listed if not is_folder]
            folders = tuple(name for name, is_folder in listed if is_folder)
        prefix = f"{folder}/" if folder else ""
        for name in names:
            entry = os.stat(name, dir_fd=fd, follow_symlinks=False)
            found.append((prefix + name, *status_of(entry)))
            if stat.S_ISDIR(entry.st_mode):  # a file when recorded or listed, a folder now
                self._inside(fd, name, prefix + name, found, listed=False)
        for name in folders:
            self._inside(fd, name, prefix + name, found, listed=True)

    def _inside(
        self, fd: int, name: str, relative: str, found: list[tuple[str, int, int, int, int, int]], *, listed: bool
    ) -> None:
        """Add the folder ``name`` in the folder open as ``fd`` (``listed``: it is not in ``found`` yet) and what
        it holds to ``found``; it is opened without following a link (a link, or a file, fails here)."""
        sub = os.open(name, FOLDER, dir_fd=fd)
        try:
            inner = os.fstat(sub)
            if listed:
                found.append((relative, *status_of(inner)))
            self._take(sub, relative, inner, found)
        finally:
            os.close(sub)


def current_status(now: Fingerprint | None) -> dict[str, Status] | None:
    """A fingerprint taken just now, by relative name."""
    return None if now is None else {entry[0]: entry[1:] for entry in now}


def proven(record: DistRecord | None, now: Mapping[str, Status] | None, folder: str, name: str) -> Written | None:
    """What ``record`` says of the file ``name`` in ``folder``, if the fingerprint taken ``now`` proves it still holds."""
    found = proven_files(record, now, folder, (name,))
    return found[name] if found is not None else None


def proven_files(
    record: DistRecord | None, now: Mapping[str, Status] | None, folder: str, names: Iterable[str]
) -> dict[str, Written] | None:
    """``proven`` for each of the files ``names`` in ``folder``, by name; ``None`` unless it proves every one."""
    if record is None or now is None:
        return None
    recorded = record.files.get(folder, {})
    exactly = record.exactly(now)  # every file has the status recorded
    prefix = f"{folder}/" if folder else ""
    found: dict[str, Written] = {}
    for name in names:
        written = recorded.get(name)
        if written is None or not written.settled:
            return None
        if not exactly and now.get(prefix + name) != written.seen.status:
            return None
        found[name] = written
    return found


@dataclass
class Recorder:
    """Collects a ``DistRecord`` while a staging folder is filled."""

    files: dict[str, dict[str, Written]] = field(default_factory=dict)
    folders: dict[str, Folder] = field(default_factory=dict)
    #: Entries are settled if their times are older than this (``RACY_NS`` before the record began).
    _settled_before: int = field(default_factory=lambda: time.time_ns() - RACY_NS)

    def file(self, folder: str, name: str, found: Seen, data: bytes) -> None:
        """``name`` in ``folder`` holds ``data`` and is as ``found``, and nothing will change it in this compile."""
        _, mode, _, modified, changed = found.status
        settled = stat.S_ISREG(mode) and max(modified, changed) < self._settled_before
        self.files.setdefault(folder, {})[name] = Written(found, data, settled)

    def kept(self, folder: str, name: str, written: Written) -> None:
        """``name`` in ``folder`` is, and holds, what ``written`` (another record's) says, and nothing
        will change it in this compile: ``file`` with its status and bytes, made once for both records."""
        if written.settled:  # settled then, settled now: time only goes on
            self.files.setdefault(folder, {})[name] = written
        else:
            self.file(folder, name, written.seen, written.data)

    def kept_folder(self, folder: str, files: Mapping[str, Written], info: os.stat_result) -> None:
        """``kept`` for each of ``files`` in ``folder``, then ``folder(folder, info)``: a folder kept as it is."""
        if all(written.settled for written in files.values()):
            self.files.setdefault(folder, {}).update(files)
        else:
            for name, written in files.items():
                self.kept(folder, name, written)
        self.folder(folder, info)

    def folder(self, name: str, info: os.stat_result) -> None:
        """The folder ``name`` (not the top) has its final status ``info``."""
        status = status_of(info)
        self.folders[name] = Folder(status, max(status[3], status[4]) < self._settled_before)

    def record(self, path: Path) -> DistRecord:
        subfolders: dict[str, list[str]] = {}
        for name in self.folders:
            parent, _, own = name.rpartition("/")
            subfolders.setdefault(parent, []).append(own)
        return DistRecord(path, self.files, self.folders, {key: tuple(names) for key, names in subfolders.items()})
