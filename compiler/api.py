"""The compiler's one entry point: ``compile_project``.

It runs the stages in order (read the config, index the sources, link and check) and
returns a ``CompileReport`` with every diagnostic positioned exactly and sorted.  The
CLI only renders that report.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from .config import locate_config, read_config
from .sources import IndexStats, index_project
from .types import AgentInfo, Config, Diagnostic, Severity, SkillInfo, ToolInfo

__all__ = ["CompileReport", "compile_project"]


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


def compile_project(
    path: Path, *, out: Path | None = None, use_cache: bool = True
) -> CompileReport:
    """Check the project that contains ``path``; raise ``ConfigError`` for a bad config."""
    timings: dict[str, float] = {}
    started = time.perf_counter()
    config = read_config(locate_config(path), out=out)
    timings["config"] = time.perf_counter() - started

    mark = time.perf_counter()
    modules, problems, stats = index_project(config, use_cache=use_cache)
    timings["index"] = time.perf_counter() - mark

    mark = time.perf_counter()
    from .link import link_project

    linked = link_project(modules, config)
    diagnostics = [*config.warnings, *problems]
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
    diagnostics.sort(key=lambda item: item.sort_key)
    return CompileReport(
        config=config,
        agent=linked.agent,
        skills=tuple(linked.skills),
        tools=tuple(linked.tools),
        diagnostics=tuple(diagnostics),
        stats=stats,
        timings=timings,
    )
