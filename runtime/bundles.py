"""Import a tool's modules from the verified bytes of its bundle, never from the project.

Imports never touch ``sys.path``, so the project's source folder is never importable.
The code is compiled from the bundle's verified bytes in memory; the bundle is also
extracted once into a folder named by its sha256 (``extract``), and each module's
``__file__`` and ``__path__`` point there, so that the data files bundled with it work
with ``Path(__file__).parent / "data.json"`` and ``importlib.resources.files()``.  The
folder is held for as long as the space lives (``bundle_cache.hold_folder``; each of its
modules keeps it alive): a module imported or a data file read at call time, however late,
still finds it.
Each dist keeps its project's modules in a namespace of its own (``ModuleSpace``): they
are shared by the tools of that dist (one ``store`` module for every tool that imports
it) and put into ``sys.modules`` only while one of its bundles is being imported (the
space is *mounted*, one import at a time, under ``imports.IMPORT_LOCK``), so two dists
with a module of the same name (or a dist and its recompiled successor) never see each
other's code.  Each bundle's modules import through the bundle's ``imports.ImportScope``,
so that a project module imported later, inside a function at call time (an import
statement, ``importlib.import_module``, ``importlib.resources.files``), is the same
module object of the same space: see ``imports`` for what is guaranteed.
"""

from __future__ import annotations

import atexit
import errno
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import logging
import os
import sys
import threading
import weakref
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import CodeType, ModuleType
from typing import NamedTuple, TypeVar

from pydantic import BaseModel

from .extract import extracted_folder, unsafe_member
from .flushing import flush_reachable
from .imports import IMPORT_LOCK, IMPORT_LOCK_TIMEOUT, ImportScope, install, plain_import_module

__all__ = ["IMPORT_LOCK_TIMEOUT", "LoadError", "ModuleSpace"]

logger = logging.getLogger("skillc.runtime")
_T = TypeVar("_T")


class LoadError(Exception):
    """A bundle that cannot be used: missing, changed since compile, or failing to import."""


class _ModuleName(NamedTuple):
    name: str
    package: bool


def _module_name(path: str) -> _ModuleName | None:
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
    return _ModuleName(".".join(parts), package)


@dataclass(frozen=True)
class _Source:
    origin: str
    code: bytes
    #: Where a package's submodules live; ``None`` for a plain module.
    folder: str | None


class _FolderReader:
    """What ``importlib.resources.files()`` asks a loader for: the package's folder on disk."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def files(self) -> Path:
        return self.folder


class _BundleLoader(importlib.abc.InspectLoader):
    """Modules served from a bundle's verified bytes, held in memory.

    ``label`` is where the modules say they are: the folder the bundle was extracted
    to, or (when it could not be) the archive's own path.
    """

    def __init__(self, label: str, files: Mapping[str, bytes], extracted: bool = False) -> None:
        """``files``: the bundle's, by path in it; its modules are those that ``_module_name`` names."""
        self.label = label
        self.extracted = extracted
        #: What the modules' own imports resolve through (set once the scope is made).
        self.scope: ImportScope | None = None
        self.sources: dict[str, _Source] = {}
        #: Every file of the bundle, modules and data alike, by the path its modules see (``get_data``).
        self.data = {os.path.normpath(f"{label}/{path}"): content for path, content in files.items()}
        for path, code in files.items():
            found = _module_name(path)
            if found is not None:
                folder = f"{label}/{PurePosixPath(path).parent}" if found.package else None
                self.sources[found.name] = _Source(f"{label}/{path}", code, folder)
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
        spec = importlib.machinery.ModuleSpec(name, self, origin=source.origin, is_package=source.folder is not None)
        if source.folder is not None:
            spec.submodule_search_locations = [source.folder]
        spec.has_location = source.origin != source.folder
        return spec

    def is_package(self, fullname: str) -> bool:
        return self._source(fullname).folder is not None

    def get_resource_reader(self, fullname: str) -> _FolderReader | None:
        """The folder of ``fullname``'s files (``importlib.resources``), when it is on disk."""
        if not self.extracted:
            return None
        source = self._source(fullname)
        return _FolderReader(Path(source.folder) if source.folder is not None else Path(source.origin).parent)

    def get_data(self, path: str) -> bytes:
        """The bytes of the bundle's file at ``path`` (``pkgutil.get_data`` asks for them), from memory.

        ``FileNotFoundError`` for a path the bundle does not hold, as a loader of files on disk raises.
        """
        try:
            return self.data[os.path.normpath(path)]
        except KeyError:
            raise FileNotFoundError(errno.ENOENT, "not in the bundle", path) from None

    def exec_module(self, module: ModuleType) -> None:
        if self.scope is not None:
            self.scope.mark(module.__dict__)
        super().exec_module(module)

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


_LINK_TYPE = 0o120000


def _archive_files(data: bytes, label: str) -> dict[str, bytes]:
    """Every file of the archive: modules and data.  A member that could land outside the
    folder it is extracted to (an absolute path, ``..``), a link or a repeated name is refused."""
    files: dict[str, bytes] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                problem = unsafe_member(info.filename)
                if problem is None and (info.external_attr >> 16) & 0o170000 == _LINK_TYPE:
                    problem = "a symbolic link"
                if problem is None and info.filename in files:
                    problem = "a name that is already in the archive"
                if problem is not None:
                    raise LoadError(
                        f"{label} holds the member {info.filename!r}, which skillc never writes ({problem}); "
                        "recompile with `skill compile`"
                    )
                if not info.is_dir():
                    files[info.filename] = archive.read(info)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as error:
        raise LoadError(f"{label} is not a readable zip archive ({error})") from None
    return files


def _complete_models(value: object) -> None:
    """Finish building the tool's pydantic models while their modules are importable.

    A model with a forward reference is built on first use, looking its names up in
    ``sys.modules``, where the project's modules will not be by then.
    """
    for attribute in ("input_schema", "output_schema"):
        model = getattr(value, attribute, None)
        if isinstance(model, type) and issubclass(model, BaseModel) and not model.__pydantic_complete__:
            model.model_rebuild(raise_errors=True)


#: Every space not yet collected: what ``_flush_at_exit`` goes through.
_SPACES: weakref.WeakSet[ModuleSpace] = weakref.WeakSet()


def _flush_at_exit() -> None:
    """At exit, flush the files of every space still alive, while the interpreter is whole.

    A space's modules are no entries of ``sys.modules``: left alone, they are freed by the
    cycle collector, in no order, and a text wrapper freed after its buffer loses what it
    held (see ``flushing``).
    """
    for space in list(_SPACES):
        space.flush_files()


atexit.register(_flush_at_exit)


class ModuleSpace:
    """The project modules of one dist: shared by its bundles, kept out of ``sys.modules``.

    ``cache`` is the folder bundles are extracted to (``extract.bundle_cache_root()``
    when not given); it must exist.
    """

    def __init__(self, cache: Path | None = None) -> None:
        install()
        _SPACES.add(self)
        self._modules: dict[str, ModuleType] = {}
        self._tops: set[str] = set()
        self._cache = cache
        #: The thread that has the space mounted, if one has.
        self._mounted_by: int | None = None

    def import_bundle(self, data: bytes, label: str, module: str, attribute: str, sha256: str | None = None) -> object:
        """``attribute`` of ``module``, imported from the archive ``data`` (see ``load_bundle``)."""
        return self.load_bundle(data, label, module, attribute, sha256)[0]

    def load_bundle(
        self, data: bytes, label: str, module: str, attribute: str, sha256: str | None = None
    ) -> tuple[object, ImportScope]:
        """Import ``module`` from the archive ``data``; its ``attribute``, and the bundle's scope.

        ``sys.modules`` is as it was afterwards, whatever the import did; a module of
        this space imported before is reused, never imported twice.  ``sha256`` is the
        archive's, already checked by the caller (computed here when not given): the
        name of the folder it is extracted to.  The scope is what the runtime names
        while it runs code of this bundle (``running.Running.scope``).
        """
        files = _archive_files(data, label)
        folder = extracted_folder(sha256 or hashlib.sha256(data).hexdigest(), files, self._cache, holder=self)
        if folder is None:
            logger.warning("cannot extract %s to a cache folder: its modules have no file on disk", label)
        loader = _BundleLoader(str(folder) if folder is not None else label, files, folder is not None)
        names = [name for name in loader.sources if name.partition(".")[0] not in sys.stdlib_module_names]
        scope = loader.scope = ImportScope(self, loader, names)

        def load() -> object:
            value = getattr(plain_import_module(module), attribute)
            _complete_models(value)
            return value

        return self._mounted(loader, scope, load), scope

    # --- what ``imports.ImportScope`` asks (``imports.Space``) ---------------------------

    def loaded(self, name: str) -> ModuleType | None:
        """The module ``name`` of this space, if it was imported already."""
        return self._modules.get(name)

    def mounted_here(self) -> bool:
        """Whether this thread is importing one of the space's bundles."""
        return self._mounted_by == threading.get_ident()

    def load(self, scope: ImportScope, name: str) -> ModuleType:
        """Import ``name`` from ``scope``'s bundle into the space, as ``load_bundle`` imports."""
        loader = scope.loader
        assert isinstance(loader, _BundleLoader)
        try:
            return self._mounted(loader, scope, lambda: plain_import_module(name))
        except LoadError as error:
            raise ImportError(f"cannot import {name!r}: {error}", name=name) from None

    def flush_files(self) -> None:
        """Flush the files the space's modules hold (``flushing.flush_reachable``), letting go of nothing.

        Its store calls it when it is closed, and again once no code of the space runs any
        more (``store.DistStore.close``); ``_flush_at_exit`` calls it for every space still
        alive at exit.  What a module put in its own place (``sys.modules[__name__] = obj``)
        is not a module, and is passed over.
        """
        namespaces = [module.__dict__ for module in list(self._modules.values()) if isinstance(module, ModuleType)]
        flush_reachable(namespaces)

    def _mounted(self, loader: _BundleLoader, scope: ImportScope, job: Callable[[], _T]) -> _T:
        """Run ``job`` with the space's modules in ``sys.modules`` and ``loader`` first in
        ``sys.meta_path``; afterwards, every module of the space is back in the space alone."""
        if not IMPORT_LOCK.acquire(timeout=IMPORT_LOCK_TIMEOUT):
            raise LoadError(
                f"another bundle's import has not finished after {IMPORT_LOCK_TIMEOUT:g} s "
                "(does a module hang when it is imported?)"
            )
        try:
            names = scope.tops | self._tops

            def ours(key: str) -> bool:
                return key.partition(".")[0] in names

            elsewhere = {key: sys.modules.pop(key) for key in list(sys.modules) if ours(key)}
            sys.modules.update(self._modules)
            finder = _BundleFinder(loader)
            sys.meta_path.insert(0, finder)
            self._mounted_by = threading.get_ident()
            try:
                return job()
            finally:
                self._mounted_by = None
                sys.meta_path.remove(finder)
                # A copy of the keys, taken at once: another thread may import meanwhile.
                for key in [key for key in list(sys.modules) if ours(key)]:
                    self._modules[key] = sys.modules.pop(key)
                self._tops |= scope.tops
                sys.modules.update(elsewhere)
        finally:
            IMPORT_LOCK.release()
