"""``skill`` started without standard input, output or error: a clear answer, and no file takes their place.

A process started with descriptor 0, 1 or 2 closed (``<&-``, ``>&-``, ``2>&-``, or a
supervisor that closes them) gives the next file it opens that number: what is later
written to standard error would land in that file.  ``skill`` opens the null device on
each one it was started without, first thing: input reads end-of-file, as with
``< /dev/null``; messages go nowhere.  Every command's results go to standard output, so
without one no command runs: a usage error that says so (before, each command ended with
``internal error: AttributeError ...``, exit 70).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import SKILL, write_project

TOOLS = '''\
import os

from skillc import Agent, Skill, tool


@tool
def descriptors() -> dict:
    """Where the process's descriptors 0 and 2 lead, while skill runs this tool."""
    return {str(fd): os.path.realpath(f"/proc/self/fd/{fd}") for fd in (0, 2)}


agent = Agent(name="a", skills=[Skill(name="s", tools=[descriptors])])
'''

needs_proc = pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="reads descriptors from /proc")
#: No command here takes longer than this.
TIMEOUT = 120.0


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("descriptors") / "p", {"agent.py": TOOLS})


def shell(command: str, project: Path) -> subprocess.CompletedProcess[bytes]:
    """``skill`` with the redirections of ``command`` (``$SKILL`` and ``$PROJECT`` in it), through /bin/sh."""
    return subprocess.run(
        ["/bin/sh", "-c", command],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env={**os.environ, "SKILL": str(SKILL), "PROJECT": str(project)},
        timeout=TIMEOUT,
    )


STDOUT_CLOSED = [
    "error: standard output is closed: skill writes its results there",
    "hint: to discard them, send them to /dev/null (>/dev/null) rather than closing it",
]


@pytest.mark.parametrize(
    "command",
    [
        "compile $PROJECT",
        'test --name descriptors --input "{}" --json $PROJECT',
        "data collections $PROJECT",
        "serve $PROJECT",
        "chat $PROJECT",
        "--version",
    ],
)
def test_without_standard_output_no_command_runs_and_it_says_why(project: Path, command: str) -> None:
    result = shell(f'"$SKILL" {command} >&-', project)
    assert (result.returncode, result.stderr.decode().splitlines()) == (2, STDOUT_CLOSED)


@needs_proc
def test_a_tool_finds_the_null_device_where_stdin_and_stderr_were_closed(project: Path) -> None:
    result = shell('"$SKILL" test --name descriptors --input "{}" --json "$PROJECT" <&- 2>&-', project)
    assert result.returncode == 0, result.stdout
    assert json.loads(json.loads(result.stdout)["output"]) == {"0": "/dev/null", "2": "/dev/null"}


@pytest.mark.parametrize(("command", "code"), [("chat $PROJECT", 0), ("serve $PROJECT", 0)])
def test_a_closed_stdin_is_the_end_of_input(project: Path, command: str, code: int) -> None:
    closed = shell(f'"$SKILL" {command} <&-', project)
    empty = shell(f'"$SKILL" {command} </dev/null', project)
    assert (closed.returncode, closed.stdout, closed.stderr) == (code, empty.stdout, empty.stderr)


def test_a_closed_stderr_leaves_the_exit_code_and_the_output_as_they_are(project: Path) -> None:
    closed = shell('"$SKILL" test --name nope --input "{}" "$PROJECT" 2>&-', project)
    assert (closed.returncode, closed.stdout, closed.stderr) == (3, b"", b"")
    shown = shell('"$SKILL" test --name nope --input "{}" "$PROJECT"', project)
    assert (shown.returncode, shown.stderr.decode().splitlines()) == (
        3,
        ["error: no tool 'nope'; the tools are: descriptors"],
    )
