"""Index the project's modules: cached, in parallel when it pays, one file's crash costing only that file.

``index_sources`` takes the files ``source_tree.read_sources`` read, looks each one's
content hash up in the cache, indexes only the files the cache does not know (in a
process pool when there are enough of them), and writes the cache back atomically.
Files that cannot be decoded or parsed become diagnostics; a crash in one file never
stops the others, and the pool's workers end with the compile that started them.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.context import BaseContext

from .cache import CACHE_DIR, load_cache, write_cache
from .source_tree import Snapshot, SourceFile, file_diagnostic
from .types import (
    BinOp,
    Call,
    ClassInfo,
    Config,
    Const,
    Container,
    Diagnostic,
    Dynamic,
    FunctionInfo,
    ImportBinding,
    ModuleIndex,
    Param,
    Pos,
    Ref,
    Severity,
    Subscript,
    ValueBinding,
)

__all__ = [
    "INDEX_SHARDS",
    "IndexStats",
    "ProjectIndex",
    "index_sources",
]

#: Below this many files to parse, a process pool costs more than it saves: CPython's
#: parser and the index walk take about half a millisecond per file, sending an index
#: back from a worker a good part of that, and starting the pool tens of milliseconds.
PARALLEL_THRESHOLD = 1000
#: The index cache is split by the first hex digit of each key, so that changing one
#: file rewrites a sixteenth of it rather than all of it.
INDEX_SHARDS = "0123456789abcdef"
#: The keys the shards hold, small enough to read first: it tells which files will need
#: parsing before the shards themselves are loaded.
INDEX_KEYS = "index-keys.pickle"
#: How often a pool worker without ``PR_SET_PDEATHSIG`` checks that its parent lives.
PARENT_POLL_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1


def _shard_path(config: Config, shard: str) -> Path:
    return config.root / CACHE_DIR / f"index-{shard}.pickle"


@dataclass(frozen=True)
class IndexStats:
    """How the index was built: files seen, parsed, served from the cache, and workers."""

    files: int
    parsed: int
    cached: int
    workers: int


def _decode(source: bytes, path: str) -> Diagnostic | None:
    """Check that ``source`` decodes with its declared encoding (PEP 263, UTF-8 by default)."""
    import io
    import tokenize

    cookie_problem: str | None = None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError as error:
        # No usable coding cookie: the file must be UTF-8, and the decode below says where not.
        encoding, cookie_problem = "utf-8", error.msg
    try:
        source.decode(encoding)
    except UnicodeDecodeError as error:
        line = source[: error.start].count(b"\n") + 1
        column = error.start - (source.rfind(b"\n", 0, error.start) + 1)
        return file_diagnostic(
            "skill/encoding-error",
            path,
            f"the file is not valid {error.encoding}: byte 0x{source[error.start]:02x} cannot be decoded",
            line,
            column,
        )
    except LookupError:
        cookie_problem = f"unknown encoding {encoding!r}"
    if cookie_problem is not None:
        return file_diagnostic("skill/encoding-error", path, f"cannot decode the file: {cookie_problem}")
    return None


@dataclass(frozen=True)
class Indexed:
    """A module that indexed, with what CPython warns about it."""

    module: ModuleIndex
    warnings: tuple[Diagnostic, ...]


#: What indexing one file gives: its index (with its warnings, if it has any), or why not.
IndexResult = ModuleIndex | Indexed | tuple[Diagnostic, ...]


def _index_one(path: str, module: str, is_package: bool, source: bytes) -> IndexResult:
    """Index one file; never raises (a bug in the indexer becomes a diagnostic)."""
    from .index import analyse_source

    problem = _decode(source, path)
    if problem is not None:
        return (problem,)
    try:
        index, problems = analyse_source(source, path, module, is_package)
    except RecursionError:
        return (file_diagnostic("skill/syntax-error", path, "the file is nested too deeply to analyse"),)
    except Exception as error:  # a worker boundary: one file's crash must not stop the rest
        import traceback

        where = traceback.extract_tb(error.__traceback__)[-1]
        return (
            file_diagnostic(
                "skill/internal-error",
                path,
                f"skillc could not index this file ({type(error).__name__}: {error} at "
                f"{Path(where.filename).name}:{where.lineno}); please report it",
            ),
        )
    if index is None:
        return problems
    return Indexed(index, problems) if problems else index


def _index_chunk(chunk: list[tuple[str, str, bool, bytes]]) -> list[IndexResult]:
    return [_index_one(*item) for item in chunk]


def _pool_context() -> BaseContext:
    from multiprocessing import get_all_start_methods, get_context

    # fork shares the already imported modules with the workers; elsewhere, spawn.
    return get_context("fork" if "fork" in get_all_start_methods() else "spawn")


def _die_with_parent(parent: int) -> None:
    """Start a pool worker so that it ends with the compile that started it, however that ends.

    A worker whose parent is gone (killed with SIGKILL, say) would wait for work forever.
    On Linux the kernel kills it as its parent dies; elsewhere a thread watches the parent.
    """
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
        if armed:
            if os.getppid() != parent:  # the parent died before the signal was armed
                os._exit(1)
            return
    import threading

    threading.Thread(target=_watch_parent, args=(parent,), name="skillc-parent", daemon=True).start()


def _watch_parent(parent: int) -> None:
    import time

    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


_Job = tuple[str, str, bool, bytes]


def _start(shares: list[list[_Job]]) -> tuple[ProcessPoolExecutor, list[Future[list[IndexResult]]]] | None:
    """A pool indexing ``shares``, a worker for each; ``None`` where no process can be started."""
    from concurrent.futures import ProcessPoolExecutor

    try:
        pool = ProcessPoolExecutor(
            max_workers=len(shares),
            mp_context=_pool_context(),
            initializer=_die_with_parent,
            initargs=(os.getpid(),),
        )
    except OSError:
        return None
    try:
        return pool, [pool.submit(_index_chunk, share) for share in shares]
    except OSError:
        pool.shutdown(cancel_futures=True)
        return None


def _share_results(future: Future[list[IndexResult]], share: list[_Job]) -> list[IndexResult]:
    """What a worker indexed; if it died (or its pool did), each file again, apart."""
    try:
        return future.result()
    except Exception:  # a worker boundary: a pool broken by one file must not stop the rest
        return _index_isolated(share)


def _index_isolated(jobs: list[_Job]) -> list[IndexResult]:
    """Index ``jobs`` in a process of their own; if it dies too, halve them and try again.

    Only a file that kills a process on its own is lost, as an internal error: the
    guards of ``syntax_check.check_syntax`` are there so that none does.
    """
    if not jobs:
        return []
    started = _start([jobs])
    if started is None:
        return _index_chunk(jobs)
    pool, (future,) = started
    try:
        with pool:
            return future.result()
    except Exception as error:  # a worker boundary, as above
        from concurrent.futures.process import BrokenProcessPool

        if len(jobs) > 1:
            middle = len(jobs) // 2
            return [*_index_isolated(jobs[:middle]), *_index_isolated(jobs[middle:])]
        reason = "its process died" if isinstance(error, BrokenProcessPool) else f"{type(error).__name__}: {error}"
        message = f"skillc crashed while indexing this file ({reason}); please report it"
        return [(file_diagnostic("skill/internal-error", jobs[0][0], message),)]


def _parse_all(jobs: list[tuple[str, str, bool, bytes]], workers: int) -> list[IndexResult]:
    """Index ``jobs`` with ``workers`` processes, this one included; results in job order.

    This process takes a share itself rather than idling while a pool works: on two
    cores that saves a process start and sending half of the results back.  The indexer
    is imported before the pool forks, so that the workers inherit it.
    """
    if workers <= 1:
        return _index_chunk(jobs)
    from . import index  # noqa: F401  (imported before the fork, on purpose)

    shares = [jobs[start::workers] for start in range(workers)]
    started = _start(shares[1:])
    if started is None:  # no process to be had (a sandbox, a process limit): this one does all
        return _index_chunk(jobs)
    pool, futures = started
    with pool:
        done = [_index_chunk(shares[0]), *map(_share_results, futures, shares[1:])]
    results: list[IndexResult] = [None] * len(jobs)  # type: ignore[list-item]
    for start, share_results in enumerate(done):
        results[start::workers] = share_results
    return results


def _workers(count: int) -> int:
    """How many processes to index ``count`` files with: one below the threshold."""
    if count < PARALLEL_THRESHOLD:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, 8))


@dataclass(frozen=True)
class ProjectIndex:
    """Every module that indexed, by dotted name; the ones that did not, and why."""

    modules: dict[str, ModuleIndex]
    failed: frozenset[str]
    problems: tuple[Diagnostic, ...]
    stats: IndexStats


def _job(item: SourceFile, content: bytes) -> tuple[str, str, bool, bytes]:
    return (item.path, item.module, item.is_package, content)


def _load_shards(config: Config) -> dict[str, dict[str, object]]:
    return {shard: load_cache(_shard_path(config, shard), _INDEX_TYPES) for shard in INDEX_SHARDS}


def index_sources(config: Config, snapshot: Snapshot, *, use_cache: bool = True) -> ProjectIndex:
    """Index every module of the snapshot, parsing only what the cache does not know."""
    if not use_cache:
        shards: dict[str, dict[str, object]] = {shard: {} for shard in INDEX_SHARDS}
    else:
        known = load_cache(config.root / CACHE_DIR / INDEX_KEYS, ())
        shards = _load_shards(config)
    cached = {key: value for entries in shards.values() for key, value in entries.items()}
    results: dict[str, IndexResult] = {}
    pending: list[tuple[str, SourceFile, bytes]] = []
    for source_file, key, content in snapshot.files:
        if key in cached:
            results[key] = cached[key]  # type: ignore[assignment]
        else:
            pending.append((key, source_file, content))
    workers = _workers(len(pending))
    parsed = _parse_all([_job(item, content) for _, item, content in pending], workers)
    for (key, _, _), result in zip(pending, parsed, strict=True):
        results[key] = result
    if use_cache:
        changed = False
        for shard, entries in shards.items():
            wanted = {key: value for key, value in results.items() if key[0] == shard}
            if wanted.keys() != entries.keys():
                write_cache(_shard_path(config, shard), wanted)
                changed = True
        if changed or not known:
            write_cache(config.root / CACHE_DIR / INDEX_KEYS, dict.fromkeys(results))
    modules: dict[str, ModuleIndex] = {}
    failed: set[str] = set(snapshot.unread)
    problems = list(snapshot.problems)
    for source_file, key, _ in snapshot.files:
        result = results[key]
        if isinstance(result, Indexed):
            problems.extend(result.warnings)
            result = result.module
        if isinstance(result, ModuleIndex):
            modules.setdefault(result.name, result)
        else:
            failed.add(source_file.module)
            problems.extend(result)
    count = len(snapshot.files)
    stats = IndexStats(count, len(pending), count - len(pending), workers)
    return ProjectIndex(modules, frozenset(failed - set(modules)), tuple(problems), stats)


_INDEX_TYPES = (
    BinOp,
    Call,
    ClassInfo,
    Const,
    Container,
    Diagnostic,
    Dynamic,
    FunctionInfo,
    ImportBinding,
    Indexed,
    ModuleIndex,
    Param,
    Pos,
    Ref,
    Severity,
    Subscript,
    ValueBinding,
)
