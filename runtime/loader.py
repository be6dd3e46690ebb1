"""Load a compiled ``dist/`` and run its tools: ``load_dist`` and the ``Runtime`` it returns.

``Runtime`` is the facade the rest of skillc (and a user's own program) talks to.  It
composes the three parts of the runtime, each in a module of its own:

- ``store.DistStore``: the loaded dist (the manifest now, each bundle verified and
  imported when it is first needed, the definitions read once);
- ``offer.build_offer``: every ``condition()`` for a turn, failing closed;
- ``call.call_tool``: the one call path, name and arguments in, a ``ToolResult`` out.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..contracts.manifest import Manifest, SkillEntry, ToolEntry
from ..contracts.spec import DEFAULT_CONDITION_TIMEOUT
from .bundles import LoadError, ModuleSpace
from .call import Approver, call_tool
from .client import ClientHandler
from .context import ToolContext
from .distfiles import read_manifest
from .offer import Offer, build_offer
from .results import ToolResult
from .serialize import DEFAULT_MAX_OUTPUT_BYTES
from .store import DistStore, LoadedTool
from .workers import DEFAULT_WORKERS, WorkerPool

# Approver, LoadError, LoadedTool and ModuleSpace lived here before the runtime was split.
__all__ = ["Approver", "LoadError", "LoadedTool", "ModuleSpace", "Runtime", "load_dist"]


class Runtime:
    """A loaded ``dist/``: offers its tools and calls them.

    Build it with ``load_dist``.  ``offer`` and ``call`` are coroutines; a runtime may
    be used from several event loops in turn (``asyncio.run`` once per command), not
    from several at once.  ``close`` lets its worker threads end.
    """

    def __init__(
        self,
        dist: Path,
        manifest: Manifest,
        *,
        condition_timeout: float = DEFAULT_CONDITION_TIMEOUT,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        workers: int = DEFAULT_WORKERS,
    ) -> None:
        if condition_timeout <= 0:
            raise ValueError("condition_timeout must be a positive number of seconds")
        if max_output_bytes < 1:
            raise ValueError("max_output_bytes must be at least 1")
        self.condition_timeout = condition_timeout
        self.max_output_bytes = max_output_bytes
        #: What the dist holds, loaded as it is needed: what ``offer`` and ``call`` use.
        self.store = DistStore(dist, manifest, workers=workers)

    def __repr__(self) -> str:
        return f"<Runtime {self.manifest.agent.name!r} from {self.dist} ({len(self.tool_names)} tools)>"

    # --- what the dist holds ------------------------------------------------------------

    @property
    def dist(self) -> Path:
        """The ``dist/`` folder, resolved."""
        return self.store.dist

    @property
    def manifest(self) -> Manifest:
        """The dist's ``manifest.json``, checked."""
        return self.store.manifest

    @property
    def pool(self) -> WorkerPool:
        """The threads that run the dist's code."""
        return self.store.pool

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Every tool's name, in manifest order."""
        return self.store.tool_names

    def tool_entry(self, name: str) -> ToolEntry | None:
        """The manifest's entry for the tool ``name``, or ``None``."""
        return self.store.tool_entry(name)

    def skill_entry(self, name: str) -> SkillEntry | None:
        """The manifest's entry for the skill ``name``, or ``None``."""
        return self.store.skill_entry(name)

    @property
    def loaded(self) -> frozenset[str]:
        """The tools whose bundles have been imported so far."""
        return self.store.loaded

    async def load_tool(self, name: str, timeout: float) -> LoadedTool:
        """The tool ``name`` imported from its bundle; ``LoadError`` or ``TimeoutError`` if it cannot be."""
        return await self.store.load_tool(name, timeout)

    async def load_skill_condition(self, name: str, timeout: float) -> Callable[[], Any]:
        """The ``condition()`` of the skill ``name``, imported from its bundle."""
        return await self.store.load_skill_condition(name, timeout)

    async def definitions(self, names: Sequence[str], timeout: float) -> dict[str, Mapping[str, Any] | str]:
        """The function definition (``tool.json``) of each tool, or why it cannot be read."""
        return await self.store.definitions(names, timeout)

    # --- the two things a runtime does -------------------------------------------------

    async def offer(
        self,
        context: ToolContext,
        *,
        timeout: float | None = None,
        only: Collection[str] | None = None,
        budget: float | None = None,
    ) -> Offer:
        """Evaluate every condition for this turn (``only``: just those tools'); see ``skillc.runtime.offer``.

        ``budget`` (seconds) bounds the whole offer: conditions that have not answered by then are hidden.
        """
        timeout = self.condition_timeout if timeout is None else timeout
        return await build_offer(self.store, context, timeout, only=only, budget=budget)

    def call(
        self,
        name: str,
        arguments: str | bytes | Mapping[str, Any],
        call_id: str,
        context: ToolContext | None = None,
        *,
        offered: Collection[str] | None = None,
        approver: Approver | None = None,
        client: ClientHandler | None = None,
    ) -> Coroutine[Any, Any, ToolResult]:
        """Run one tool call (``await`` it); any failure is an error result, never an exception.

        ``client(name, arguments)`` (sync or async) gives the result of a client-side tool;
        without it, such a call is an error result saying the result must come from the client.
        (The coroutine is ``call_tool``'s own: one coroutine less per call than an ``async def`` here.)
        """
        return call_tool(
            self.store, name, arguments, call_id, context, offered, approver, self.max_output_bytes, client
        )

    def close(self) -> None:
        """Let the worker threads end and flush the files the tools' modules hold (``store.DistStore.close``)."""
        self.store.close()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def load_dist(
    path: Path | str,
    *,
    condition_timeout: float = DEFAULT_CONDITION_TIMEOUT,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    workers: int = DEFAULT_WORKERS,
) -> Runtime:
    """Read ``path/manifest.json`` and return a ``Runtime``; no bundle is opened yet.

    A missing or malformed manifest is a ``UserError`` that says what to do.
    """
    dist = Path(path).resolve()
    return Runtime(
        dist,
        read_manifest(dist),
        condition_timeout=condition_timeout,
        max_output_bytes=max_output_bytes,
        workers=workers,
    )
