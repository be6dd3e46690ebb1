"""The output folder: what skillc writes there, proof that a folder is its own, one writer at a time.

skillc replaces an output folder as a whole, so it must never replace one that holds
anything it did not write.  ``check_output_folder`` is that proof: a folder that does
not exist, an empty one, or one whose every entry is a file skillc writes (with a
``manifest.json`` that says skillc wrote it) and none of which is a symbolic link.

Writers of one output folder are serialized by ``output_lock``: an advisory lock on
the folder that holds it, released by the operating system when its process dies,
so a killed compile never leaves a lock behind.  Staging and retired folders are
named after the process that made them, so that a compile removes only its own
leftovers or those of a process that no longer runs.

``fingerprint`` records what a folder holds as the file system sees it (inode, size,
modification and change times of every entry): cheap to take again, and no copy of
the folder (a clone, an unpacked archive, a file edited or replaced) has the same one.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from ..contracts.errors import UsageError, UserError
from ..contracts.spec import MANIFEST, NAME_PATTERN

__all__ = [
    "LOCK_TIMEOUT",
    "SKILL_FILES",
    "TOOL_FILES",
    "Fingerprint",
    "check_output_folder",
    "fingerprint",
    "output_lock",
    "remove_leftovers",
    "retired_prefix",
    "staging_prefix",
]

#: What ``dist/tools/<name>/`` may hold.
TOOL_FILES = frozenset({"bundle.zip", "tool.json", "input.schema.json", "output.schema.json"})
#: What ``dist/skills/<name>/`` may hold.
SKILL_FILES = frozenset({"condition.zip"})
#: Seconds a compile waits for another one writing the same folder before giving up.
LOCK_TIMEOUT = float(os.environ.get("SKILL_LOCK_TIMEOUT", "600"))
_LOCK_POLL = 0.05
#: At most this many foreign entries are named in a refusal.
_SHOWN = 5

#: One entry per file and folder: relative name, inode, mode, size, mtime and ctime (ns).
Fingerprint = tuple[tuple[str, int, int, int, int, int], ...]


def _foreign_entries(out: Path) -> list[str]:
    """The entries of ``out`` that skillc would not have written, relative to ``out``."""
    foreign: list[str] = []

    def folder_of_files(folder: Path, prefix: str, allowed: frozenset[str]) -> None:
        for entry in os.scandir(folder):
            name = f"{prefix}/{entry.name}"
            if entry.is_symlink() or not entry.is_file() or entry.name not in allowed:
                foreign.append(name)

    def folder_of_names(folder: Path, prefix: str, allowed: frozenset[str]) -> None:
        for entry in os.scandir(folder):
            name = f"{prefix}/{entry.name}"
            if entry.is_symlink() or not entry.is_dir() or NAME_PATTERN.fullmatch(entry.name) is None:
                foreign.append(name)
            else:
                folder_of_files(Path(entry.path), name, allowed)

    for entry in os.scandir(out):
        if entry.name == MANIFEST and entry.is_file() and not entry.is_symlink():
            continue
        if entry.name in ("tools", "skills") and entry.is_dir() and not entry.is_symlink():
            folder_of_names(Path(entry.path), entry.name, TOOL_FILES if entry.name == "tools" else SKILL_FILES)
            continue
        foreign.append(entry.name)
    return sorted(foreign)


def _is_skillc_manifest(path: Path) -> bool:
    try:
        document = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return False
    return (
        isinstance(document, dict)
        and isinstance(document.get("format"), int)
        and isinstance(document.get("compiler"), dict)
        and document["compiler"].get("name") == "skillc"
    )


def check_output_folder(out: Path, recorded: Fingerprint | None = None, now: Fingerprint | None = None) -> None:
    """Raise ``UsageError`` unless ``out`` may be replaced: absent, empty, or skillc's own output.

    Its own output is a folder with skillc's ``manifest.json`` and nothing skillc would
    not write, or one whose every entry is still the very file (by inode) that the
    fingerprint ``recorded`` after skillc's last write lists: a ``dist/`` that lost its
    manifest is still provably skillc's.  ``now`` is ``out``'s fingerprint if the caller
    took it just now (it is taken here otherwise).
    """
    hint = "choose another output folder (--out, or [tool.skill] out), or empty this one yourself"
    if out.is_symlink():
        raise UsageError(f"refusing to write {out}: it is a symbolic link", hint=hint)
    if not out.exists():
        return
    if not out.is_dir():
        raise UsageError(f"refusing to write {out}: it is a file, not a folder skillc wrote", hint=hint)
    try:
        if not any(out.iterdir()):
            return
        if recorded is not None and _written_by_skillc(out, recorded, now):
            return
        if not _is_skillc_manifest(out / MANIFEST):
            raise UsageError(
                f"refusing to replace {out}: it is not skillc's output (it has no manifest.json written by skillc), "
                "and skillc never deletes what it did not write",
                hint=hint,
            )
        foreign = _foreign_entries(out)
    except OSError as error:
        raise UsageError(f"refusing to replace {out}: cannot read it ({error.strerror or error})", hint=hint) from error
    if foreign:
        shown = ", ".join(foreign[:_SHOWN]) + (f" and {len(foreign) - _SHOWN} more" if len(foreign) > _SHOWN else "")
        raise UsageError(
            f"refusing to replace {out}: it holds files skillc did not write ({shown}), "
            "and skillc never deletes what it did not write",
            hint="move those files elsewhere, or choose another output folder",
        )


def _written_by_skillc(out: Path, recorded: Fingerprint, now: Fingerprint | None = None) -> bool:
    """Whether every file under ``out`` (its fingerprint ``now``, taken here if not given) is one
    ``recorded`` lists, unchanged in every respect.

    Folders are matched by inode alone (removing a file changes its folder's times); a
    file must match in everything, so that a new file which happens to get a freed
    inode is not taken for skillc's.
    """
    if now is None:
        now = fingerprint(out)
    if now is None:
        return False
    if now == recorded:  # as the last write left it (a watch's compiles, mostly): nothing to look up
        return True
    known = set(recorded)
    folders = {entry[:3] for entry in recorded if stat.S_ISDIR(entry[2])}
    return all(entry in known or entry[:3] in folders for entry in now)


@contextlib.contextmanager
def output_lock(
    out: Path, on_wait: Callable[[str], None] | None = None, timeout: float | None = None
) -> Iterator[None]:
    """Hold the lock of ``out``'s folder: one compile at a time writes beside it.

    Waits for another holder, telling ``on_wait`` once; after ``timeout`` seconds it
    gives up with a ``UserError`` (exit 1) rather than wait forever.
    """
    limit = LOCK_TIMEOUT if timeout is None else timeout
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # not POSIX: no advisory locks; writers are not serialized there
        yield
        return
    descriptor = os.open(parent, os.O_RDONLY)
    try:
        deadline = time.monotonic() + limit
        told = False
        while True:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not told and on_wait is not None:
                    on_wait(f"waiting for another skill compile to finish writing {out} ...")
                told = True
                if time.monotonic() >= deadline:
                    raise UserError(
                        f"another skill compile has been writing {out} for {limit:g}s; giving up",
                        hint="wait for it to finish, or stop it (set SKILL_LOCK_TIMEOUT to wait longer)",
                    ) from None
                time.sleep(_LOCK_POLL)
        yield
    finally:
        os.close(descriptor)  # closing the descriptor releases the lock


def staging_prefix(out: Path) -> str:
    """Names of folders a compile fills before swapping them in: ``.dist-new-<name>-<pid>-``."""
    return f".dist-new-{out.name}-{os.getpid()}-"


def retired_prefix(out: Path) -> str:
    """Names of a previous output folder on its way out, where no atomic swap exists."""
    return f".dist-old-{out.name}-{os.getpid()}-"


_LEFTOVER = re.compile(r"\.dist-(new|old)-(?P<out>.+)-(?P<pid>\d+)-[^-]+")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_leftovers(out: Path) -> None:
    """Undo what a killed compile left beside ``out``; call it holding ``output_lock``.

    Only folders named after ``out`` whose process no longer runs are touched: a
    staging folder is half-written and goes; a retired output folder comes back if
    the swap was interrupted between its two renames (where no atomic exchange exists).
    """
    parent = out.parent
    if not parent.is_dir():
        return
    dead: list[tuple[str, Path]] = []
    for entry in sorted(os.scandir(parent), key=lambda item: item.name):
        match = _LEFTOVER.fullmatch(entry.name)
        if match is None or match["out"] != out.name or entry.is_symlink() or not entry.is_dir():
            continue
        if not _alive(int(match["pid"])):
            dead.append((match.group(1), Path(entry.path)))
    for kind, folder in dead:
        if kind == "old" and not out.exists() and not out.is_symlink():
            folder.rename(out)
        else:
            shutil.rmtree(folder, ignore_errors=True)


def fingerprint(out: Path) -> Fingerprint | None:
    """Inode, mode, size and times of every entry under ``out``; ``None`` if it cannot be read."""
    found: list[tuple[str, int, int, int, int, int]] = []

    def walk(folder: str, prefix: str) -> None:
        for entry in os.scandir(folder):
            info = entry.stat(follow_symlinks=False)
            name = prefix + entry.name
            found.append((name, info.st_ino, info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns))
            if entry.is_dir(follow_symlinks=False):
                walk(entry.path, name + "/")

    try:
        if out.is_symlink() or not out.is_dir():
            return None
        walk(str(out), "")
    except OSError:
        return None
    return tuple(sorted(found))
