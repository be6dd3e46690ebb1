"""What a loaded ``dist/`` holds: the manifest now, each bundle when it is first needed.

``DistStore`` is the loading service the steps of the runtime lean on (``offer`` and
``call``).  It is built from ``manifest.json`` alone, so loading costs the same whether
the agent has five tools or five hundred.  A tool's bundle is read the first time the
tool is called (or its ``condition()`` evaluated): its bytes are checked against the
manifest's sha256 and imported *from those same bytes* (``bundles.ModuleSpace``), so the
code that runs is the code that was checked, whatever happens to the file afterwards.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from contextvars import Context
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..contracts.errors import ToolDefinitionError
from ..contracts.manifest import Manifest, SkillEntry, ToolEntry
from ..contracts.settings import IDEMPOTENT, NEEDS_APPROVAL, PER_CALL, RETRIES, STRICT, TIMEOUT
from .bundles import LoadError, ModuleSpace
from .capture import Capture
from .client import ClientTool, client_tool
from .distfiles import LinkedDistFile, read_dist_file
from .imports import ImportScope
from .json_edges import takes_floats
from .ownjson import read_json
from .sdk import FunctionTool, Tool, settings_of
from .serialize import describe_exception
from .unawaited import watch
from .workers import DEFAULT_WORKERS, Work, WorkerPool, wait_done

__all__ = ["DistStore", "LoadError", "LoadedTool"]

logger = logging.getLogger("skillc.runtime")


@dataclass(frozen=True)
class LoadedTool:
    """A tool imported from its bundle, with what calling it needs, worked out once."""

    entry: ToolEntry
    tool: Tool
    #: ``input.schema.json`` of a strict tool (it says which fields are optional).
    input_schema: Mapping[str, Any] | None
    #: What the tool's code imports through at call time (``running.Running.scope``).
    scope: ImportScope | None = None
    #: Whether ``execute`` is a coroutine function (for ``@tool``, the decorated function).
    asynchronous: bool = field(init=False)
    #: ``True``: every call needs approval; ``False``: none does; ``None``: its function decides per call.
    approval: bool | None = field(init=False)
    #: The compiled ``timeout`` setting, in seconds.
    timeout: float = field(init=False)
    #: How many attempts a call may make: one, or one more than ``retries`` unless ``idempotent=False``.
    tries: int = field(init=False)
    #: How log messages and deadlines name the tool's code: ``tool 'name'``.
    label: str = field(init=False)
    #: The tool's input model (a ``@tool`` function's is made on first use: here, once).
    input_model: type[BaseModel] | None = field(init=False)
    #: Whether its input model could take a float (``json_edges.takes_floats``; no model: no arguments read by it).
    takes_floats: bool = field(init=False)
    #: What validates JSON text of arguments straight into the input model (its pydantic-core
    #: validator's ``validate_json``), unless there is no model or strict nulls to remove first.
    validate_json: Callable[[str], Any] | None = field(init=False)

    def __post_init__(self) -> None:
        target = self.tool.function if isinstance(self.tool, FunctionTool) else self.tool.execute
        object.__setattr__(self, "asynchronous", inspect.iscoroutinefunction(target))
        compiled, decided = self.entry.settings[NEEDS_APPROVAL], settings_of(self.tool)[NEEDS_APPROVAL]
        approval = True if True in (compiled, decided) else None if PER_CALL in (compiled, decided) else False
        object.__setattr__(self, "approval", approval)
        settings = self.entry.settings
        object.__setattr__(self, "timeout", settings[TIMEOUT])
        object.__setattr__(self, "tries", 1 if settings[IDEMPOTENT] is False else settings[RETRIES] + 1)
        object.__setattr__(self, "label", f"tool {self.entry.name!r}")
        model = self.tool.input_schema
        object.__setattr__(self, "input_model", model)
        object.__setattr__(self, "takes_floats", model is None or takes_floats(model))
        direct = model.__pydantic_validator__.validate_json if model is not None and self.input_schema is None else None
        object.__setattr__(self, "validate_json", direct)


class DistStore:
    """One ``dist/``: its manifest's entries, its tools imported once each, its definitions.

    Every load runs in the store's worker pool (which also runs the tools' code), once
    per item however many callers wait for it; a failed load is not kept, so a fixed
    file is read again by the next caller.  ``close`` lets the worker threads end, and
    flushes the files the tools' modules hold (see ``close``).
    """

    def __init__(self, dist: Path, manifest: Manifest, *, workers: int = DEFAULT_WORKERS) -> None:
        self.dist = dist
        self.manifest = manifest
        #: The threads that run this dist's code: imports, conditions, sync tools.
        self.pool = WorkerPool(workers)
        self._tools = manifest.tool_map()
        self._skills = {skill.name: skill for skill in manifest.skills}
        self._space = ModuleSpace()
        self._lock = threading.Lock()
        self._tool_loads: dict[str, Work[Any]] = {}
        self._ready: dict[str, LoadedTool] = {}
        self._condition_loads: dict[str, Work[Any]] = {}
        self._client_loads: dict[str, Work[Any]] = {}
        self._clients: dict[str, ClientTool] = {}
        self._definitions: dict[str, Mapping[str, Any]] = {}
        self._condition_scopes: dict[str, ImportScope] = {}
        self._closed = False
        self._finalizer = weakref.finalize(self, self.pool.close, self._space.flush_files)
        watch()  # before any of its code runs: a coroutine it drops unawaited fails the call (``unawaited``)

    def close(self) -> None:
        """Let the worker threads end, and flush the files the tools' modules hold (``ModuleSpace.flush_files``).

        The files are flushed now, and again once no thread of the pool runs anything (by
        the last one, as it ends; threads still running tool code finish first): what a tool
        wrote to a file it left open reaches the file when the store is closed, not when
        the process ends.  Nothing of the modules is let go: code still running goes on.
        Close the store once the async calls made through it have ended: their code runs on
        their loop, which the store does not wait for.  A closed store loads nothing: a call
        refuses with ``the runtime is closed``.
        """
        with self._lock:
            self._closed = True
            self._ready.clear()
        self._finalizer()
        self._space.flush_files()

    # --- what the manifest says -------------------------------------------------------

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Every tool's name, in manifest order."""
        return tuple(self._tools)

    def tool_entry(self, name: str) -> ToolEntry | None:
        """The manifest's entry for the tool ``name``, or ``None``."""
        return self._tools.get(name)

    def skill_entry(self, name: str) -> SkillEntry | None:
        """The manifest's entry for the skill ``name``, or ``None``."""
        return self._skills.get(name)

    @property
    def loaded(self) -> frozenset[str]:
        """The tools whose bundles have been imported so far."""
        with self._lock:
            return frozenset(
                name
                for name, work in self._tool_loads.items()
                if work.done() and not work.cancelled() and work.error is None
            )

    # --- loading, once each ------------------------------------------------------------

    def ready_tool(self, name: str) -> LoadedTool | None:
        """The tool ``name`` if it has been imported already, else ``None`` (nothing is started)."""
        return self._ready.get(name)

    async def load_tool(self, name: str, timeout: float) -> LoadedTool:
        """The tool ``name`` imported from its verified bundle; ``LoadError`` or ``TimeoutError`` if not."""
        ready = self._ready.get(name)
        if ready is not None:
            return ready
        entry = self._tools[name]
        loaded = await self._once(self._tool_loads, name, lambda: self._import_tool(entry), timeout)
        assert isinstance(loaded, LoadedTool)
        if not self._closed:  # a load that succeeded is kept: later calls take it from here
            self._ready[name] = loaded
        return loaded

    async def load_client(self, name: str, timeout: float) -> ClientTool:
        """The client-side tool ``name`` with its schemas read and checked (no code: it has none); else ``LoadError``."""
        ready = self._clients.get(name)
        if ready is not None:
            return ready
        entry = self._tools[name]
        loaded = await self._once(self._client_loads, name, lambda: client_tool(entry, self._read_json), timeout)
        assert isinstance(loaded, ClientTool)
        self._clients[name] = loaded
        return loaded

    async def load_skill_condition(self, name: str, timeout: float) -> Callable[[], Any]:
        """The ``condition()`` of the skill ``name``, imported from its verified bundle."""
        skill = self._skills[name]
        condition = await self._once(self._condition_loads, name, lambda: self._import_condition(skill), timeout)
        assert callable(condition)
        return condition  # type: ignore[no-any-return]

    def condition_scope(self, name: str) -> ImportScope | None:
        """What the loaded ``condition()`` of the skill ``name`` imports through, if it is loaded."""
        return self._condition_scopes.get(name)

    async def definitions(self, names: Sequence[str], timeout: float) -> dict[str, Mapping[str, Any] | str]:
        """The function definition (``tool.json``) of each of ``names``, or why it cannot be read.

        Definitions are read once and kept; a failure is not kept, so a fixed file is
        read again on the next turn.
        """
        found: dict[str, Mapping[str, Any] | str] = {
            name: self._definitions[name] for name in names if name in self._definitions
        }
        missing = [name for name in names if name not in found]
        if missing:
            work = self.pool.submit(lambda: {name: self._read_definition(name) for name in missing}, Context())
            if not await wait_done(work, timeout):
                self.pool.abandon(work)
                found.update({name: f"reading its definition took longer than {timeout:g} s" for name in missing})
            else:
                for name, document in work.result().items():
                    if not isinstance(document, str):
                        self._definitions[name] = document
                    found[name] = document
        return {name: found[name] for name in names}

    async def _once(self, loads: dict[str, Work[Any]], name: str, job: Callable[[], Any], timeout: float) -> Any:
        """Run ``job`` once for ``name`` (concurrent callers share it); a failure is retried later."""
        with self._lock:
            if self._closed:
                raise LoadError("the runtime is closed")
            work = loads.get(name)
            if work is None or work.cancelled():
                # An empty context: the import belongs to no call, and no call's capture.
                work = loads[name] = self.pool.submit(job, Context())
        if not await wait_done(work, timeout):
            # Other callers may still wait for it: write its thread off, never cancel it.
            self.pool.abandon(work, cancel=False)
            raise TimeoutError(f"loading took longer than {timeout:g} s")
        error = work.error
        if error is not None:
            with self._lock:
                if loads.get(name) is work:
                    del loads[name]
            if isinstance(error, LoadError):
                raise error
            raise LoadError(describe_exception(error))
        return work.result()

    # --- reading dist/ (in the pool) -----------------------------------------------------

    def _verified(self, relative: str, sha256: str, what: str) -> bytes:
        """The bytes of a bundle, if they are what the manifest says; else ``LoadError``."""
        try:
            data = read_dist_file(self.dist, relative)
        except LinkedDistFile as error:
            raise LoadError(
                f"the bundle of {what} ({relative}) is not the file skillc wrote ({error.strerror}): "
                "it changed after it was compiled; recompile with `skill compile`"
            ) from None
        except FileNotFoundError:
            raise LoadError(f"the bundle of {what} is missing ({relative}); recompile with `skill compile`") from None
        except OSError as error:
            raise LoadError(f"cannot read the bundle of {what} ({relative}): {error.strerror or error}") from None
        if hashlib.sha256(data).hexdigest() != sha256:
            raise LoadError(
                f"the bundle of {what} ({relative}) does not match the sha256 in the manifest: "
                "it changed after it was compiled; recompile with `skill compile`"
            )
        return data

    def _import(self, relative: str, sha256: str, module: str, attribute: str, what: str) -> tuple[object, ImportScope]:
        """``attribute`` of ``module``, imported from the verified bundle ``relative``, and the
        bundle's scope; else ``LoadError``."""
        data = self._verified(relative, sha256, what)
        printed = Capture()
        try:
            with printed.active():
                return self._space.load_bundle(data, str(self.dist / relative), module, attribute, sha256)
        except LoadError:
            raise
        except BaseException as error:  # the module's own code ran: anything, sys.exit() included
            raise LoadError(f"importing the bundle of {what} raised {describe_exception(error)}") from None
        finally:
            if printed.text:
                logger.debug("importing the bundle of %s printed:\n%s", what, printed.text)

    def _import_tool(self, entry: ToolEntry) -> LoadedTool:
        what = f"tool {entry.name!r}"
        if entry.bundle is None or entry.sha256 is None or entry.entry is None:
            raise LoadError(f"{what} is client-side: it has no bundle to import")
        value, scope = self._import(entry.bundle, entry.sha256, entry.entry.module, entry.entry.qualname, what)
        if not isinstance(value, Tool):
            raise LoadError(f"the bundle of {what} holds {type(value).__name__}, not a Tool")
        if value.name != entry.name:
            raise LoadError(f"the bundle of {what} holds the tool {value.name!r}; recompile with `skill compile`")
        schema = None
        if entry.settings[STRICT]:
            found = self._read_json(entry.schemas.input)
            if not isinstance(found, dict):
                raise LoadError(f"{entry.schemas.input} holds no JSON object; recompile with `skill compile`")
            schema = found
        try:
            return LoadedTool(entry, value, schema, scope)  # a @tool function's model may be made only now
        except ToolDefinitionError as error:
            raise LoadError(f"{what} cannot be defined: {error}") from None

    def _import_condition(self, skill: SkillEntry) -> Callable[[], Any]:
        condition = skill.condition
        assert condition is not None
        what = f"skill {skill.name!r}"
        value, scope = self._import(
            condition.bundle, condition.sha256, condition.entry.module, condition.entry.qualname, what
        )
        if not callable(value):
            raise LoadError(f"the condition bundle of {what} holds {type(value).__name__}, not a function")
        self._condition_scopes[skill.name] = scope
        return value

    def _read_json(self, relative: str) -> Any:
        try:
            return read_json(read_dist_file(self.dist, relative))
        except LinkedDistFile as error:
            raise LoadError(
                f"{relative} is not the file skillc wrote ({error.strerror}); recompile with `skill compile`"
            ) from None
        except FileNotFoundError:
            raise LoadError(f"{relative} is missing; recompile with `skill compile`") from None
        except (OSError, ValueError) as error:
            raise LoadError(f"cannot read {relative} ({error}); recompile with `skill compile`") from None

    def _read_definition(self, name: str) -> Mapping[str, Any] | str:
        relative = self._tools[name].schemas.tool
        try:
            document = self._read_json(relative)
        except LoadError as error:
            return str(error)
        if not isinstance(document, dict) or document.get("name") != name:
            return f"{relative} is not the definition of {name!r}; recompile with `skill compile`"
        return document
