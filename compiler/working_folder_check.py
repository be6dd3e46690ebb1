"""Report the paths a module opens relative to the working folder that name a file of the project.

``open("src/tools/data/orders.json")`` finds the file when the process runs in the project's
folder, as ``skill test`` from there does, and nothing (or another file) anywhere else: a
compiled tool runs wherever the process that loads it started (``skill serve`` under an MCP
host, ``skill chat`` from another folder, a deployed bundle, which holds no project at all).
The index keeps the literals shaped like paths (``index_paths``); ``check_working_folder_paths``
reports, as ``skill/working-folder-path``, each that names a source or data file of the
project from the project's folder or from ``src``, or a file of the project's folder outside
``src`` (``open("settings.json")`` beside ``pyproject.toml``), which no bundle holds at all.
It is a warning: the code does run in the one folder where the path is right.

A relative path that names no file of the project is reported too when the call makes or
changes the file there (``sqlite3.connect("notes.db")``, ``open("out.log", "a")``,
``logging.FileHandler("agent.log")``, ``Path("cache").mkdir()``): each process that runs
the tool writes its own file in whatever folder it started in, and under a host that
starts ``skill serve`` in a folder it cannot write (often ``/``), the call fails, at import
for code run there, so every tool of the module with it.

It reads the project's file list besides the summaries: the link runs it, and is done
again when a file is added, removed or renamed (``link_cache.config_digest``).  Files
outside ``src`` are not listed (the project's folder may hold a virtual environment): each
path a literal names there is looked up once (``root_files.RootFiles``), and the link and
the report record what they found, to be looked up again before either is reused.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection
from typing import TYPE_CHECKING

from .data_refs import OPEN_FUNCTIONS, opens_to_write
from .root_files import RootFiles
from .symbols import ExternalSym

if TYPE_CHECKING:
    from .index_types import PathUse
    from .resolve import Linker
    from .types import Pos

__all__ = ["CODE", "check_working_folder_paths"]

CODE = "skill/working-folder-path"
#: Functions that make or change the file their first argument names, whatever else they are given.
_WRITING = frozenset(
    {
        "sqlite3.connect",
        "aiosqlite.connect",
        # A SQLite URL's file (``create_engine("sqlite:///shop.db")``) is made on the first connection.
        "sqlalchemy.create_engine",
        "sqlalchemy.engine.create_engine",
        "sqlalchemy.ext.asyncio.create_async_engine",
        "sqlmodel.create_engine",
        "shelve.open",
        "os.mkdir",
        "os.makedirs",
        "logging.FileHandler",
        "logging.handlers.RotatingFileHandler",
        "logging.handlers.TimedRotatingFileHandler",
        "logging.handlers.WatchedFileHandler",
    }
)
#: Functions that open their first argument in the ``mode`` they are given.
_OPENING = OPEN_FUNCTIONS | {"dbm.open"}
_PATHS = frozenset({"pathlib.Path", "pathlib.PosixPath", "pathlib.WindowsPath"})
#: Methods of a path that make or change the file.
_WRITING_METHODS = frozenset({"write_text", "write_bytes", "touch", "mkdir"})


def _outside(relative: str) -> bool:
    """Whether a normalized relative path climbs out of the folder it is relative to."""
    return relative == ".." or relative.startswith("../") or posixpath.isabs(relative)


def check_working_folder_paths(linker: Linker, files: Collection[str], root_files: RootFiles) -> None:
    """Report each path literal of every module that names one of ``files`` (paths relative to the
    project) or, asking ``root_files``, another file of the project's folder."""
    config = linker.config
    src = config.src.relative_to(config.root).as_posix() if config.src.is_relative_to(config.root) else None
    for name in sorted(linker.modules):
        index = linker.modules[name]
        for literal, pos, use in index.path_literals:
            relative = posixpath.normpath(literal)
            names = [relative] + ([posixpath.join(src, relative)] if src not in (None, ".") else [])
            named = next((path for path in names if path in files), None)
            shown = _writer(linker, name, use)
            if shown is not None and not _outside(relative):
                # Written: a file of the project by that name (a first call made it, say) changes nothing.
                _report_write(linker, name, pos, literal, shown)
                continue
            if named is not None:
                own = posixpath.relpath(named, posixpath.dirname(index.path))
                hint = (
                    f'build it from the module\'s own folder, Path(__file__).parent / "{own}": the file is '
                    "bundled with the module"
                )
            elif src not in (None, ".") and not _outside(relative) and root_files.is_file(relative):
                named = relative
                folder = posixpath.dirname(index.path)
                hint = (
                    f"move it beside the module, into {folder}/, and build the path from the module's own folder, "
                    f'Path(__file__).parent / "{posixpath.basename(relative)}": files under {src}/ are bundled '
                    "with the modules that use them"
                )
            else:
                continue
            linker.report(
                CODE,
                name,
                pos,
                f"{literal!r} is relative to the working folder: it names {named} only when the process runs "
                "in the project's folder; a compiled tool runs wherever its process started (skill serve "
                "under a host, a deployed bundle), where the path names nothing or another file",
                hint=hint,
            )


def _writer(linker: Linker, module: str, use: PathUse) -> str | None:
    """The call as a message shows it when it makes or changes the file its literal names, else ``None``."""
    symbol = linker.resolve_ref(module, use.function) if use.function else None
    if symbol is None:
        function = _imported_inside(linker, module, use.function)
    else:
        function = symbol.qualname if isinstance(symbol, ExternalSym) else None
    if function in _WRITING or (function in _OPENING and opens_to_write(use.mode)):
        return f"{use.function}(...)"
    if function in _PATHS and (
        use.method in _WRITING_METHODS or (use.method == "open" and opens_to_write(use.method_mode))
    ):
        return f"{use.function}(...).{use.method}(...)"
    return None


def _imported_inside(linker: Linker, module: str, function: str | None) -> str | None:
    """What ``function`` (``sq.connect``) names when the module binds its first part nowhere at module level
    but imports it the same way in every function that does (``def f(): import sqlite3 as sq``); else ``None``."""
    if not function:
        return None
    head, _, rest = function.partition(".")
    bindings = {
        (binding.module, binding.name)
        for binding in linker.modules[module].inner_imports
        if binding.local == head and not binding.level and not binding.star
    }
    if len(bindings) != 1:
        return None
    imported, name = bindings.pop()
    qualname = f"{imported}.{name}" if name else imported
    return f"{qualname}.{rest}" if rest else qualname


def _report_write(linker: Linker, module: str, pos: Pos, literal: str, shown: str) -> None:
    linker.report(
        CODE,
        module,
        pos,
        f"{shown} writes {literal!r} relative to the working folder: each process that runs the tool writes its "
        "own file in whatever folder it started in, and a host that starts skill serve in a folder it cannot "
        "write (often /) makes the call fail there",
        hint="keep what tools write in ctx.data (shared by every tool and process), or build the path from a "
        "folder the configuration names (an environment variable read with ctx.env)",
    )
