"""The data files of the source tree, as data: each one's name, owner, key and bytes.

``source_tree`` finds them (every file under ``src`` that is no module) and reads them
with ``read_data``; ``data_files`` decides which go into which bundle.
"""

from __future__ import annotations

import hashlib
import stat
from dataclasses import dataclass
from pathlib import Path

from .file_identity import Identity, identity_of
from .types import Diagnostic

__all__ = ["NOT_DATA", "DataFile", "DataSet", "owner", "read_data"]


@dataclass(frozen=True)
class DataFile:
    """A non-Python file of the source tree, bundled with the modules of the folder that owns it."""

    #: Its path relative to ``src``: its name in a bundle.
    member: str
    #: Its path relative to the project, as diagnostics show it.
    path: str
    #: The folder (relative to ``src``, ``""`` for ``src`` itself) of the package it belongs to:
    #: the nearest folder at or above it that holds a module; ``None`` when none does.
    owner: str | None
    key: str
    content: bytes


@dataclass(frozen=True)
class DataSet:
    """The data files of the source tree, and the files there that are not bundled, with why."""

    files: tuple[DataFile, ...] = ()
    #: ``(member, reason)`` of each file under ``src`` left out (globs, size, a link outside).
    skipped: tuple[tuple[str, str], ...] = ()
    #: The folders (relative to ``src``) that hold a module.
    module_folders: frozenset[str] = frozenset()
    problems: tuple[Diagnostic, ...] = ()

    def key(self) -> str:
        """One hash of what the data files are: names, contents, and what was left out."""
        digest = hashlib.sha256()
        for item in self.files:
            digest.update(f"{item.key}\0{item.owner}\0".encode())
        digest.update(repr((self.skipped, sorted(self.module_folders))).encode())
        return digest.hexdigest()


#: Never data: modules, their caches and compiled extension modules, which Python would import.
NOT_DATA = (".py", ".pyc", ".pyo", ".so", ".pyd")


def owner(member: str, module_folders: frozenset[str]) -> str | None:
    """The folder of the package ``member`` belongs to (see ``DataFile.owner``)."""
    folder = member.rpartition("/")[0]
    while folder not in module_folders:
        if not folder:
            return None
        folder = folder.rpartition("/")[0]
    return folder


def read_data(path: Path, limit: int, found: dict[str, Identity] | None = None) -> bytes | str:
    """The bytes of a data file, or why it is not bundled; its identity before the read goes into ``found``."""
    try:
        info = path.stat()
        if found is not None:
            found[str(path)] = identity_of(info)
        if not stat.S_ISREG(info.st_mode):
            return "it is not a regular file"
        if info.st_size > limit:
            return f"it is {info.st_size:,} bytes, more than [tool.skill] max_file_bytes ({limit:,})"
        with path.open("rb") as stream:
            content = stream.read(limit + 1)
    except OSError as error:
        return f"it cannot be read: {error.strerror or error}"
    return content if len(content) <= limit else f"it is more than [tool.skill] max_file_bytes ({limit:,})"
