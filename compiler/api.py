"""The compiler's one entry point: ``compile_project``.

It runs the stages in order (read the config, index the sources, link and check) and
returns a ``CompileReport`` with every diagnostic positioned exactly and sorted.  The
CLI only renders that report.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..contracts.settings import SettingValues
from .cache import CACHE_DIR, LINK_FILE, REPORT_FILE, load_cache, write_cache
from .config import locate_config, read_config
from .manifest_reuse import Skeleton
from .output import Fingerprint, check_output_folder, fingerprint, output_lock
from .report import Reporter
from .requirements import environment_key
from .root_files import same_root_files
from .source_tree import identity, read_sources
from .types import AgentInfo, Config, Diagnostic, IndexStats, ModelRef, Severity, SkillInfo, Source, ToolInfo

if TYPE_CHECKING:
    from .session import CompileSession

__all__ = ["CompileReport", "compile_project", "import_every_stage"]


@dataclass(frozen=True)
class CompileReport:
    """Everything one compile found."""

    config: Config
    agent: AgentInfo | None
    skills: tuple[SkillInfo, ...]
    tools: tuple[ToolInfo, ...]
    diagnostics: tuple[Diagnostic, ...]
    stats: IndexStats
    timings: dict[str, float] = field(default_factory=dict)
    #: What happened to dist/: written, already current, not written (errors), or skipped.
    dist: str = "skipped"
    #: Tools whose schemas this compile built by importing their bundles (--allow-import).
    imported: tuple[str, ...] = ()

    @property
    def errors(self) -> int:
        return sum(1 for item in self.diagnostics if item.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for item in self.diagnostics if item.severity is Severity.WARNING)

    @property
    def ok(self) -> bool:
        return self.errors == 0


_REPORT_KEY = "last"
DIST_WRITTEN = "written"
DIST_CURRENT = "up to date"
DIST_NOT_WRITTEN = "not written"
DIST_SKIPPED = "skipped"


class CachedReport(NamedTuple):
    """The last compile's result, reused as a whole when nothing it depends on changed
    (a named tuple: it is made on every start-up that loads it, and tuples are quick to make)."""

    #: The digest of the sources and the configuration it was made from.
    digest: str
    agent: AgentInfo | None
    skills: tuple[SkillInfo, ...]
    tools: tuple[ToolInfo, ...]
    diagnostics: tuple[Diagnostic, ...]
    #: The fingerprint of the dist/ that compile wrote (``None`` after a check, which writes none).
    written: Fingerprint | None
    #: The last manifest written without its tools, for the next one (``manifest_reuse``).
    skeleton: Skeleton | None = None
    #: ``link_cache.LinkResult.root_files``: files outside ``src`` that it depends on too.
    root_files: tuple[tuple[str, bool], ...] = ()


#: What the report cache may hold (``cache.load_cache`` loads nothing else).
_REPORT_TYPES = (
    AgentInfo,
    CachedReport,
    Diagnostic,
    ModelRef,
    Severity,
    SkillInfo,
    Skeleton,
    Source,
    ToolInfo,
    SettingValues,
)


def compile_project(
    path: Path,
    *,
    out: Path | None = None,
    use_cache: bool = True,
    emit: bool = True,
    verify: bool = False,
    allow_import: bool = False,
    notify: Callable[[str], None] | None = None,
    session: CompileSession | None = None,
) -> CompileReport:
    """Check the project that contains ``path`` and, if it has no errors, write ``dist/``.

    Raises ``ConfigError`` for a bad configuration, and ``UsageError`` when the output
    folder is not one skillc may replace (nothing is touched then).  When no source
    file and no configuration changed since the last compile and ``dist/`` is exactly
    as that compile left it (every file, by inode, size and times), and the environment
    is the same (``requirements.environment_key``: installed distributions, pydantic's
    version among them, skillc's and Python's), the previous result is reused as a whole:
    it depends on nothing else.  ``allow_import`` is the user's
    consent to import project code for the schemas ``schema = "import"`` asks for;
    ``notify`` hears what the user should know while it happens: that project code
    is being imported, or that another compile is writing the same output folder.
    A ``session`` (``skill compile --watch``) carries what this compile read and found to
    the next one, which then reads only what changed; the result is the same without it.
    """
    timings: dict[str, float] = {}
    started = time.perf_counter()
    if session is not None:
        session.attempted = None
    located = locate_config(path)
    pyproject_identity = identity(located)  # before it is read: a save while this compile runs is a change
    if session is not None:
        session.attempted = (located, pyproject_identity)
    config = read_config(located, out=out)
    report_path = config.root / CACHE_DIR / REPORT_FILE
    last = _cached_report(report_path) if use_cache else None
    recorded = last.written if last is not None else None
    known_skeleton = last.skeleton if last is not None else None
    timings["config"] = time.perf_counter() - started

    mark = time.perf_counter()
    snapshot = read_sources(config, session.previous_snapshot(config) if session is not None else None)
    if session is not None:
        session.remember(config, pyproject_identity, snapshot)
    # The environment too: another pydantic writes other schemas, other installed metadata other requirements.
    pyproject = config.pyproject.read_bytes()
    environment = environment_key()  # once: every stage of this compile sees the same one
    digest = snapshot.digest(pyproject, environment.encode())
    previous = last if last is not None and last.digest == digest else None
    if previous is not None and not same_root_files(config.root, previous.root_files):
        previous = None
    if previous is not None and not verify:
        if not emit or (recorded is not None and recorded == fingerprint(config.out)):  # nothing to write
            timings["index"] = time.perf_counter() - mark
            timings["link"] = 0.0
            count = len(snapshot.files)
            return CompileReport(
                config,
                previous.agent,
                previous.skills,
                previous.tools,
                tuple(sorted((*config.warnings, *previous.diagnostics), key=lambda item: item.sort_key)),
                IndexStats(count, 0, count, 0),
                timings,
                DIST_CURRENT if emit else DIST_SKIPPED,
            )
    # Refuse before any work, and again before the swap (emit_dist).  A watch's compiles
    # leave the refusal to the swap unless project code is about to be imported: the
    # outcome is the same, and a watch compiles far more often than its folder is taken.
    if emit and (session is None or allow_import):
        check_output_folder(config.out, recorded)
    from .sources import index_sources  # not imported when the last result is reused whole: start-up stays fast

    index = index_sources(config, snapshot, use_cache=use_cache)
    timings["index"] = time.perf_counter() - mark

    mark = time.perf_counter()
    # Not imported on a cache hit, which needs no linking: start-up stays fast.
    from .link_cache import config_digest, load_link, record_link, reused_link, save_link

    link_path = config.root / CACHE_DIR / LINK_FILE
    # The files by name, for the paths a module gives relative to the working folder (``working_folder_check``).
    files = frozenset({item.path for item, _, _ in snapshot.files} | {item.path for item in snapshot.data.files})
    config_key = config_digest(config, pyproject, files)
    last_link = None
    if use_cache:
        last_link = session.link if session is not None and session.link is not None else load_link(link_path)
    linked = reused_link(last_link, index, config, config_key)
    if linked is None:
        from .link import link_project  # not imported when the last link is reused: start-up stays fast

        linked = link_project(dict(index.modules), config, index.failed, files)
    reporter = Reporter(config.root, config.max_file_bytes)
    diagnostics = [*index.problems, *reporter.diagnostics(linked.findings)]
    timings["link"] = time.perf_counter() - mark

    def remember(written: Fingerprint | None, skeleton: Skeleton | None = known_skeleton) -> None:
        """Record this compile's result for the next one (see ``CachedReport``)."""
        skills, tools = tuple(linked.skills), tuple(linked.tools)
        record = CachedReport(
            digest, linked.agent, skills, tools, tuple(diagnostics), written, skeleton, linked.root_files
        )
        write_cache(report_path, {_REPORT_KEY: record})

    dist_state = DIST_SKIPPED if not emit else DIST_NOT_WRITTEN
    imported: tuple[str, ...] = ()
    written: Fingerprint | None = previous.written if previous is not None and not emit else None
    if linked.agent is not None:
        # Every tool that linked gets its schemas and bundle checked even when another has
        # errors, so that one run reports every independent problem; without a dist/ to
        # write, no archive is built.
        writing = emit and not _has_errors(diagnostics)
        mark = time.perf_counter()
        # Schemas and bundles: not needed on a cache hit.
        from .artifacts import build_artifacts, load_artifact_cache, write_artifact_cache

        sources = {item.path: content for item, _, content in snapshot.files}
        keys = {item.path: key for item, key, _ in snapshot.files}
        artifacts_folder = config.root / CACHE_DIR
        cache: dict[str, Any] = load_artifact_cache(artifacts_folder) if use_cache else {}
        before = dict(cache)
        artifacts = build_artifacts(
            linked,
            sources,
            snapshot.data,
            import_schemas=config.schema == "import" and allow_import,
            import_wanted=config.schema == "import",
            keys=keys,
            environment=environment,
            cache=cache if use_cache else None,
            archives=writing,
            notify=notify,
        )
        imported = artifacts.imported
        if use_cache:
            current = {tool.name for tool in linked.tools}
            kept = {slot: value for slot, value in cache.items() if slot.split("#")[0] in current}
            write_artifact_cache(artifacts_folder, kept, before)
        diagnostics.extend(reporter.diagnostics(artifacts.findings))
        diagnostics[:] = dict.fromkeys(diagnostics)  # a finding of a shared model comes with each tool using it
        timings["artifacts"] = time.perf_counter() - mark
        if writing and not _has_errors(diagnostics):
            mark = time.perf_counter()
            from .emit import emit_dist  # writing dist/: neither a check nor a cache hit needs it

            warnings = sorted((*config.warnings, *diagnostics), key=lambda item: item.sort_key)
            check = None
            if verify:
                from .verify import check_dist  # only --verify needs it, and it starts processes and threads

                check = lambda staging: reporter.diagnostics(check_dist(staging, artifacts))  # noqa: E731
            with output_lock(config.out, notify):
                emitted = emit_dist(
                    config,
                    linked.agent,
                    artifacts.skills,
                    artifacts.tools,
                    warnings,
                    digest,
                    environment,
                    check,
                    recorded,
                    session,
                    known_skeleton,
                )
                diagnostics.extend(emitted.diagnostics)
                if not _has_errors(diagnostics):
                    dist_state, written = DIST_WRITTEN, emitted.written
                    # Still holding the lock: the record matches what is in dist/.  (A watch writes it
                    # after its report, cache.held_writes: if another compile replaced dist/ meanwhile,
                    # the record lists files no longer there, and the next compile only does more work.)
                    if use_cache:
                        remember(written, emitted.skeleton)
            timings["emit"] = time.perf_counter() - mark
    skills, tools = tuple(linked.skills), tuple(linked.tools)
    if use_cache and not emit and not _has_errors(diagnostics):
        remember(written)
    if use_cache:
        record = record_link(linked, index, config_key)
        # Saved when it says more than the one on disk: a new link, a changed file (whose old
        # summary the index cache no longer holds), new closures or tool digests.
        if record != last_link:
            save_link(link_path, record)
        if session is not None:
            session.link = record
    diagnostics.extend(config.warnings)
    diagnostics.sort(key=lambda item: item.sort_key)
    return CompileReport(
        config, linked.agent, skills, tools, tuple(diagnostics), index.final_stats(), timings, dist_state, imported
    )


def import_every_stage() -> None:
    """Import the modules of every stage ``compile_project`` may run without ``verify``.

    A compile imports a stage when it first needs it, so that a command that reuses the
    last result starts fast; a watch calls this while it waits for its first change, so
    that the compile after it does not import them then.
    """
    from . import artifacts, emit, link, link_cache, sources  # noqa: F401 - imported for their own sake


def _cached_report(path: Path) -> CachedReport | None:
    """The last compile's report, if the cache holds one."""
    entry = load_cache(path, _REPORT_TYPES).get(_REPORT_KEY)
    return entry if isinstance(entry, CachedReport) else None


def _has_errors(diagnostics: list[Diagnostic]) -> bool:
    return any(item.severity is Severity.ERROR for item in diagnostics)
