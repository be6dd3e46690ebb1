"""Closing a project tears its tools' modules down, once no code of theirs runs: nothing a tool wrote is lost.

A tool's modules live outside ``sys.modules``; at exit they are torn down as Python tears
those down.  A project closed in a process that goes on (a test session, a server's
lifespan ending before the process is ended by a signal) tears them down when it is
closed, so that what a tool wrote to a file it left open, without flushing it, reaches the
file then.  A tool still running in a worker thread when the project is closed keeps its
module whole until it ends; its module is torn down after it.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from helpers import write_project
from runtime_support import run
from skillc.project import open_project

TOOLS = '''\
import os
import time
from pathlib import Path

from skillc import Agent, Skill, tool

#: Opened when the bundle is imported and never closed or flushed, as many tools keep a log.
LOG = open(os.environ["TOOL_LOG"], "a")


@tool
def note(text: str) -> str:
    """Write a line to the log."""
    LOG.write(text + "\\n")
    return text


@tool
async def note_async(text: str) -> str:
    """The same on the event loop's thread."""
    LOG.write(text + "\\n")
    return text


@tool(timeout=0.3)
def late_note(text: str) -> str:
    """Wait for the gate file (30 s at most), then write a line: long after the call timed out."""
    gate = Path(os.environ["TOOL_GATE"])
    deadline = time.monotonic() + 30
    while not gate.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    LOG.write(text + "\\n")
    return text


agent = Agent(name="a", skills=[Skill(name="s", tools=[note, note_async, late_note])])
'''

# The tools leave their log open on purpose: Python warns of it when the teardown frees the file.
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning")

#: How long a test waits, at most, for a tool written off to write its line after the gate opens.
SETTLE = 20.0


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """The project, the log its tools write, and the gate ``late_note`` waits for."""
    log, gate = tmp_path / "tool.log", tmp_path / "gate"
    monkeypatch.setenv("TOOL_LOG", str(log))
    monkeypatch.setenv("TOOL_GATE", str(gate))
    return write_project(tmp_path / "p", {"agent.py": TOOLS}), log, gate


@pytest.mark.parametrize("name", ["note", "note_async"])
def test_what_a_tool_wrote_to_a_file_it_left_open_is_in_the_file_once_the_project_is_closed(
    files: tuple[Path, Path, Path], name: str
) -> None:
    project_path, log, _ = files
    project = open_project(project_path)
    result = run(project.call(name, {"text": "kept"})).result
    assert (result.is_error, result.output) == (False, "kept")
    assert log.read_text() == ""  # still in the tool's buffer: the tool never flushed it
    project.close()
    assert log.read_text() == "kept\n"  # before: only at exit, or never (freed in no order)


def test_a_tool_still_running_when_the_project_is_closed_keeps_its_module_until_it_ends(
    files: tuple[Path, Path, Path],
) -> None:
    project_path, log, gate = files
    project = open_project(project_path)
    written_off = run(project.call("late_note", {"text": "late"})).result
    assert (written_off.is_error, written_off.error_type) == (True, "timeout")
    project.close()  # the tool is still waiting for its gate, in the thread written off
    assert log.read_text() == ""
    gate.touch()
    deadline = time.monotonic() + SETTLE
    while log.read_text() != "late\n" and time.monotonic() < deadline:
        time.sleep(0.01)
    # The tool found its module whole (LOG was still the file) and wrote; its module was torn
    # down after it ended, which flushed the line: without the teardown it stays in the buffer.
    assert log.read_text() == "late\n"


@pytest.mark.parametrize("name", ["note", "note_async"])
def test_a_tool_of_a_closed_project_refuses_to_run_even_if_it_ran_before(
    files: tuple[Path, Path, Path], name: str
) -> None:
    project_path, log, _ = files
    with open_project(project_path) as project:
        assert run(project.call(name, {"text": "once"})).result.output == "once"
    refused = run(project.call(name, {"text": "twice"})).result
    assert (refused.is_error, refused.error_type, refused.output) == (
        True,
        "execution",
        "The tool cannot run: the runtime is closed.",
    )
    assert log.read_text() == "once\n"  # the module torn down is never run
