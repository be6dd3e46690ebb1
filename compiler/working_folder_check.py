"""Report the paths a module opens relative to the working folder that name a file of the project.

``open("src/tools/data/orders.json")`` finds the file when the process runs in the project's
folder, as ``skill test`` from there does, and nothing (or another file) anywhere else: a
compiled tool runs wherever the process that loads it started (``skill serve`` under an MCP
host, ``skill chat`` from another folder, a deployed bundle, which holds no project at all).
The index keeps the literals shaped like paths (``index_paths``); ``check_working_folder_paths``
reports, as ``skill/working-folder-path``, each that names a source or data file of the
project from the project's folder or from ``src``.  It is a warning: the code does run in
the one folder where the path is right.

It reads the project's file list besides the summaries: the link runs it, and is done
again when a file is added, removed or renamed (``link_cache.config_digest``).
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection

from .resolve import Linker

__all__ = ["CODE", "check_working_folder_paths"]

CODE = "skill/working-folder-path"


def check_working_folder_paths(linker: Linker, files: Collection[str]) -> None:
    """Report each path literal of every module that names one of ``files`` (paths relative to the project)."""
    config = linker.config
    src = config.src.relative_to(config.root).as_posix() if config.src.is_relative_to(config.root) else None
    for name in sorted(linker.modules):
        index = linker.modules[name]
        for literal, pos in index.path_literals:
            relative = posixpath.normpath(literal)
            names = [relative] + ([posixpath.join(src, relative)] if src not in (None, ".") else [])
            named = next((path for path in names if path in files), None)
            if named is None:
                continue
            own = posixpath.relpath(named, posixpath.dirname(index.path))
            linker.report(
                CODE,
                name,
                pos,
                f"{literal!r} is relative to the working folder: it names {named} only when the process runs "
                "in the project's folder; a compiled tool runs wherever its process started (skill serve "
                "under a host, a deployed bundle), where the path names nothing or another file",
                hint=f'build it from the module\'s own folder, Path(__file__).parent / "{own}": the file is '
                "bundled with the module",
            )
