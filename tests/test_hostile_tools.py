"""Tools that misbehave on purpose, run by a real ``skill test``: the command's output holds."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from helpers import RunSkill
from runtime_support import IGNORED, RUNTIME_PROJECTS


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile") / "hostile"
    shutil.copytree(RUNTIME_PROJECTS / "hostile", root, ignore=IGNORED)
    return root


@pytest.mark.parametrize(
    ("tool", "raised"),
    [
        ("async_generator_exit", "GeneratorExit: boom"),
        ("async_keyboard_interrupt", "KeyboardInterrupt: boom"),
        ("async_base_exception", "BaseException: boom"),
    ],
)
def test_base_exceptions_of_async_tools_are_execution_results(
    skill: RunSkill, project: Path, tool: str, raised: str
) -> None:
    result = skill("test", "--name", tool, "--input", '{"label": "boom"}', "--json", cwd=project)
    assert result.code == 1, result.stderr
    assert "Traceback" not in result.stderr
    document = json.loads(result.stdout)
    assert (document["is_error"], document["error_type"]) == (True, "execution")
    assert raised in document["output"]


@pytest.mark.parametrize("tool", ["closes_stdout", "patches_json"])
def test_a_tool_cannot_break_the_commands_own_output(skill: RunSkill, project: Path, tool: str) -> None:
    result = skill("test", "--name", tool, "--input", '{"label": "kept"}', "--json", cwd=project)
    assert result.code == 0, result.stderr
    document = json.loads(result.stdout)
    assert (document["is_error"], document["output"], document["name"]) == (False, "kept", tool)
    text = skill("test", "--name", tool, "--input", '{"label": "kept"}', cwd=project)
    assert text.code == 0, text.stderr
    assert "Tool execution successful" in text.stdout and text.stdout.rstrip().endswith("kept")


def test_a_forked_child_does_not_hold_the_commands_output_open(skill: RunSkill, project: Path) -> None:
    started = time.monotonic()
    result = skill("test", "--name", "forks", "--input", '{"label": "parent"}', "--json", cwd=project)
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["output"] == "parent"
    assert time.monotonic() - started < 20  # the child sleeps 30 s with what it inherited
