"""A command keeps what it loaded out of the collector's sight, and never what tool code makes.

``skill test`` and ``skill serve`` freeze the objects made before any tool code runs
(``cli.lifetime``); what a tool makes is collected as in any Python program, so a tool's
object that is still alive at exit, in a reference cycle, has its finalizer run then.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path

from helpers import RunSkill, write_project
from skillc.cli import main as cli_main

TOOLS = '''\
import gc

from skillc import Agent, Skill, tool

#: What the tools leave alive until the process ends.
KEPT = []


class Journal:
    """A file written when the journal is finalized; it refers to itself, so only the collector frees it."""

    def __init__(self, path: str) -> None:
        self.me = self
        self.path = path

    def __del__(self) -> None:
        with open(self.path, "w") as file:
            file.write("finalized\\n")


@tool
def remember(path: str) -> dict:
    """Leave a journal alive until the process ends; say whether what skillc loaded was frozen."""
    KEPT.append(Journal(path))
    return {"frozen_before": gc.get_freeze_count() > 0}


agent = Agent(name="a", skills=[Skill(name="s", tools=[remember])])
'''


def test_an_object_a_tool_leaves_alive_is_finalized_when_skill_test_ends(tmp_path: Path, skill: RunSkill) -> None:
    project = write_project(tmp_path / "p", {"agent.py": TOOLS})
    journal = tmp_path / "journal.txt"
    result = skill("test", "--name", "remember", "--input", json.dumps({"path": str(journal)}), "--json", str(project))
    assert result.code == 0, result.stdout + result.stderr
    assert json.loads(json.loads(result.stdout)["output"]) == {"frozen_before": True}  # skillc's own, before the tool
    assert journal.read_text() == "finalized\n"  # the tool's object was not frozen: its finalizer ran at exit


def test_a_command_run_inside_another_program_leaves_its_collector_alone(tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", {"agent.py": TOOLS})
    before = gc.get_freeze_count()
    assert cli_main.run(["compile", str(project)]) == 0
    arguments = json.dumps({"path": str(tmp_path / "in-process.txt")})
    assert cli_main.run(["test", "--name", "remember", "--input", arguments, "--json", str(project)]) == 0
    assert gc.get_freeze_count() == before
