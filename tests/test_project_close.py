"""Closing a project flushes the files its tools left open, and lets go of nothing: nothing a tool wrote is lost.

A tool's modules live outside ``sys.modules``; at exit the files they hold are flushed
before the collector frees them in no order.  A project closed in a process that goes on
(a test session, a server's lifespan ending before the process is ended by a signal)
flushes them when it is closed, so that what a tool wrote to a file it left open, without
flushing it, reaches the file then; and again when a call still running in a worker thread
ends.  Nothing of the modules is cleared: that call, or a thread a module started, runs on
unharmed (before, a teardown that cleared the modules' globals broke them).
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import write_project
from runtime_support import run
from skillc.project import open_project

TOOLS = '''\
import os
import threading
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


class Journal:
    """A file held where no global names it: in an object, in a reference cycle."""

    def __init__(self, path: str) -> None:
        self.file = open(path, "a")
        self.myself = self


JOURNAL = Journal(os.environ["TOOL_LOG"] + ".journal")


def _writer():
    closed_over = open(os.environ["TOOL_LOG"] + ".closure", "a")

    def write(text: str) -> None:
        closed_over.write(text + "\\n")

    return write


WRITE = _writer()


@tool
def note_deep(text: str) -> str:
    """Write a line to the journal and to the file of a closure."""
    JOURNAL.file.write(text + "\\n")
    WRITE(text)
    return text


@tool
def beat(seconds: float = 0.5) -> str:
    """Start a thread that writes (and flushes) a line every 10 ms for ``seconds``."""

    def run() -> None:
        deadline = time.monotonic() + seconds
        with open(os.environ["TOOL_LOG"] + ".beats", "a") as beats:
            while time.monotonic() < deadline:
                beats.write("beat\\n")
                beats.flush()
                time.sleep(0.01)
            beats.write("end\\n")

    threading.Thread(target=run, daemon=True).start()
    return "started"


@tool(timeout=0.3)
def late_note(text: str) -> str:
    """Wait for the gate file (30 s at most), then write a line: long after the call timed out."""
    gate = Path(os.environ["TOOL_GATE"])
    deadline = time.monotonic() + 30
    while not gate.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    LOG.write(text + "\\n")
    return text


agent = Agent(name="a", skills=[Skill(name="s", tools=[note, note_async, note_deep, beat, late_note])])
'''

# The tools leave their log open on purpose: Python warns of it when the collector frees the file.
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning")

#: How long a test waits, at most, for a tool written off to write its line after the gate opens.
SETTLE = 20.0
#: The runtime's threads that live as long as the process: the deadline watchdog, the bundle cache's.
PROCESS_THREADS = frozenset({"skillc-watchdog", "skillc-prune-bundles", "skillc-remark-bundles"})


@pytest.fixture(autouse=True)
def _collect_the_tools_here() -> Iterator[None]:
    """The tools' open logs are freed within the test that made them: the warning it gives is ignored only here.

    A thread a test started (a worker, a thread a tool started) holds the tools' modules
    while it runs: it is waited for (bounded) before the collection.
    """
    before = set(threading.enumerate())

    def started() -> set[threading.Thread]:  # the runtime's own process-wide threads hold no tool
        return {thread for thread in set(threading.enumerate()) - before if thread.name not in PROCESS_THREADS}

    yield
    deadline = time.monotonic() + SETTLE
    while started() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not started(), "a thread of the test is still running"
    gc.collect()


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
    # The tool found its module whole (LOG was still the file) and wrote; the files were
    # flushed again once it ended: without that, the line stays in the buffer.
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
    assert log.read_text() == "once\n"  # the closed project ran nothing more


def test_files_held_in_objects_cycles_and_closures_are_flushed_too(files: tuple[Path, Path, Path]) -> None:
    project_path, log, _ = files
    project = open_project(project_path)
    assert run(project.call("note_deep", {"text": "deep"})).result.output == "deep"
    journal, closure = Path(f"{log}.journal"), Path(f"{log}.closure")
    assert (journal.read_text(), closure.read_text()) == ("", "")
    project.close()
    assert (journal.read_text(), closure.read_text()) == ("deep\n", "deep\n")


def test_a_thread_a_tool_started_runs_on_after_the_project_is_closed(files: tuple[Path, Path, Path]) -> None:
    project_path, log, _ = files
    project = open_project(project_path)
    assert run(project.call("beat", {"seconds": 0.5})).result.output == "started"
    project.close()
    beats = Path(f"{log}.beats")
    time.sleep(0.1)
    before = beats.read_text().count("beat")
    deadline = time.monotonic() + SETTLE
    while beats.read_text().count("beat") <= before and time.monotonic() < deadline:
        time.sleep(0.01)
    # The thread still writes after close: its module's globals (open, time) are whole.
    # (A thread that failed would fail the test: pytest reports its exception.)
    assert beats.read_text().count("beat") > before
    while not beats.read_text().endswith("end\n") and time.monotonic() < deadline:
        time.sleep(0.01)
    assert beats.read_text().endswith("end\n")  # and the thread ended (``_collect_the_tools_here``)
