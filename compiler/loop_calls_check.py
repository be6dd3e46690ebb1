"""Report the ``async def`` bodies that start an event loop of their own.

The index finds the calls (``index_loop_calls``, kept in ``ModuleIndex.loop_calls``);
``check_loop_calls`` reports each whose name stands for ``asyncio`` (or ``asyncio.run``,
imported from it) as ``skill/nested-event-loop``, for every module the compiler indexed:
such a call raises whenever it runs.
"""

from __future__ import annotations

from .resolve import Linker

__all__ = ["check_loop_calls", "names_asyncio"]


def names_asyncio(linker: Linker, module: str, name: str, members: frozenset[str]) -> bool:
    """Whether ``name`` is, in ``module``, the module ``asyncio`` (``import asyncio [as aio]``), or one
    of its ``members`` imported by that name (``from asyncio import run``)."""
    target = linker.imported(module, name)
    return target == ("asyncio", None) or (name in members and target == ("asyncio", name))


#: The member of ``asyncio`` a loop-starting call may start from by its own name (``run(...)``).
_RUN = frozenset({"run"})


def check_loop_calls(linker: Linker) -> None:
    """Report every loop-starting call in an ``async def`` of every module."""
    for module in sorted(linker.modules):
        for name, shown, pos in linker.modules[module].loop_calls:
            if names_asyncio(linker, module, name, _RUN):
                linker.report(
                    "skill/nested-event-loop",
                    module,
                    pos,
                    f"{shown} starts an event loop inside an async def, which already runs in one: asyncio refuses "
                    "it (RuntimeError) every time this code runs",
                    hint="await the coroutine instead (result = await coroutine); asyncio.run belongs in sync code",
                )
