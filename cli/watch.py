"""``skill compile --watch``: compile, then again after every change, until interrupted.

The watching process keeps a ``CompileSession``: what the last compile read (the
identity of pyproject.toml, of every folder it walked and every file it read, each taken
before it was read), so that a change saved while a compile runs is compiled next, never
missed, and the next compile reads again only what changed.  A change is found by a stat
of each of those paths: on Linux as soon as inotify says that one of those folders
changed and every file written there is closed again (a file still being written is not
compiled half-way), and everywhere every ``POLL_SECONDS`` whatever inotify says (it does
not see every file system, nor files reached through symbolic links).  Polling and
inotify need no extra dependency.

Editors that save by renaming leave no ``pyproject.toml`` for a moment, and a file may
vanish while a compile reads it: the watch says so in one line and waits for the
project to come back, then compiles again.  Until a compile has read the project, the
watch compares the modification times and sizes of the configuration and the sources.

A compile's caches (``compiler.cache``) are written after its report, before the watch
waits: the report comes as soon as the new ``dist/`` is in place.

The garbage collector works while the watch waits, not while it compiles: after each
compile the watch collects everything, before it waits.  In ``skill compile``'s own process
the collector runs seldom (``lifetime.collect_seldom``), so a compile after one change
starts with nothing to collect and makes too little to start a collection.  (With
Python's thresholds, such a compile of 500 tools ran some 8 young collections, nearly one of
the middle generation, and every tenth compile one through the whole session: 3 to 5 ms
of a 45 to 90 ms compile, on average.)
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import select
import struct
import sys
import time
from collections.abc import Callable, Container, Iterable
from pathlib import Path

from rich.console import Console

from ..compiler.api import import_every_stage
from ..compiler.cache import held_writes
from ..compiler.config import locate_config, read_config
from ..compiler.session import CompileSession
from ..compiler.source_tree import discover_sources, identity
from ..contracts.errors import UserError
from .consoles import shown

__all__ = ["POLL_SECONDS", "snapshot", "watch_project"]

#: How often the watch looks for a change, whether or not inotify told of one.
POLL_SECONDS = 0.1
#: With inotify, how long the watch waits for an event before it looks anyway.
_INOTIFY_SECONDS = 0.5
#: IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE |
#: IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF: every change of a folder's entries or of itself.
_INOTIFY_MASK = 0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800
_IN_NONBLOCK_CLOEXEC = os.O_NONBLOCK | os.O_CLOEXEC
#: IN_MODIFY, and what ends a write: IN_CLOSE_WRITE, IN_MOVED_FROM, IN_DELETE; IN_Q_OVERFLOW.
_IN_MODIFY, _WRITE_ENDS, _IN_Q_OVERFLOW = 0x2, 0x8 | 0x40 | 0x200, 0x4000
#: Each inotify event: its watch, its mask, its cookie, the length of the name after it.
_EVENT = struct.Struct("iIII")
#: Once no file written to is still open, how long the folders must stay quiet before the
#: watch looks; and how many such waits it makes at most before it looks anyway (0.1 s
#: of events without a pause, a checkout of many files say).
_SETTLE_SECONDS = 0.002
_MAX_SETTLES = 50
#: How long the watch waits at most for a file written to be closed before it looks anyway.
_WRITER_SECONDS = 5.0


def snapshot(project: Path) -> dict[str, tuple[int, int]]:
    """Modification time and size of every file a compile reads; empty without a configuration."""
    try:
        pyproject = locate_config(project)
    except UserError:  # gone for a moment, or for good: the watch waits either way
        return {}
    state: dict[str, tuple[int, int]] = {}
    paths = [pyproject]
    try:
        config = read_config(pyproject)
    except UserError:
        config = None
    if config is not None:
        sources, _ = discover_sources(config)
        paths.extend(source.absolute for source in sources)
    for path in paths:
        try:
            stat = path.stat()
        except OSError:
            continue
        state[str(path)] = (stat.st_mtime_ns, stat.st_size)
    return state


def _compile(compile_once: Callable[[], int], console: Console) -> None:
    try:
        compile_once()
    except (UserError, OSError) as error:  # OSError: a file went away while the compile read it
        console.print(f"[bold red]error:[/] {shown(str(error))}")


def _wait_for_change(project: Path, before: dict[str, tuple[int, int]], console: Console) -> None:
    """Poll until a file a compile reads changes, or the configuration is back after it went."""
    gone = False
    current = before
    while True:
        if not current and not gone:
            console.print(
                f"[yellow]waiting:[/] no pyproject.toml with a \\[tool.skill] table for {shown(str(project))}; "
                "compiling again when there is one"
            )
        gone = gone or not current
        if current and (gone or current != before):
            return
        time.sleep(POLL_SECONDS)
        current = snapshot(project)


class _Inotify:
    """Inotify events of folders, on Linux; elsewhere (or without inotify) nothing, and
    ``wait`` only sleeps.

    One instance serves the whole watch: closing an inotify descriptor that watches
    hundreds of folders takes the kernel milliseconds, which would delay every compile.
    """

    def __init__(self) -> None:
        self.fd = -1
        self._libc: ctypes.CDLL | None = None
        #: Each watch's folder, by its number.
        self._folders: dict[int, bytes] = {}

    def watch(self, folders: Iterable[str]) -> None:
        """Watch ``folders`` too (those watched already stay watched); if one cannot be watched,
        none is until the next call, and ``wait`` only sleeps (polling sees every change)."""
        if self.fd < 0:
            self._open()
        if self._libc is None or self.fd < 0:
            return
        for folder in folders:
            path = os.fsencode(folder)
            watch = self._libc.inotify_add_watch(self.fd, path, _INOTIFY_MASK)
            if watch < 0:
                self.close()
                return
            self._folders[watch] = path

    def _open(self) -> None:
        if not sys.platform.startswith("linux"):
            return
        try:
            if self._libc is None:
                self._libc = ctypes.CDLL(None, use_errno=True)
            self.fd = self._libc.inotify_init1(_IN_NONBLOCK_CLOEXEC)  # -1 when it cannot
        except (OSError, AttributeError):
            self._libc, self.fd = None, -1

    def wait(self, seconds: float, inputs: Container[str] = frozenset()) -> None:
        """Until a change shows and is complete, or until ``seconds`` have passed with none.

        A change is complete once every input written to is closed again (a save is often a
        truncation, then a write: one change; a file kept open is waited for
        ``_WRITER_SECONDS`` at most), and then the folders stay quiet for ``_SETTLE_SECONDS``
        (a save by rename closes a file, then renames it: one change).  An input is a path
        in ``inputs``, a module or a pyproject.toml: not an editor's swap file, which stays
        open for as long as the file is edited.
        """
        if self.fd < 0:
            time.sleep(seconds)
            return
        if not select.select([self.fd], [], [], seconds)[0]:
            return
        writing: set[tuple[int, bytes]] = set()
        writers_until = time.monotonic() + _WRITER_SECONDS
        settles = 0
        while True:
            self._read(writing, inputs)
            left = writers_until - time.monotonic()
            if writing and left > 0:
                timeout = left
            else:
                settles += 1
                if settles > _MAX_SETTLES:
                    return
                timeout = _SETTLE_SECONDS
            if not select.select([self.fd], [], [], timeout)[0]:
                return

    def _read(self, writing: set[tuple[int, bytes]], inputs: Container[str]) -> None:
        """Read every event there is; ``writing`` keeps the inputs (watch, name) written to and not closed since."""
        with contextlib.suppress(BlockingIOError, InterruptedError):
            while data := os.read(self.fd, 65536):
                offset = 0
                while offset + _EVENT.size <= len(data):
                    watch, mask, _, length = _EVENT.unpack_from(data, offset)
                    start = offset + _EVENT.size
                    name, offset = data[start : start + length].rstrip(b"\0"), start + length
                    if mask & _IN_Q_OVERFLOW:  # events were lost: nothing is known to be open
                        writing.clear()
                    elif mask & _IN_MODIFY and self._is_input(watch, name, inputs):
                        writing.add((watch, name))
                    elif mask & _WRITE_ENDS:
                        writing.discard((watch, name))

    def _is_input(self, watch: int, name: bytes, inputs: Container[str]) -> bool:
        """Whether the file ``name`` in the folder of ``watch`` is what a compile reads (see ``wait``)."""
        if name.endswith(b".py") or name == b"pyproject.toml":
            return True
        folder = self._folders.get(watch)
        return folder is not None and os.fsdecode(os.path.join(folder, name)) in inputs

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        self._folders.clear()


def _wait_for_session(project: Path, session: CompileSession, console: Console, inotify: _Inotify) -> None:
    """Until something the last compile read changed (see the module docstring)."""
    inotify.watch(dict.fromkeys(str(path) for path in session.folders()))
    seconds = _INOTIFY_SECONDS if inotify.fd >= 0 else POLL_SECONDS
    inputs = session.inputs()
    inotify.wait(0, inputs)  # what changed meanwhile: a file still being written is waited for
    while not session.changed():
        inotify.wait(seconds, inputs)
    pyproject = session.config.pyproject if session.config is not None else None
    if pyproject is None or identity(pyproject) is None:  # it went: wait for it as before any compile
        _wait_for_change(project, {}, console)


def _attempted(session: CompileSession | None) -> dict[str, tuple[int, int]]:
    """``snapshot``'s state of the configuration a compile failed on, as it read it.

    (A compile that fails on its configuration reads no sources, so that is all there is.)
    """
    attempted = session.attempted if session is not None else None
    if attempted is None:
        return {}
    path, found = attempted
    if found is None:
        return {}
    _, size, mtime, _ = found
    return {str(path): (mtime, size)}


def watch_project(
    project: Path, compile_once: Callable[[], int], console: Console, session: CompileSession | None = None
) -> int:
    """Run ``compile_once`` now and after each change; Ctrl-C ends the watch (exit 0).

    ``session`` is the one ``compile_once`` compiles with; without one, or while no
    compile has read the project, changes are found as ``snapshot`` finds them.
    """
    fresh = False  # whether the last compile left the session what it read
    inotify = _Inotify()
    first = True
    try:
        while True:
            before = None if fresh else snapshot(project)
            last = session.snapshot if session is not None else None
            with held_writes():  # the caches are written once the compile is reported, not before
                _compile(compile_once, console)
                fresh = session is not None and session.snapshot is not None and session.snapshot is not last
                console.print("[dim]Watching for changes (Ctrl-C to stop)...[/]")
            if first:  # it may have reused the last result whole: the next compile will not
                import_every_stage()
                first = False
            gc.collect()  # while nothing waits for it (see the module docstring)
            if session is not None:
                session.prepare()
            if session is not None and fresh:
                _wait_for_session(project, session, console, inotify)
            else:
                _wait_for_change(project, before if before is not None else _attempted(session), console)
            console.print("[dim]Change detected, compiling again.[/]\n")
    except KeyboardInterrupt:
        console.print("[dim]Stopped watching.[/]")
        return 0
    finally:
        inotify.close()
