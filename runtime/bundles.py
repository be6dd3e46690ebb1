"""Import a tool's modules from the verified bytes of its bundle, never from the disk.

Imports never touch ``sys.path``, so the project's source folder is never importable.
Each dist keeps its project's modules in a namespace of its own (``ModuleSpace``): they
are shared by the tools of that dist (one ``store`` module for every tool that imports
it) and put into ``sys.modules`` only while one of its bundles is being imported, so
two dists with a module of the same name (or a dist and its recompiled successor) never
see each other's code.  The consequence for tool authors: project modules are imported
at module level (which is also all the compiler bundles), not inside functions at call
time.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import sys
import threading
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from types import CodeType, ModuleType
from typing import Final, NamedTuple

from pydantic import BaseModel

__all__ = ["IMPORT_LOCK_TIMEOUT", "LoadError", "ModuleSpace"]

#: How long an import waits for another bundle's import to finish.
IMPORT_LOCK_TIMEOUT: Final = 30.0
#: ``sys.modules`` and ``sys.meta_path`` are the process's: one bundle import at a time.
_IMPORT_LOCK = threading.Lock()


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


class _BundleLoader(importlib.abc.InspectLoader):
    """Modules served from a bundle's verified bytes, held in memory."""

    def __init__(self, label: str, files: Mapping[str, bytes]) -> None:
        self.label = label
        self.sources: dict[str, _Source] = {}
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
        """Import ``module`` from the archive ``data`` and return its ``attribute``.

        ``sys.modules`` is as it was afterwards, whatever the import did; a module of
        this space imported before is reused, never imported twice.
        """
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
