"""Load a compiled ``dist/``: the manifest now, each bundle when it is first needed.

``load_dist`` reads ``manifest.json`` and nothing else, so loading costs the same
whether the agent has five tools or five hundred.  A tool's bundle is read the first
time the tool is called (or its ``condition()`` evaluated): its bytes are checked
against the manifest's sha256 and imported *from those same bytes*, so the code that
runs is the code that was checked, whatever happens to the file afterwards.

Imports never touch ``sys.path``, so the project's source folder is never importable.
Each ``Runtime`` keeps its project's modules in a namespace of its own
(``ModuleSpace``): they are shared by the tools of that dist (one ``store`` module for
every tool that imports it) and put into ``sys.modules`` only while one of its bundles
is being imported, so two dists with a module of the same name (or a dist and its
recompiled successor) never see each other's code.  The consequence for tool authors:
project modules are imported at module level (which is also all the compiler
bundles), not inside functions at call time.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import json
import logging
import sys
import threading
import weakref
import zipfile
from collections.abc import Callable, Collection, Mapping, Sequence
from contextvars import Context
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import CodeType, ModuleType
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel

from .capture import Capture
from .manifest import LinkedDistFile, Manifest, SkillEntry, ToolEntry, read_dist_file, read_manifest
from .serialize import DEFAULT_MAX_OUTPUT_BYTES, describe_exception
from .spec import DEFAULT_CONDITION_TIMEOUT
from .workers import DEFAULT_WORKERS, Work, WorkerPool, wait_future

if TYPE_CHECKING:
    from .context import ToolContext
    from .offer import Offer
    from .results import ToolResult
    from .sdk import Tool

__all__ = ["Approver", "LoadError", "LoadedTool", "ModuleSpace", "Runtime", "load_dist"]

logger = logging.getLogger("skillc.runtime")

#: How long an import waits for another bundle's import to finish.
IMPORT_LOCK_TIMEOUT: Final = 30.0
#: ``sys.modules`` and ``sys.meta_path`` are the process's: one bundle import at a time.
_IMPORT_LOCK = threading.Lock()

#: Asked before a ``needs_approval`` tool runs: ``approver(name, arguments)``, sync or async.
Approver = Callable[[str, dict[str, Any]], Any]


class LoadError(Exception):
    """A bundle that cannot be used: missing, changed since compile, or failing to import."""


def _module_name(path: str) -> tuple[str, bool] | None:
    """``skills/orders.py`` -> ``("skills.orders", False)``; ``None`` for what is not a module."""
    pure = PurePosixPath(path)
    if pure.suffix != ".py":
        return None
    parts = list(pure.parent.parts)
    package = pure.stem == "__init__"
    if not package:
        parts.append(pure.stem)
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts), package


@dataclass(frozen=True)
class _Source:
    origin: str
    code: bytes
    #: Where a package's submodules live; ``None`` for a plain module.
    folder: str | None


class _BundleLoader(importlib.abc.InspectLoader):
    """Modules served from a bundle's verified bytes, held in memory."""

    def __init__(self, label: str, files: Mapping[str, bytes]) -> None:
        self.label = label
        self.sources: dict[str, _Source] = {}
        for path, code in files.items():
            found = _module_name(path)
            if found is not None:
                name, package = found
                folder = f"{label}/{PurePosixPath(path).parent}" if package else None
                self.sources[name] = _Source(f"{label}/{path}", code, folder)
        # A folder without __init__.py is a package too (a namespace package).
        for name in list(self.sources):
            parts = name.split(".")
            for depth in range(1, len(parts)):
                parent = ".".join(parts[:depth])
                if parent not in self.sources:
                    folder = f"{label}/{'/'.join(parts[:depth])}"
                    self.sources[parent] = _Source(folder, b"", folder)

    def spec(self, name: str) -> importlib.machinery.ModuleSpec | None:
        source = self.sources.get(name)
        if source is None:
            return None
        spec = importlib.machinery.ModuleSpec(
            name, self, origin=source.origin, is_package=source.folder is not None
        )
        if source.folder is not None:
            spec.submodule_search_locations = [source.folder]
        spec.has_location = source.origin != source.folder
        return spec

    def is_package(self, fullname: str) -> bool:
        return self._source(fullname).folder is not None

    def get_source(self, fullname: str) -> str:
        return importlib.util.decode_source(self._source(fullname).code)

    def get_code(self, fullname: str) -> CodeType:
        source = self._source(fullname)
        # Compiled from bytes, so that an encoding cookie is honoured.
        return compile(source.code, source.origin, "exec", dont_inherit=True)

    def _source(self, fullname: str) -> _Source:
        try:
            return self.sources[fullname]
        except KeyError:
            raise ImportError(f"{fullname!r} is not in {self.label}", name=fullname) from None


class _BundleFinder(importlib.abc.MetaPathFinder):
    def __init__(self, loader: _BundleLoader) -> None:
        self.loader = loader

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.partition(".")[0] in sys.stdlib_module_names:
            return None  # as in a normal import: the standard library's modules are loaded already
        return self.loader.spec(fullname)


def _archive_files(data: bytes, label: str) -> dict[str, bytes]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return {
                info.filename: archive.read(info)
                for info in archive.infolist()
                if not info.is_dir() and info.filename.endswith(".py")
            }
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as error:
        raise LoadError(f"{label} is not a readable zip archive ({error})") from None


def _complete_models(value: object) -> None:
    """Finish building the tool's pydantic models while their modules are importable.

    A model with a forward reference is built on first use, looking its names up in
    ``sys.modules``, where the project's modules will not be by then.
    """
    for attribute in ("input_schema", "output_schema"):
        model = getattr(value, attribute, None)
        if isinstance(model, type) and issubclass(model, BaseModel) and not model.__pydantic_complete__:
            model.model_rebuild(raise_errors=True)


class ModuleSpace:
    """The project modules of one dist: shared by its bundles, kept out of ``sys.modules``."""

    def __init__(self) -> None:
        self._modules: dict[str, ModuleType] = {}
        self._tops: set[str] = set()

    def import_bundle(self, data: bytes, label: str, module: str, attribute: str) -> object:
        """Import ``module`` from the archive ``data`` and return its ``attribute``."""
        loader = _BundleLoader(label, _archive_files(data, label))
        tops = {name.partition(".")[0] for name in loader.sources} - set(sys.stdlib_module_names)
        if not _IMPORT_LOCK.acquire(timeout=IMPORT_LOCK_TIMEOUT):
            raise LoadError(
                f"another bundle's import has not finished after {IMPORT_LOCK_TIMEOUT:g} s "
                "(does a module hang when it is imported?)"
            )
        try:
            names = tops | self._tops

            def ours(key: str) -> bool:
                return key.partition(".")[0] in names

            elsewhere = {key: sys.modules.pop(key) for key in list(sys.modules) if ours(key)}
            sys.modules.update(self._modules)
            finder = _BundleFinder(loader)
            sys.meta_path.insert(0, finder)
            try:
                value = getattr(importlib.import_module(module), attribute)
                _complete_models(value)
                return value
            finally:
                sys.meta_path.remove(finder)
                for key in [key for key in sys.modules if ours(key)]:
                    self._modules[key] = sys.modules.pop(key)
                self._tops |= tops
                sys.modules.update(elsewhere)
        finally:
            _IMPORT_LOCK.release()


@dataclass(frozen=True)
class LoadedTool:
    """A tool imported from its bundle, with what calling it needs."""

    entry: ToolEntry
    tool: Tool
    #: ``input.schema.json`` of a strict tool (it says which fields are optional).
    input_schema: Mapping[str, Any] | None


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
        self.dist = dist
        self.manifest = manifest
        self.condition_timeout = condition_timeout
        self.max_output_bytes = max_output_bytes
        self.pool = WorkerPool(workers)
        self._tools = manifest.tool_map()
        self._skills = {skill.name: skill for skill in manifest.skills}
        self._space = ModuleSpace()
        self._lock = threading.Lock()
        self._loads: dict[str, Work[Any]] = {}
        self._definitions: dict[str, Mapping[str, Any]] = {}
        self._finalizer = weakref.finalize(self, self.pool.close)

    def __repr__(self) -> str:
        return f"<Runtime {self.manifest.agent.name!r} from {self.dist} ({len(self._tools)} tools)>"

    # --- what the dist holds ------------------------------------------------------------

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
                key.removeprefix("tool:")
                for key, work in self._loads.items()
                if key.startswith("tool:")
                and work.future.done()
                and not work.future.cancelled()
                and work.future.exception() is None
            )

    # --- the two things a runtime does -------------------------------------------------

    async def offer(self, context: ToolContext, *, timeout: float | None = None) -> Offer:
        """Evaluate every condition for this turn; see ``skillc.runtime.offer``."""
        from .offer import build_offer

        return await build_offer(self, context, self.condition_timeout if timeout is None else timeout)

    async def call(
        self,
        name: str,
        arguments: str | bytes | Mapping[str, Any],
        call_id: str,
        context: ToolContext | None = None,
        *,
        offered: Collection[str] | None = None,
        approver: Approver | None = None,
    ) -> ToolResult:
        """Run one tool call; any failure is an error result, never an exception."""
        from .call import call_tool

        return await call_tool(
            self, name, arguments, call_id, context, offered=offered, approver=approver
        )

    def close(self) -> None:
        """Let the worker threads end (threads still running tool code finish first)."""
        self._finalizer()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- loading, lazily ---------------------------------------------------------------

    def _path(self, relative: str) -> Path:
        return self.dist / relative

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

    def _import(self, relative: str, sha256: str, module: str, attribute: str, what: str) -> object:
        data = self._verified(relative, sha256, what)
        printed = Capture()
        try:
            with printed.active():
                return self._space.import_bundle(data, str(self._path(relative)), module, attribute)
        except LoadError:
            raise
        except BaseException as error:  # the module's own code ran: anything, sys.exit() included
            raise LoadError(f"importing the bundle of {what} raised {describe_exception(error)}") from None
        finally:
            if printed.text:
                logger.debug("importing the bundle of %s printed:\n%s", what, printed.text)

    def _import_tool(self, entry: ToolEntry) -> LoadedTool:
        from .sdk import Tool

        what = f"tool {entry.name!r}"
        value = self._import(entry.bundle, entry.sha256, entry.entry.module, entry.entry.qualname, what)
        if not isinstance(value, Tool):
            raise LoadError(f"the bundle of {what} holds {type(value).__name__}, not a Tool")
        if value.name != entry.name:
            raise LoadError(f"the bundle of {what} holds the tool {value.name!r}; recompile with `skill compile`")
        schema = None
        if entry.strict:
            found = self._read_json(entry.schemas.input)
            if not isinstance(found, dict):
                raise LoadError(f"{entry.schemas.input} holds no JSON object; recompile with `skill compile`")
            schema = found
        return LoadedTool(entry, value, schema)

    def _import_condition(self, skill: SkillEntry) -> Callable[[], Any]:
        condition = skill.condition
        assert condition is not None
        what = f"skill {skill.name!r}"
        value = self._import(
            condition.bundle, condition.sha256, condition.entry.module, condition.entry.qualname, what
        )
        if not callable(value):
            raise LoadError(f"the condition bundle of {what} holds {type(value).__name__}, not a function")
        return value

    def _read_json(self, relative: str) -> Any:
        try:
            return json.loads(read_dist_file(self.dist, relative))
        except LinkedDistFile as error:
            raise LoadError(
                f"{relative} is not the file skillc wrote ({error.strerror}); recompile with `skill compile`"
            ) from None
        except FileNotFoundError:
            raise LoadError(f"{relative} is missing; recompile with `skill compile`") from None
        except (OSError, ValueError) as error:
            raise LoadError(f"cannot read {relative} ({error}); recompile with `skill compile`") from None

    async def _once(self, key: str, job: Callable[[], Any], timeout: float) -> Any:
        """Run ``job`` once for ``key`` (concurrent callers share it); a failure is retried later."""
        with self._lock:
            work = self._loads.get(key)
            if work is None or work.future.cancelled():
                # An empty context: the import belongs to no call, and no call's capture.
                work = self._loads[key] = self.pool.submit(job, Context())
        if not await wait_future(work.future, timeout):
            # Other callers may still wait for it: write its thread off, never cancel it.
            self.pool.abandon(work, cancel=False)
            raise TimeoutError(f"loading took longer than {timeout:g} s")
        error = work.future.exception()
        if error is not None:
            with self._lock:
                if self._loads.get(key) is work:
                    del self._loads[key]
            if isinstance(error, LoadError):
                raise error
            raise LoadError(describe_exception(error))
        return work.future.result()

    async def load_tool(self, name: str, timeout: float) -> LoadedTool:
        """The tool ``name`` imported from its bundle; ``LoadError`` or ``TimeoutError`` if it cannot be."""
        entry = self._tools[name]
        loaded = await self._once(f"tool:{name}", lambda: self._import_tool(entry), timeout)
        assert isinstance(loaded, LoadedTool)
        return loaded

    async def load_skill_condition(self, name: str, timeout: float) -> Callable[[], Any]:
        """The ``condition()`` of the skill ``name``, imported from its bundle."""
        skill = self._skills[name]
        condition = await self._once(f"skill:{name}", lambda: self._import_condition(skill), timeout)
        assert callable(condition)
        return condition  # type: ignore[no-any-return]

    def _read_definition(self, name: str) -> Mapping[str, Any] | str:
        relative = self._tools[name].schemas.tool
        try:
            document = self._read_json(relative)
        except LoadError as error:
            return str(error)
        if not isinstance(document, dict) or document.get("name") != name:
            return f"{relative} is not the definition of {name!r}; recompile with `skill compile`"
        return document

    async def definitions(self, names: Sequence[str], timeout: float) -> dict[str, Mapping[str, Any] | str]:
        """The function definition (``tool.json``) of each tool, or why it cannot be read.

        Definitions are read once and kept; a failure is not kept, so a fixed file is
        read again on the next turn.
        """
        found: dict[str, Mapping[str, Any] | str] = {
            name: self._definitions[name] for name in names if name in self._definitions
        }
        missing = [name for name in names if name not in found]
        if missing:
            work = self.pool.submit(lambda: {name: self._read_definition(name) for name in missing}, Context())
            if not await wait_future(work.future, timeout):
                self.pool.abandon(work)
                found.update({name: f"reading its definition took longer than {timeout:g} s" for name in missing})
            else:
                for name, document in work.future.result().items():
                    if not isinstance(document, str):
                        self._definitions[name] = document
                    found[name] = document
        return {name: found[name] for name in names}


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
