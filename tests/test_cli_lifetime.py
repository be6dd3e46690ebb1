"""A command's process ends as a Python program does, however fast: a tool's data is never lost.

``skill test`` and ``skill serve`` freeze the objects made before any tool code runs
(``cli.lifetime``), and what a tool makes is collected as in any Python program.  A
tool's modules are no entries of ``sys.modules``; at exit the files they hold are flushed
(``bundles.ModuleSpace.flush_files``), so that what a tool wrote to a file it left open,
without flushing it, reaches the file; nothing of the modules is cleared, so a thread a
tool's module started runs unharmed to the end.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import AGENT, RunSkill, write_project
from skillc.cli import main as cli_main

TOOLS = '''\
import gc
import os

from skillc import Agent, Skill, tool

#: Opened when the bundle is imported and never closed or flushed, as many tools keep a log.
LOG = open(os.environ["TOOL_LOG"], "a")


@tool
async def note(text: str) -> dict:
    """Write a line to the log (on the event loop's thread); say whether what skillc loaded was frozen,
    and how often the collector runs."""
    LOG.write(text + "\\n")
    return {"frozen_before": gc.get_freeze_count() > 0, "threshold": list(gc.get_threshold())}


@tool
def note_sync(text: str) -> dict:
    """The same from a worker thread."""
    LOG.write(text + "\\n")
    return {"frozen_before": gc.get_freeze_count() > 0, "threshold": list(gc.get_threshold())}


agent = Agent(name="a", skills=[Skill(name="s", tools=[note, note_sync])])
'''


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
@pytest.mark.parametrize("name", ["note", "note_sync"])
def test_what_a_tool_wrote_to_a_file_it_left_open_reaches_the_file_when_skill_test_ends(
    tmp_path: Path, skill: RunSkill, name: str, as_json: bool
) -> None:
    project = write_project(tmp_path / "p", {"agent.py": TOOLS})
    log = tmp_path / "tool.log"
    flags = ["--json"] if as_json else []
    result = skill(
        "test", "--name", name, "--input", '{"text": "kept"}', *flags, str(project), env={"TOOL_LOG": str(log)}
    )
    assert result.code == 0, result.stdout + result.stderr
    output = json.loads(result.stdout)["output"] if as_json else result.stdout.split("\n", 4)[-1]
    # skillc's own objects, frozen before the tool ran; the collector as Python sets it, for the tool's
    assert json.loads(output) == {"frozen_before": True, "threshold": [700, 10, 10]}
    assert log.read_text() == "kept\n"  # before: lost with --json, each time


ODD_MODULES = {
    "weird.py": (
        "import sys\n\n\nclass Replaced:\n    value = 1\n\n\n"
        "sys.modules[__name__] = Replaced()  # the module puts an object of its own in its place\n"
    ),
    "agent.py": (
        "import weird\n\nfrom skillc import Agent, Skill, tool\n\n"
        'globals()[1] = "a global whose key is no name"\n\n\n'
        '@tool\nasync def odd(text: str) -> str:\n    """Return the text."""\n    return text + str(weird.value)\n\n\n'
        'agent = Agent(name="a", skills=[Skill(name="s", tools=[odd])])\n'
    ),
}


def test_modules_that_are_odd_at_exit_end_the_process_quietly(tmp_path: Path, skill: RunSkill) -> None:
    project = write_project(tmp_path / "p", ODD_MODULES)
    result = skill("test", "--name", "odd", "--input", '{"text": "x"}', "--json", str(project))
    assert result.code == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["output"] == "x1"
    assert result.stderr == ""  # before: a traceback from the teardown at exit


def test_a_command_run_inside_another_program_leaves_its_collector_alone(tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", {"agent.py": AGENT})
    before, threshold = gc.get_freeze_count(), gc.get_threshold()
    assert cli_main.run(["compile", str(project)]) == 0
    assert cli_main.run(["test", "--name", "ping", "--input", '{"text": "hi"}', "--json", str(project)]) == 0
    assert (gc.get_freeze_count(), gc.get_threshold()) == (before, threshold)


#: Runs the console script's ``main`` as the ``skill`` command does, and says how the collector was
#: set each time the project was compiled (``skill test`` and ``skill serve`` compile it when it
#: is stale), and at exit, with whether what the command made was frozen.
COLLECTOR_SEEN = """\
import atexit, gc, sys
import skillc.compiler.api as api
compile_project = api.compile_project
def seen(*args, **kwargs):
    print("compiling with", *gc.get_threshold(), file=sys.stderr)
    return compile_project(*args, **kwargs)
api.compile_project = seen
atexit.register(lambda: print("at exit", *gc.get_threshold(), gc.get_freeze_count() > 0, file=sys.stderr))
from skillc.cli.entry import main
sys.argv = ["skill", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize(
    ("command", "compiling"),
    [
        (["compile"], "200000 30 30"),  # runs no project code: seldom until it ends
        (["compile", "--check"], "200000 30 30"),
        # These run tool code: the collector runs seldom only while they load (their modules,
        # the project, and skill serve's server), as usual after.
        (["test", "--name", "ping", "--input", '{"text": "hi"}'], "200000 30 30"),
        (["serve"], "200000 30 30"),
    ],
    ids=["compile", "check", "test", "serve"],
)
def test_the_collector_runs_seldom_in_a_compile_and_as_usual_once_tool_code_may_run(
    tmp_path: Path, command: list[str], compiling: str
) -> None:
    project = write_project(tmp_path / "p", {"agent.py": AGENT})
    finished = subprocess.run(
        [sys.executable, "-c", COLLECTOR_SEEN, *command, str(project)],
        stdin=subprocess.DEVNULL,  # skill serve on stdio ends at the end of its input
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    seen = [line for line in finished.stderr.splitlines() if line.startswith(("compiling with", "at exit"))]
    assert seen == [f"compiling with {compiling}", "at exit 700 10 10 True"], finished.stderr


BUSY_THREAD = '''\
import threading
import time

from skillc import Agent, Skill, tool

TICKS = []


def _beat() -> None:
    """A heartbeat, as a module keeps a cache fresh: it runs until the process ends."""
    while True:
        time.sleep(0.0005)
        TICKS.append(time.monotonic())


threading.Thread(target=_beat, daemon=True).start()


@tool
def ticks() -> int:
    """How many heartbeats so far."""
    return len(TICKS)


agent = Agent(name="a", skills=[Skill(name="s", tools=[ticks])])
'''


def test_a_thread_a_tool_module_started_runs_unharmed_until_the_process_ends(tmp_path: Path, skill: RunSkill) -> None:
    project = write_project(tmp_path / "p", {"agent.py": BUSY_THREAD})
    for _ in range(5):
        result = skill("test", "--name", "ticks", "--input", "{}", "--json", str(project))
        assert result.code == 0, result.stdout + result.stderr
        # before: 'Exception in thread Thread-1 (_beat)' and a traceback, as the module's
        # globals were cleared at exit under the running thread
        assert result.stderr == ""
