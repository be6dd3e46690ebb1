"""Report what code run at import does that fails the module's import where a tool is loaded.

The index finds it (``index_import_effects``, kept in ``ModuleIndex.import_effects``);
``check_import_effects`` reports, for every module the compiler indexed (as the
command-line check does), each environment variable read by key through ``os.environ``
as ``skill/environment-at-import``, each signal handler installed through the ``signal``
module as ``skill/signal-at-import``, each lookup of ``asyncio``'s event loop as
``skill/event-loop-at-import``, and each SQLite connection made at import for the module's
functions to use as ``skill/sqlite-at-import``.  Names that stand for something else
(``import environ``, a project's own ``signal``) are not reported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from .index_import_effects import ENVIRON, SIGNAL_FUNCTIONS, SQLITE_CONNECT
from .index_loop_calls import LOOP_GETTERS
from .index_types import ImportEffects
from .resolve import Linker
from .types import Pos

__all__ = ["ENVIRONMENT_AT_IMPORT", "check_import_effects"]

#: The code of a read of the environment at import that fails where a variable is not set
#: (also ``settings_check``'s).
ENVIRONMENT_AT_IMPORT = "skill/environment-at-import"


class _Effect(NamedTuple):
    """One kind of effect: where ``ImportEffects`` keeps it, the module it is about and the members
    that may be imported from it by name (``from os import environ``), and how it is reported
    (``message`` takes the expression as ``{shown}``)."""

    found: Callable[[ImportEffects], tuple[tuple[str, str, Pos], ...]]
    module: str
    members: frozenset[str]
    code: str
    message: str
    hint: str


_EFFECTS = (
    _Effect(
        lambda effects: effects.environment_reads,
        "os",
        ENVIRON,
        ENVIRONMENT_AT_IMPORT,
        "{shown} is read when the module is imported: where the variable is not set, the import raises KeyError, "
        "and every tool whose bundle holds the module fails to load, whatever it is called with",
        "read the variable when the tool runs (ctx.env[...] in execute, where a missing one is that call's error), "
        "or give it a default (os.environ.get(...))",
    ),
    _Effect(
        lambda effects: effects.signal_handlers,
        "signal",
        SIGNAL_FUNCTIONS,
        "skill/signal-at-import",
        "{shown} installs a signal handler when the module is imported: the runtime imports a tool's modules in a "
        "worker thread, where Python refuses it (ValueError), so every tool whose bundle holds the module fails to load",
        "install signal handlers in the program that runs the tools, not in a tool's module; a tool's timeout stops it",
    ),
    _Effect(
        lambda effects: effects.loop_lookups,
        "asyncio",
        LOOP_GETTERS,
        "skill/event-loop-at-import",
        "{shown} looks the event loop up when the module is imported: the runtime imports a tool's modules in a "
        "worker thread, where no loop is set and none runs, and asyncio raises RuntimeError, so every tool whose "
        "bundle holds the module fails to load",
        "look the loop up when the tool runs (asyncio.get_running_loop() inside an async def); asyncio.Lock(), "
        "Queue() and Event() need no loop to be made at import",
    ),
    _Effect(
        lambda effects: effects.sqlite_connections,
        "sqlite3",
        SQLITE_CONNECT,
        "skill/sqlite-at-import",
        "{shown} opens a SQLite connection when the module is imported, for its functions to use: the runtime "
        "imports a tool's modules in a worker thread and runs the calls in other threads (an async tool's on the "
        "event loop's), and sqlite3 refuses a connection in any thread but the one that made it "
        "(ProgrammingError), so the calls fail",
        "open the connection where it is used (`with closing(sqlite3.connect(path)) as conn:` in the call), or "
        "pass check_same_thread=False and hold a threading.Lock around its use",
    ),
)


def check_import_effects(linker: Linker) -> None:
    """Report every effect of code run at import (see the module docstring), in every module."""
    for module in sorted(linker.modules):
        effects = linker.modules[module].import_effects
        for effect in _EFFECTS:
            for name, shown, pos in effect.found(effects):
                target = linker.imported(module, name)  # the module itself, or one of its members
                if (
                    target is not None
                    and target[0] == effect.module
                    and (target[1] in effect.members or target[1] is None)
                ):
                    linker.report(effect.code, module, pos, effect.message.format(shown=shown), hint=effect.hint)
