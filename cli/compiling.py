"""``skill compile``: one compile, or a watch of the project, and its report on stdout.

The report goes to stdout as text for people or, with ``--format json``, as one JSON
document; the exit code is 0 when the compile found no error, 1 when it did (``cli.main``
turns a bad configuration or a refused output folder into its own exit code).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..compiler.api import compile_project
from ..compiler.report_json import ReportText
from ..compiler.session import CompileSession
from ..contracts.errors import UsageError
from .consoles import notice, stdout

__all__ = ["run_compile_command"]


def run_compile_command(
    project: Path,
    *,
    out: Path | None,
    as_json: bool,
    watch: bool,
    verify: bool,
    check: bool,
    allow_import: bool,
) -> int:
    """Compile ``project`` once, or after every change with ``watch``, printing each report."""
    if check and verify:
        raise UsageError("--check writes no bundles, so there is nothing to --verify")
    session = CompileSession() if watch else None  # what one compile of the watch hands the next
    report_text = ReportText()  # a watch's reports share the text of the tools that stayed the same

    def once() -> int:
        report = compile_project(
            project, out=out, emit=not check, verify=verify, allow_import=allow_import, notify=notice, session=session
        )
        if as_json:
            sys.stdout.write(report_text(report) + "\n")
        else:
            from .render import print_text  # rich's tables: only a report for people needs them

            print_text(stdout(), report)
        return 0 if report.ok else 1

    if not watch:
        return once()
    from .watch import watch_project  # only a watch needs it

    return watch_project(project, once, stdout(), session)
