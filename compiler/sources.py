"""Index the project's modules: cached, in parallel when it pays, one file's crash costing only that file.

``index_sources`` takes the files ``source_tree.read_sources`` read, looks each one's
content hash up in the cache, indexes only the files the cache does not know (in a
process pool when there are enough of them), and writes the cache back atomically.
Files that cannot be decoded or parsed become diagnostics; a crash in one file never
stops the others, and the pool's workers end with the compile that started them.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.context import BaseContext
    from multiprocessing.process import BaseProcess

from ..contracts.signals import TERMINATING
from .cache import CACHE_DIR, INDEX_KEYS_FILE, INDEX_SHARDS, load_cache, write_cache
from .index_cache import (
    INDEX_TYPES,
    PLAIN,
    Indexed,
    IndexResult,
    LazyModules,
    kind,
    shard_of,
    shard_path,
)
from .index_types import ModuleIndex
from .source_tree import Snapshot, SourceFile, file_diagnostic
from .types import Config, Diagnostic, IndexStats

__all__ = [
    "IndexResult",
    "Indexed",
    "ProjectIndex",
    "index_sources",
]

#: Below this many files to parse, a process pool costs more than it saves: CPython's
#: parser and the index walk take about half a millisecond per file, sending an index
#: back from a worker a good part of that, and starting the pool tens of milliseconds.
PARALLEL_THRESHOLD = 1000
#: How often a pool worker without ``PR_SET_PDEATHSIG`` checks that its parent lives.
PARENT_POLL_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1


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
    A signal that asks the compile to end ends a worker at once: the handlers the
    command's process set (``cli.lifetime``, inherited through a fork) are the command's.
    """
    for signum in TERMINATING:
        signal.signal(signum, signal.SIG_DFL)
    signal.set_wakeup_fd(-1)  # a wakeup pipe of the parent's (an event loop's, say) is not the worker's to write to
    if sys.platform.startswith("linux"):
        import ctypes

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
#: What ``_start`` started: the pool, a future per share, and the worker processes.
_Started = tuple["ProcessPoolExecutor", list["Future[list[IndexResult]]"], list["BaseProcess"]]


def _start(shares: list[list[_Job]]) -> _Started | None:
    """A pool indexing ``shares``, a worker for each: the pool, a future per share, and the
    worker processes started by now (all of them where the pool forks; one it starts later
    ends with the compile, see ``_die_with_parent``); ``None`` where no process can be started."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import active_children

    before = set(active_children())
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
        futures = [pool.submit(_index_chunk, share) for share in shares]
    except OSError:
        pool.shutdown(cancel_futures=True)
        return None
    return pool, futures, [process for process in active_children() if process not in before]


@contextmanager
def _pool_in_use(pool: ProcessPoolExecutor, workers: list[BaseProcess]) -> Iterator[None]:
    """Shut ``pool`` down as the ``with`` ends: once its workers are done, or at once if it was left by an exception.

    An interruption (a Ctrl-C, or SIGTERM: ``cli.lifetime``) does not wait for the workers
    to index the rest of their share, which may take seconds: they are ended (SIGTERM,
    which takes them at once, see ``_die_with_parent``), and what they had not indexed
    is forgotten with the compile.
    """
    try:
        yield
    except BaseException:
        for worker in workers:
            worker.terminate()
        pool.shutdown(cancel_futures=True)  # prompt: the pool is broken, its futures fail
        raise
    pool.shutdown()


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
    pool, (future,), workers = started
    try:
        with _pool_in_use(pool, workers):
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
    pool, futures, processes = started
    with _pool_in_use(pool, processes):
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

    #: ``dict(modules)`` or ``LazyModules.loaded`` loads them all.
    modules: LazyModules
    failed: frozenset[str]
    problems: tuple[Diagnostic, ...]
    stats: IndexStats
    #: The content key (``source_tree``) of the file each module was indexed from.
    keys: dict[str, str] = field(default_factory=dict)
    #: The path (relative to the project) of that file: ``ModuleIndex.path``, known unloaded.
    paths: dict[str, str] = field(default_factory=dict)

    def final_stats(self) -> IndexStats:
        """``stats``, counting the modules a shard did not hold after all as parsed."""
        extra = self.modules.reindexed
        stats = self.stats
        return IndexStats(stats.files, stats.parsed + extra, stats.cached - extra, stats.workers)


def _job(item: SourceFile, content: bytes) -> tuple[str, str, bool, bytes]:
    return (item.path, item.module, item.is_package, content)


def index_sources(config: Config, snapshot: Snapshot, *, use_cache: bool = True) -> ProjectIndex:
    """Index every module of the snapshot, parsing only what the cache does not know.

    ``INDEX_KEYS_FILE`` lists the cached keys and what each one holds, so that a plain module
    the cache knows is loaded only when it is needed (``LazyModules``); without that list,
    or of a key it does not describe, every shard is loaded as before.
    """
    known: dict[str, object] = load_cache(config.root / CACHE_DIR / INDEX_KEYS_FILE, ()) if use_cache else {}
    shard_keys: dict[str, set[str]] = {shard: set() for shard in INDEX_SHARDS}
    for key in known:
        if shard_of(key) in shard_keys:
            shard_keys[shard_of(key)].add(key)
    lazy = bool(known) and use_cache
    present = {name: lazy and shard_path(config, name).is_file() for name in INDEX_SHARDS}
    shards: dict[str, dict[str, object]] = {}

    def shard(name: str) -> dict[str, object]:
        if name not in shards:
            shards[name] = load_cache(shard_path(config, name), INDEX_TYPES) if use_cache else {}
        return shards[name]

    if not lazy:
        for name in INDEX_SHARDS:
            shard(name)
    results: dict[str, IndexResult] = {}
    deferred: dict[str, tuple[SourceFile, bytes]] = {}
    pending: list[tuple[str, SourceFile, bytes]] = []
    for source_file, key, content in snapshot.files:
        if key in results or key in deferred:
            continue
        if lazy and known.get(key) == PLAIN and present[shard_of(key)]:
            deferred[key] = (source_file, content)
            continue
        if lazy and key in known:
            shard(shard_of(key))
        found = shards.get(shard_of(key), {}).get(key)
        if found is not None:
            results[key] = found  # type: ignore[assignment]
        else:
            pending.append((key, source_file, content))
    workers = _workers(len(pending))
    parsed = _parse_all([_job(item, content) for _, item, content in pending], workers)
    for (key, _, _), result in zip(pending, parsed, strict=True):
        results[key] = result
    kinds = {key: kind(result) for key, result in results.items()}
    kinds.update(dict.fromkeys(deferred, PLAIN))
    late = 0
    if use_cache:
        changed = False
        grouped: dict[str, set[str]] = {name: set() for name in INDEX_SHARDS}
        for key in kinds:
            grouped[shard_of(key)].add(key)
        for name, wanted in grouped.items():
            if wanted == (shard_keys[name] if lazy else set(shard(name))):
                continue
            entries = shard(name)
            written: dict[str, object] = {}
            for key in sorted(wanted):
                value = results.get(key, entries.get(key))
                if value is None:  # listed, but not in its shard: index it again
                    item, content = deferred.pop(key)
                    value = results[key] = _index_one(*_job(item, content))
                    late += 1
                written[key] = value
            write_cache(shard_path(config, name), written)
            changed = True
        if changed or known != kinds:
            write_cache(config.root / CACHE_DIR / INDEX_KEYS_FILE, kinds)
    order: list[str] = []
    loaded: dict[str, ModuleIndex] = {}
    module_keys: dict[str, str] = {}
    module_paths: dict[str, str] = {}
    jobs: dict[str, _Job] = {}
    modules = LazyModules(config, order, loaded, shards, lambda name: _index_one(*jobs[name]))
    failed: set[str] = set(snapshot.unread)
    problems = list(snapshot.problems)
    for source_file, key, content in snapshot.files:
        if key in deferred:
            name = source_file.module
            if name not in module_keys:
                order.append(name)
                module_keys[name], module_paths[name] = key, source_file.path
                modules.defer(name, key)
                jobs[name] = _job(source_file, content)
            continue
        result = results[key]
        if isinstance(result, Indexed):
            problems.extend(result.warnings)
            result = result.module
        if isinstance(result, ModuleIndex):
            if result.name not in module_keys:
                order.append(result.name)
                loaded[result.name] = result
                module_keys[result.name], module_paths[result.name] = key, result.path
        else:
            failed.add(source_file.module)
            problems.extend(result)
    count = len(snapshot.files)
    stats = IndexStats(count, len(pending) + late, count - len(pending) - late, workers)
    return ProjectIndex(
        modules, frozenset(failed - set(module_keys)), tuple(problems), stats, module_keys, module_paths
    )
