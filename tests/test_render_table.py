"""The table of tools a compile report ends with, for people: laid out as rich's ``Table`` lays it out.

``cli.render`` lays out a table that fits the console itself (rich's own layout took a
third of a second for 500 tools) and leaves the rest to rich.  Whatever the cells hold
(wide and combining characters, markup-like brackets, backslashes, line breaks, tabs,
control characters made visible) and however wide the console, on a terminal or not, the
text must be the very text rich writes for the same table.
"""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table
from rich.text import Text
from skillc.cli.consoles import visible
from skillc.cli.render import _print_table

#: A cell as the renderer is given it: ``visible`` text (control characters spelt out, line breaks and tabs kept).
CELL = (
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=14)
    | st.sampled_from(["", "[bold]x", "a\\", "中文字", "e\u0301", "😀", "tab\there", "two\nlines", "timeout 30s"])
).map(visible)
ROWS = st.lists(st.tuples(CELL, CELL, CELL, CELL, CELL), min_size=1, max_size=6)


def _console(width: int, terminal: bool) -> tuple[Console, io.StringIO]:
    written = io.StringIO()
    console = Console(
        file=written,
        width=width,
        highlight=False,
        emoji=False,
        soft_wrap=True,
        force_terminal=terminal,
        color_system="standard" if terminal else None,
    )
    return console, written


def _rich(rows: list[tuple[str, ...]], width: int, terminal: bool) -> str:
    """What rich writes for the table, laid out by rich."""
    console, written = _console(width, terminal)
    table = Table(title=None, box=None, show_edge=False, pad_edge=False, header_style="bold")
    for column in ("tool", "skill", "form", "source"):
        table.add_column(column, no_wrap=True, overflow="ignore")
    table.add_column("settings", overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    console.print(table)
    return written.getvalue()


def _ours(rows: list[tuple[str, ...]], width: int, terminal: bool) -> str:
    console, written = _console(width, terminal)
    _print_table(console, rows)
    return written.getvalue()


@settings(max_examples=300, deadline=None)
@given(rows=ROWS, width=st.integers(20, 200), terminal=st.booleans())
def test_the_table_is_the_text_rich_writes_for_it(rows: list[tuple[str, ...]], width: int, terminal: bool) -> None:
    assert _ours(rows, width, terminal) == _rich(rows, width, terminal)


def test_a_table_of_500_tools_is_the_text_rich_writes_for_it() -> None:
    rows = [
        (f"tool_{n}", "shop", "class", f"src/skills/tools/tool_{n}.py:22", "timeout 30s, async") for n in range(500)
    ]
    for terminal in (False, True):
        assert _ours(rows, 1000, terminal) == _rich(rows, 1000, terminal)
