"""``--user`` and ``--session`` give a tool's call the ``ctx.user`` and ``ctx.session`` the Python API can."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import RunSkill, write_project

AGENT = '''from skillc import Agent, Skill, ToolContext, tool


@tool
def whoami(ctx: ToolContext) -> dict:
    """Say who calls, and in which session."""
    return {"user": dict(ctx.user), "session": dict(ctx.session)}


agent = Agent(name="a", skills=[Skill(name="s", tools=[whoami])])
'''


def test_user_and_session_reach_the_tool(tmp_path: Path, skill: RunSkill) -> None:
    project = write_project(tmp_path / "p", {"agent.py": AGENT})
    done = skill(
        "test",
        str(project),
        "--name",
        "whoami",
        "--json",
        "--user",
        '{"id": "u1", "plan": "pro"}',
        "--session",
        '{"cart": [1, 2]}',
    )
    assert done.code == 0, done.stderr
    assert json.loads(json.loads(done.stdout)["output"]) == {
        "user": {"id": "u1", "plan": "pro"},
        "session": {"cart": [1, 2]},
    }
    plain = skill("test", str(project), "--name", "whoami", "--json")
    assert json.loads(json.loads(plain.stdout)["output"]) == {"user": {}, "session": {}}


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--user", "{id: 1}", "error: --user is not JSON: "),
        ("--user", "[1, 2]", "error: --user must be a JSON object, not list"),
        ("--session", "1e999", "error: --session is not JSON: "),
    ],
)
def test_a_value_that_is_no_json_object_is_a_usage_error(
    tmp_path: Path, skill: RunSkill, flag: str, value: str, message: str
) -> None:
    project = write_project(tmp_path / "p", {"agent.py": AGENT})
    for command in (["test", str(project), "--name", "whoami"], ["chat", str(project), "-m", "hi"]):
        done = skill(*command, flag, value)
        assert done.code == 2, (command, done.stdout, done.stderr)
        assert done.stderr.startswith(message) and "Traceback" not in done.stderr
