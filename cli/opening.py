"""Opening the project for a command that runs its tools: ``skill test``, ``skill chat``, ``skill serve``.

Each compiles a stale ``dist/`` first.  What the user sees of that compile is the same for
all three, on stderr (stdout belongs to the command: a result, an answer, MCP's stream):
a compile that fails prints its report and raises ``CompileFailed`` (exit 1); a compile that
wrote ``dist/`` prints its warnings, since what they predict (a tool that cannot load here,
say) would otherwise be seen only when it happens.  An up-to-date ``dist/`` shows nothing:
``skill compile`` shows its warnings again.
"""

from __future__ import annotations

from pathlib import Path

from ..compiler.api import DIST_WRITTEN
from ..project import CompileFailed, Project, open_project
from ..runtime.context import Environment
from .consoles import notice, stderr

__all__ = ["open_for_command"]


def open_for_command(project: Path, environment: Environment) -> Project:
    """Compile ``project`` if it is stale and load its ``dist/``, showing the compile on stderr.

    Raises ``CompileFailed`` (after printing the report) when the project does not compile.
    """
    try:
        opened = open_project(project, environment=environment, notify=notice)
    except CompileFailed as failed:
        from .render import print_text  # rich's renderer only when there is a report: --json needs no rich

        print_text(stderr(), failed.report)
        raise
    if opened.report.dist == DIST_WRITTEN and opened.report.warnings:
        from .render import print_warnings  # rich's renderer only when there is something to render

        print_warnings(stderr(), opened.report)
    return opened
