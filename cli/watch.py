"""``skill compile --watch``: compile, then again after every change, until interrupted.

Changes are found by polling the modification times and sizes of the project's
sources and ``pyproject.toml``; polling needs no extra dependency and works on every
file system, and a project is small enough for it to cost nothing noticeable.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from ..compiler.config import locate_config, read_config
from ..compiler.sources import discover_sources
from ..runtime.errors import UserError

__all__ = ["POLL_SECONDS", "snapshot", "watch_project"]

POLL_SECONDS = 0.3


def snapshot(project: Path) -> dict[str, tuple[int, int]]:
    """Modification time and size of every file a compile reads."""
    pyproject = locate_config(project)
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


def watch_project(project: Path, compile_once: Callable[[], int], console: Console) -> int:
    """Run ``compile_once`` now and after each change; Ctrl-C ends the watch (exit 0)."""
    try:
        while True:
            try:
                compile_once()
            except UserError as error:
                console.print(f"[bold red]error:[/] {error}")
            before = snapshot(project)
            console.print("[dim]Watching for changes (Ctrl-C to stop)...[/]")
            while snapshot(project) == before:
                time.sleep(POLL_SECONDS)
            console.print("[dim]Change detected, compiling again.[/]\n")
    except KeyboardInterrupt:
        console.print("[dim]Stopped watching.[/]")
        return 0
