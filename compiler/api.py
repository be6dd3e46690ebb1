"""The compiler's one entry point: ``compile_project``.

It runs the stages in order (read the config, index the sources, link and check) and
returns a ``CompileReport`` with every diagnostic positioned exactly and sorted.  The
CLI only renders that report.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from .cache import CACHE_DIR, load_cache, write_cache
from .config import locate_config, read_config
from .sources import IndexStats, index_sources, read_sources
from .types import AgentInfo, Config, Diagnostic, Severity, SkillInfo, ToolInfo

__all__ = ["CompileReport", "compile_project", "report_to_dict"]


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

    @property
    def errors(self) -> int:
        return sum(1 for item in self.diagnostics if item.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for item in self.diagnostics if item.severity is Severity.WARNING)

    @property
    def ok(self) -> bool:
        return self.errors == 0


REPORT_CACHE = "report.pickle"


def _report_types() -> tuple[type, ...]:
    from .types import ModelRef, Severity, Source, ToolSettings

    return (AgentInfo, Diagnostic, ModelRef, Severity, SkillInfo, Source, ToolInfo, ToolSettings)


def compile_project(
    path: Path, *, out: Path | None = None, use_cache: bool = True
) -> CompileReport:
    """Check the project that contains ``path``; raise ``ConfigError`` for a bad config.

    When no source file and no configuration changed since the last compile, the
    previous result is reused as a whole: it depends on nothing else.
    """
    timings: dict[str, float] = {}
    started = time.perf_counter()
    config = read_config(locate_config(path), out=out)
    timings["config"] = time.perf_counter() - started

    mark = time.perf_counter()
    snapshot = read_sources(config)
    digest = snapshot.digest(config.pyproject.read_bytes())
    report_path = config.root / CACHE_DIR / REPORT_CACHE
    if use_cache:
        previous = load_cache(report_path, _report_types()).get(digest)
        if isinstance(previous, tuple) and len(previous) == 4:
            agent, skills, tools, findings = previous
            timings["index"] = time.perf_counter() - mark
            timings["link"] = 0.0
            count = len(snapshot.files)
            return CompileReport(
                config, agent, skills, tools,
                tuple(sorted((*config.warnings, *findings), key=lambda item: item.sort_key)),
                IndexStats(count, 0, count, 0), timings,
            )
    index = index_sources(config, snapshot, use_cache=use_cache)
    stats = index.stats
    timings["index"] = time.perf_counter() - mark

    mark = time.perf_counter()
    from .link import link_project

    linked = link_project(index.modules, config, index.failed)
    diagnostics = list(index.problems)
    if linked.findings:
        from .locate import Locator

        locator = Locator(config.root)
        for finding in linked.findings:
            line, col = locator.position(finding.path, finding.pos)
            related = tuple(
                (path_, *locator.position(path_, pos), note) for path_, pos, note in finding.related
            )
            diagnostics.append(
                Diagnostic(finding.code, finding.severity, finding.message, finding.path, line, col,
                           finding.hint, related)
            )
    timings["link"] = time.perf_counter() - mark
    skills, tools = tuple(linked.skills), tuple(linked.tools)
    if use_cache:
        write_cache(report_path, {digest: (linked.agent, skills, tools, tuple(diagnostics))})
    diagnostics.extend(config.warnings)
    diagnostics.sort(key=lambda item: item.sort_key)
    return CompileReport(config, linked.agent, skills, tools, tuple(diagnostics), stats, timings)


def _source(source: object) -> dict[str, object]:
    return {"path": getattr(source, "path"), "line": getattr(source, "line")}


def report_to_dict(report: CompileReport) -> dict[str, object]:
    """The report as one JSON-ready document (``skill compile --format json``).

    Columns are 1-based here, as in the text output and in editors.
    """
    return {
        "format": 1,
        "ok": report.ok,
        "summary": {
            "errors": report.errors,
            "warnings": report.warnings,
            "skills": len(report.skills),
            "tools": len(report.tools),
        },
        "agent": None
        if report.agent is None
        else {
            "name": report.agent.name,
            "skills": list(report.agent.skills),
            "source": _source(report.agent.source),
        },
        "skills": [
            {
                "name": skill.name,
                "description": skill.description,
                "tools": list(skill.tools),
                "has_condition": skill.has_condition,
                "source": _source(skill.source),
            }
            for skill in report.skills
        ],
        "tools": [
            {
                "name": tool.name,
                "skill": tool.skill,
                "form": tool.form,
                "description": tool.description,
                "source": _source(tool.source),
                "entry": {"module": tool.module, "qualname": tool.qualname},
                "input_model": None if tool.input_model is None else f"{tool.input_model.module}.{tool.input_model.qualname}",
                "output_model": None if tool.output_model is None else f"{tool.output_model.module}.{tool.output_model.qualname}",
                "is_async": tool.is_async,
                "settings": {
                    "timeout": tool.settings.timeout,
                    "retries": tool.settings.retries,
                    "strict": tool.settings.strict,
                    "needs_approval": tool.settings.needs_approval,
                    "required": tool.settings.required,
                    "has_condition": tool.settings.has_condition,
                    "metadata": dict(tool.settings.metadata),
                    "voice": list(tool.settings.voice),
                },
            }
            for tool in report.tools
        ],
        "diagnostics": [
            {
                "code": item.code,
                "severity": item.severity.value,
                "message": item.message,
                "path": item.path,
                "line": item.line,
                "column": item.col + 1,
                "hint": item.hint,
                "related": [
                    {"path": path, "line": line, "column": col + 1, "message": note}
                    for path, line, col, note in item.related
                ],
            }
            for item in report.diagnostics
        ],
        "stats": {
            "files": report.stats.files,
            "parsed": report.stats.parsed,
            "cached": report.stats.cached,
            "workers": report.stats.workers,
        },
        "timings": {stage: round(seconds, 6) for stage, seconds in report.timings.items()},
    }
