"""Render a compile report for people: diagnostics with their source line, then a table."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..compiler.api import CompileReport
from ..compiler.types import Config, Diagnostic, Severity, ToolInfo
from ..contracts.settings import TIMEOUT
from .consoles import shown, visible

__all__ = ["print_text"]

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow"}
#: The table of tools: its columns, and what separates two of them.
_COLUMNS = ("tool", "skill", "form", "source", "settings")
_GAP = "  "


class _Lines:
    """Source lines of the files diagnostics point into, read once each.

    Only what the compile itself would read is shown: nothing through a link that leads
    outside the project (and the folders it allows), nothing above the size limit.
    """

    def __init__(self, config: Config) -> None:
        self.root = config.root
        self.roots = (config.root, *config.outside_roots)
        self.limit = config.max_file_bytes
        self._files: dict[str, list[str]] = {}

    def _read(self, path: str) -> str:
        try:
            target = (self.root / path).resolve()
            if not any(target.is_relative_to(root) for root in self.roots) or target.stat().st_size > self.limit:
                return ""
            return target.read_bytes().decode("utf-8", "replace")
        except (OSError, RuntimeError):
            return ""

    def get(self, path: str, line: int) -> str | None:
        if path not in self._files:
            self._files[path] = self._read(path).splitlines()
        lines = self._files[path]
        return lines[line - 1] if 0 < line <= len(lines) else None


def _diagnostic(console: Console, item: Diagnostic, lines: _Lines) -> None:
    style = _STYLE[item.severity]
    console.print(
        f"[bold]{shown(item.path)}:{item.line}:{item.col + 1}:[/] "
        f"[{style}]{item.severity.value}{shown(f'[{item.code}]')}[/] {shown(item.message)}"
    )
    source = lines.get(item.path, item.line)
    if source is not None:
        expanded = visible(source).expandtabs(4)
        prefix = visible(source[: item.col]).expandtabs(4)
        console.print(f"    {shown(expanded)}")
        console.print(f"    {' ' * len(prefix)}[{style}]^[/]")
    for path, line, col, note in item.related:
        console.print(f"  [dim]note:[/] {shown(path)}:{line}:{col + 1}: {shown(note)}")
    if item.hint:
        console.print(f"  [dim]hint:[/] {shown(item.hint)}")


def _settings(tool: ToolInfo) -> str:
    """The timeout always, then every setting whose value is not the default (in table order)."""
    parts = [TIMEOUT.show(tool.settings[TIMEOUT])]
    parts += [setting.show(value) for setting, value in tool.settings.changed() if setting is not TIMEOUT]
    parts += [label for flag, label in ((tool.has_condition, "condition"), (tool.is_async, "async")) if flag]
    return ", ".join(parts)


def _row(tool: ToolInfo) -> tuple[str, ...]:
    """The tool's cells, as shown: control characters visible, nothing read as markup."""
    source = f"{tool.source.path}:{tool.source.line}"
    return (visible(tool.name), visible(tool.skill), tool.form, visible(source), visible(_settings(tool)))


def _print_table(console: Console, rows: Sequence[tuple[str, ...]]) -> None:
    """The table of tools, as rich's ``Table`` lays it out (``_table``).

    A table that fits the console's width is laid out here, line by line, as rich would:
    each cell padded to its column's widest, two spaces between columns.  Rich's own layout
    measures and renders every cell, and took a third of a second for 500 tools.  A table
    too wide, or a cell that rich would lay out over several lines (a line break, a tab),
    is rich's to lay out.
    """
    widths = [max(cell_len(cell) for cell in column) for column in zip(_COLUMNS, *rows, strict=True)]
    fits = sum(widths) + len(_GAP) * (len(widths) - 1) <= console.width
    if not fits or any("\n" in cell or "\t" in cell for row in rows for cell in row):
        console.print(_table(rows))
        return
    console.print(_table([], widths))  # the header, bold, as rich writes it
    lines = (
        _GAP.join(cell + " " * (width - cell_len(cell)) for cell, width in zip(row, widths, strict=True))
        for row in rows
    )
    console.print(Text("\n".join(lines)), soft_wrap=True)


def _table(rows: Sequence[tuple[str, ...]], widths: Sequence[int] | None = None) -> Table:
    """Rich's table of ``rows`` (its columns ``widths`` wide, if given)."""
    table = Table(title=None, box=None, show_edge=False, pad_edge=False, header_style="bold")
    for position, column in enumerate(_COLUMNS):
        wraps = column == "settings"
        table.add_column(
            column,
            no_wrap=not wraps,
            overflow="fold" if wraps else "ignore",
            width=widths[position] if widths is not None else None,
        )
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    return table


def print_warnings(console: Console, report: CompileReport) -> None:
    """The warnings of a compile that another command ran first, with their source lines: what
    they predict (a tool that cannot load here, say) is seen before the command goes on."""
    lines = _Lines(report.config)
    for item in report.diagnostics:
        if item.severity is Severity.WARNING:
            _diagnostic(console, item, lines)
            console.print()


def print_text(console: Console, report: CompileReport) -> None:
    """Diagnostics with their source lines, the table of tools, and a summary line."""
    lines = _Lines(report.config)
    for item in report.diagnostics:
        _diagnostic(console, item, lines)
        console.print()
    if report.tools:
        _print_table(console, [_row(tool) for tool in report.tools])
        console.print()
    agent = f"agent {report.agent.name!r}: " if report.agent is not None else ""
    tools = f"{len(report.tools)} tool{'s' if len(report.tools) != 1 else ''}"
    skills = f"{len(report.skills)} skill{'s' if len(report.skills) != 1 else ''}"
    errors = f"{report.errors} error{'s' if report.errors != 1 else ''}"
    warnings = f"{report.warnings} warning{'s' if report.warnings != 1 else ''}"
    style = "bold red" if report.errors else "bold green"
    total = sum(report.timings.values())
    out = report.config.out
    folder = out.relative_to(report.config.root).as_posix() if out.is_relative_to(report.config.root) else str(out)
    dist = {
        "written": f"wrote {folder}/",
        "up to date": f"{folder}/ is up to date",
        "not written": f"{folder}/ not written",
        "skipped": "",
    }[report.dist]
    console.print(
        f"[{style}]{agent}{tools} in {skills}, {errors}, {warnings}[/]"
        + (f"; {shown(dist)}" if dist else "")
        + f" [dim]({report.stats.files} modules, {report.stats.parsed} parsed, "
        f"{report.stats.cached} cached, {total:.2f}s)[/]"
    )
