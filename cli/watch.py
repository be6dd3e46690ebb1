"""``skill compile --watch``: compile, then again after every change, until interrupted.

Changes are found by polling the modification times and sizes of the project's
sources and ``pyproject.toml``; polling needs no extra dependency and works on every
file system, and a project is small enough for it to cost nothing noticeable.  The
state a compile is compared against is taken before it reads the files, so that a
change saved while it runs is compiled next, never missed.  The watching process keeps
the compiler's caches in memory between compiles (``compiler.cache``), so a change costs
only the work it affects.

Editors that save by renaming leave no ``pyproject.toml`` for a moment, and a file may
vanish while a compile reads it: the watch says so in one line and waits for the
project to come back, then compiles again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from ..compiler.config import locate_config, read_config
from ..compiler.source_tree import discover_sources
from ..contracts.errors import UserError
from .consoles import shown

__all__ = ["POLL_SECONDS", "snapshot", "watch_project"]

POLL_SECONDS = 0.1


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


def watch_project(project: Path, compile_once: Callable[[], int], console: Console) -> int:
    """Run ``compile_once`` now and after each change; Ctrl-C ends the watch (exit 0)."""
    try:
        while True:
            before = snapshot(project)
            _compile(compile_once, console)
            console.print("[dim]Watching for changes (Ctrl-C to stop)...[/]")
            _wait_for_change(project, before, console)
            console.print("[dim]Change detected, compiling again.[/]\n")
    except KeyboardInterrupt:
        console.print("[dim]Stopped watching.[/]")
        return 0
