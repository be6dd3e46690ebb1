"""Report what code run at import does that fails the module's import where a tool is loaded.

The index finds it (``index_import_effects``, kept in ``ModuleIndex.import_effects``);
``check_import_effects`` reports, for every module the compiler indexed (as the
command-line check does), each environment variable read by key through ``os.environ``
as ``skill/environment-at-import``, each signal handler installed through the ``signal``
module as ``skill/signal-at-import``, and each lookup of ``asyncio``'s event loop as
``skill/event-loop-at-import``.  Names that stand for something else
(``import environ``, a project's own ``signal``) are not reported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from .index_import_effects import SIGNAL_FUNCTIONS
from .index_loop_calls import LOOP_GETTERS
from .index_types import ImportEffects
from .resolve import Linker
from .types import Pos

__all__ = ["check_import_effects"]


def _is_os_environ(linker: Linker, module: str, name: str) -> bool:
    """Whether ``name`` (what an ``environ`` read starts from) is the module ``os``, or ``os.environ``."""
    return linker.imported(module, name) in (("os", None), ("os", "environ"))


def _is_signal_function(linker: Linker, module: str, name: str) -> bool:
    """Whether ``name`` (what a handler's call starts from) is the module ``signal``, or one of its ``SIGNAL_FUNCTIONS``."""
    target = linker.imported(module, name)
    return target is not None and target[0] == "signal" and (target[1] is None or target[1] in SIGNAL_FUNCTIONS)


def _is_loop_getter(linker: Linker, module: str, name: str) -> bool:
    """Whether ``name`` (what a loop lookup starts from) is the module ``asyncio``, or one of its ``LOOP_GETTERS``."""
    target = linker.imported(module, name)
    return target is not None and target[0] == "asyncio" and (target[1] is None or target[1] in LOOP_GETTERS)


class _Effect(NamedTuple):
    """One kind of effect: where ``ImportEffects`` keeps it, whether a name stands for what it is
    about, and how it is reported (``message`` takes the expression as ``{shown}``)."""

    found: Callable[[ImportEffects], tuple[tuple[str, str, Pos], ...]]
    stands_for: Callable[[Linker, str, str], bool]
    code: str
    message: str
    hint: str


_EFFECTS = (
    _Effect(
        lambda effects: effects.environment_reads,
        _is_os_environ,
        "skill/environment-at-import",
        "{shown} is read when the module is imported: where the variable is not set, the import raises KeyError, "
        "and every tool whose bundle holds the module fails to load, whatever it is called with",
        "read the variable when the tool runs (ctx.env[...] in execute, where a missing one is that call's error), "
        "or give it a default (os.environ.get(...))",
    ),
    _Effect(
        lambda effects: effects.signal_handlers,
        _is_signal_function,
        "skill/signal-at-import",
        "{shown} installs a signal handler when the module is imported: the runtime imports a tool's modules in a "
        "worker thread, where Python refuses it (ValueError), so every tool whose bundle holds the module fails to load",
        "install signal handlers in the program that runs the tools, not in a tool's module; a tool's timeout stops it",
    ),
    _Effect(
        lambda effects: effects.loop_lookups,
        _is_loop_getter,
        "skill/event-loop-at-import",
        "{shown} looks the event loop up when the module is imported: the runtime imports a tool's modules in a "
        "worker thread, where no loop is set and none runs, and asyncio raises RuntimeError, so every tool whose "
        "bundle holds the module fails to load",
        "look the loop up when the tool runs (asyncio.get_running_loop() inside an async def); asyncio.Lock(), "
        "Queue() and Event() need no loop to be made at import",
    ),
)


def check_import_effects(linker: Linker) -> None:
    """Report every effect of code run at import (see the module docstring), in every module."""
    for module in sorted(linker.modules):
        effects = linker.modules[module].import_effects
        for effect in _EFFECTS:
            for name, shown, pos in effect.found(effects):
                if effect.stands_for(linker, module, name):
                    linker.report(effect.code, module, pos, effect.message.format(shown=shown), hint=effect.hint)
