"""The index cache under ``.skill/cache/``: module summaries by content key, in shards.

A shard holds the index results (``IndexResult``) of the content keys whose first two hex
digits fall in its range (``cache.INDEX_SHARDS``); ``cache.INDEX_KEYS_FILE`` lists every
cached key and what it holds, small enough to read first.  ``LazyModules`` serves a
compile's modules by name, each plain one loaded from its shard only when asked for: a
compile that links nothing anew (``link_cache``) needs few of them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from .cache import CACHE_DIR, INDEX_SHARDS, index_file, load_cache
from .index_types import (
    BinOp,
    Call,
    ClassInfo,
    Const,
    Container,
    Dynamic,
    EarlyUse,
    FunctionInfo,
    Gives,
    ImportBinding,
    ImportEffects,
    LateUse,
    ModuleIndex,
    Param,
    ParameterRead,
    PathUse,
    Ref,
    StoreUse,
    Subscript,
    UnawaitedCall,
    ValueBinding,
)
from .types import Config, Diagnostic, Pos, Severity

__all__ = [
    "INDEX_TYPES",
    "OTHER",
    "PLAIN",
    "IndexResult",
    "Indexed",
    "LazyModules",
    "kind",
    "shard_of",
    "shard_path",
]

_SHARD_COUNT = len(INDEX_SHARDS)


def shard_of(key: str) -> str:
    """The shard of a content key (a hex digest)."""
    return _shard_of_prefix(key[:2])


@functools.lru_cache(maxsize=1024)  # a compile asks for every key's, and there are 256 prefixes
def _shard_of_prefix(prefix: str) -> str:
    try:
        return f"{int(prefix, 16) * _SHARD_COUNT // 256:02x}"
    except ValueError:  # not a digest: a damaged key list
        return ""


def shard_path(config: Config, shard: str) -> Path:
    return config.root / CACHE_DIR / index_file(shard)


@dataclass(frozen=True)
class Indexed:
    """A module that indexed, with what CPython warns about it."""

    module: ModuleIndex
    warnings: tuple[Diagnostic, ...]


#: What indexing one file gives: its index (with its warnings, if it has any), or why not.
IndexResult = ModuleIndex | Indexed | tuple[Diagnostic, ...]


#: What ``cache.INDEX_KEYS_FILE`` says of each cached key: a plain module, which may be loaded only
#: when it is needed; anything else (warnings, a failure) is loaded with the index.
PLAIN = "module"
OTHER = "other"


def kind(result: IndexResult) -> str:
    return PLAIN if isinstance(result, ModuleIndex) else OTHER


class LazyModules(Mapping[str, ModuleIndex]):
    """The modules of an index by name, each plain one loaded from its cache shard when first
    asked for: a compile that links nothing anew needs few of them.

    An entry its shard turns out not to hold (another compile rewrote it meanwhile) is
    indexed again, by ``reindex`` (a module's name to its index result, from the snapshot's
    content): the same content indexes the same way.
    """

    def __init__(
        self,
        config: Config,
        order: list[str],
        loaded: dict[str, ModuleIndex],
        shards: dict[str, dict[str, object]],
        reindex: Callable[[str], IndexResult],
    ) -> None:
        self._config = config
        self._order = order
        self._loaded = loaded
        self._reindex = reindex
        #: Name -> content key of the modules not loaded yet.
        self._pending: dict[str, str] = {}
        #: The shards loaded so far, by name.
        self._shards = shards
        #: How many modules its shard did not hold after all, and were indexed on demand.
        self.reindexed = 0

    def defer(self, name: str, key: str) -> None:
        """Serve ``name`` from the entry of ``key`` in its shard, when it is first asked for."""
        self._pending[name] = key

    def __getitem__(self, name: str) -> ModuleIndex:
        found = self._loaded.get(name)
        if found is not None:
            return found
        key = self._pending.pop(name)  # KeyError: no such module, as a dict says
        shard_name = shard_of(key)
        shard = self._shards.get(shard_name)
        if shard is None:
            shard = self._shards[shard_name] = load_cache(shard_path(self._config, shard_name), INDEX_TYPES)
        result = shard.get(key)
        if not isinstance(result, ModuleIndex):
            result = self._reindex(name)
            self.reindexed += 1
        assert isinstance(result, ModuleIndex), "a key listed as a plain module indexes as one"
        self._loaded[name] = result
        return result

    def __contains__(self, name: object) -> bool:
        return name in self._loaded or name in self._pending

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def loaded(self) -> dict[str, ModuleIndex]:
        """Every module, loaded (in the snapshot's order)."""
        return {name: self[name] for name in self._order}

    def cached(self, key: str) -> ModuleIndex | None:
        """The summary the cache held for the content key ``key`` when this index was made
        (a file's content before its last change, say), or ``None`` when it held none."""
        shard_name = shard_of(key)
        shard = self._shards.get(shard_name)
        if shard is None:
            shard = self._shards[shard_name] = load_cache(shard_path(self._config, shard_name), INDEX_TYPES)
        found = shard.get(key)
        if isinstance(found, Indexed):
            found = found.module
        return found if isinstance(found, ModuleIndex) else None


INDEX_TYPES = (
    BinOp,
    Call,
    ClassInfo,
    Const,
    Container,
    Diagnostic,
    UnawaitedCall,
    Dynamic,
    EarlyUse,
    FunctionInfo,
    Gives,
    ImportBinding,
    ImportEffects,
    Indexed,
    LateUse,
    ModuleIndex,
    Param,
    ParameterRead,
    PathUse,
    Pos,
    Ref,
    Severity,
    StoreUse,
    Subscript,
    ValueBinding,
)
