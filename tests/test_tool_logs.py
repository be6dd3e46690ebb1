"""What a tool logs through ``ctx.logger`` is shown on standard error, naming the tool.

Before, the records went to Python's last-resort handler, which writes to ``sys.stderr``: while
the tool's code runs, that is the call's capture, so ``skill test``, ``skill chat`` and
``skill serve`` showed nothing, with ``--debug`` or without.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import SKILL, run_command, write_project
from skillc.compiler.check_projects import agent

TOOLS = '''\
from skillc import ToolContext, tool


@tool
async def notes(text: str, *, ctx: ToolContext) -> str:
    """Keep a note, and say so."""
    ctx.logger.info("keeping %s", text)
    ctx.logger.warning("the note is short")
    ctx.logger.debug("only with --debug")
    return text


@tool
def notes_sync(text: str, *, ctx: ToolContext) -> str:
    """The same, in a worker thread."""
    ctx.logger.error("could not reach the archive")
    return text
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("logs")
    write_project(
        root, {"tools.py": TOOLS, "agent.py": agent("notes, notes_sync", "from tools import notes, notes_sync")}
    )
    return root


@pytest.mark.parametrize(
    ("arguments", "tool", "lines"),
    [
        pytest.param(
            (), "notes", ["info: tool 'notes': keeping hi", "warning: tool 'notes': the note is short"], id="async"
        ),
        pytest.param(
            ("--debug",),
            "notes",
            [
                "info: tool 'notes': keeping hi",
                "warning: tool 'notes': the note is short",
                "debug: tool 'notes': only with --debug",
            ],
            id="debug",
        ),
        pytest.param((), "notes_sync", ["error: tool 'notes_sync': could not reach the archive"], id="sync"),
    ],
)
def test_what_a_tool_logs_is_shown(project: Path, arguments: tuple[str, ...], tool: str, lines: list[str]) -> None:
    finished = run_command(
        [str(SKILL), *arguments, "test", "--name", tool, "--input", '{"text": "hi"}', "--json"], cwd=project
    )
    assert finished.code == 0, finished.stderr
    assert finished.stderr.strip().splitlines() == lines
    assert '"output": "hi"' in finished.stdout  # standard output holds the result alone
