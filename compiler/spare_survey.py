"""What a recycled staging folder holds, proven to be exactly a tree skillc writes (see ``staging``).

``survey`` lists the folder claimed from ``.skill/spare/`` and refuses it (``Unexpected``)
unless it holds only ``manifest.json``, ``tools/<name>/`` and ``skills/<name>/`` with the
files of ``dist/`` in them: folders and regular files of this user's, no symbolic link,
nothing else, every folder opened without following a link.

A process that compiles again and again knows how it left that folder (the
``dist_record`` of the ``dist/`` it retired), and that the current ``dist/`` is unchanged
since it wrote it (``dist_record.proven``).  A folder whose ``stat`` proves it holds the
entries recorded (``DistRecord.unchanged``), each of them the very file the current
``dist/`` holds at the same place, is then not listed again: what a ``stat`` of those
files would show is what the current ``dist/``'s fingerprint showed of them.  Any other
folder is listed and each of its files looked at.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from typing import NamedTuple

from ..contracts.spec import MANIFEST, NAME_PATTERN
from .dist_record import FOLDER, DistRecord, Seen, Status, Written, proven_files, seen
from .output import SKILL_FILES, TOOL_FILES

__all__ = ["Files", "Survey", "Unexpected", "survey"]

#: The folders of ``dist/`` that hold one folder per tool or skill, and the files each may hold.
_GROUPS: Mapping[str, frozenset[str]] = {"tools": TOOL_FILES, "skills": SKILL_FILES}
_USER = os.geteuid() if hasattr(os, "geteuid") else 0

#: Files by folder (``""`` the top, ``tools``, ``tools/<name>``, ...) and name.
Files = dict[str, dict[str, Seen]]


class Survey(NamedTuple):
    """What a recycled tree holds."""

    files: Files
    #: The folders of tools and skills known without listing them (see the module): a ``stat``
    #: of each, and the current ``dist/``'s record of the files it holds (the very same files).
    known: dict[str, tuple[os.stat_result, Mapping[str, Written]]]


class Unexpected(Exception):
    """A recycled folder holds something skillc would not have written there."""


def survey(
    root: int,
    spare: DistRecord | None = None,
    current: DistRecord | None = None,
    now: Mapping[str, Status] | None = None,
) -> Survey:
    """The folders and files of the recycled tree open as ``root``; ``Unexpected`` unless it is exactly a ``dist/``.

    ``spare`` is how this process left that tree, ``current`` how it left the current
    ``dist/``, and ``now`` that ``dist/``'s fingerprint taken in this compile.
    """
    found: Files = {"": {}}
    known = _Known(spare, current, now)
    proven_folders: dict[str, tuple[os.stat_result, Mapping[str, Written]]] = {}
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.name == MANIFEST:
                found[""][MANIFEST] = _regular(entry)
            elif entry.name in _GROUPS and stat.S_ISDIR(entry.stat(follow_symlinks=False).st_mode):
                found[entry.name] = {}
            else:
                raise Unexpected(entry.name)
    for group, allowed in _GROUPS.items():
        if group in found:
            group_fd = os.open(group, FOLDER, dir_fd=root)
            try:
                found.update(_survey_group(group, group_fd, allowed, known, proven_folders))
            finally:
                os.close(group_fd)
    return Survey(found, proven_folders)


class _Known:
    """What this process knows of the recycled tree and of the current ``dist/`` (see ``survey``)."""

    def __init__(self, spare: DistRecord | None, current: DistRecord | None, now: Mapping[str, Status] | None) -> None:
        self.spare, self.current, self.now = spare, current, now
        #: The current ``dist/`` was found just as recorded (``DistRecord.exactly``).
        self.exactly = current is not None and current.exactly(now)

    def folders_in(self, group: str, info: os.stat_result) -> list[str] | None:
        """The folders ``group`` held when recorded, if ``info`` (a ``stat`` of it now) proves it holds the same."""
        if self.spare is None or self.spare.unchanged(group, info) is None:
            return None
        return list(self.spare.subfolders.get(group, ()))

    def files_in(self, folder: str, info: os.stat_result) -> Mapping[str, Written] | None:
        """The current ``dist/``'s record of the files of ``folder``, if ``info`` proves the folder
        unchanged and each of its files is the current ``dist/``'s file there, proven unchanged."""
        recorded = self.spare.unchanged(folder, info) if self.spare is not None else None
        if recorded is None:
            return None
        if self.exactly:  # each file of the folder recorded once for both, as kept by the last fill?
            current = self.current.files.get(folder, {}) if self.current is not None else {}
            for name, mine in recorded.items():
                if current.get(name) is not mine or not mine.settled:
                    break
            else:
                return recorded
        files = proven_files(self.current, self.now, folder, recorded)
        if files is None:
            return None
        for name, mine in recorded.items():
            theirs = files[name].seen  # one file, two names: what dist/'s fingerprint shows of it now
            if (theirs.device, theirs.status[0]) != (mine.seen.device, mine.seen.status[0]):
                return None
        return files


def _survey_group(
    group: str,
    group_fd: int,
    allowed: frozenset[str],
    known: _Known,
    proven_folders: dict[str, tuple[os.stat_result, Mapping[str, Written]]],
) -> Files:
    """The folders of one tool or skill each, in ``group``, and their files."""
    names = known.folders_in(group, os.fstat(group_fd))
    if names is None:
        with os.scandir(group_fd) as entries:
            names = [entry.name for entry in entries]
    found: Files = {}
    for name in names:
        if NAME_PATTERN.fullmatch(name) is None:
            raise Unexpected(name)
        relative = f"{group}/{name}"
        info = os.stat(name, dir_fd=group_fd, follow_symlinks=False)
        written = known.files_in(relative, info) if stat.S_ISDIR(info.st_mode) else None
        if written is not None:
            proven_folders[relative] = (info, written)
            files = {file: record.seen for file, record in written.items()}
        else:
            folder = os.open(name, FOLDER, dir_fd=group_fd)  # a link (or a file) fails here
            try:
                with os.scandir(folder) as entries:
                    files = {entry.name: _regular(entry) for entry in entries}
            finally:
                os.close(folder)
        if not files.keys() <= allowed:
            raise Unexpected(relative)
        found[relative] = files
    return found


def _regular(entry: os.DirEntry[str]) -> Seen:
    """The status of a file that is a regular file of this user's; ``Unexpected`` otherwise."""
    info = entry.stat(follow_symlinks=False)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != _USER:
        raise Unexpected(entry.name)
    return seen(info)
