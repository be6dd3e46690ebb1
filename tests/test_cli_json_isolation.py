"""Tool code shares the process with the command: what it does to the ``json`` module does not
change the command's own output, and ``os._exit`` does not end the command.

Each case runs a real ``skill test`` on ``tests/runtime_projects/tampering``.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from helpers import RunSkill
from runtime_support import IGNORED, RUNTIME_PROJECTS, compile_tree
from skillc.runtime.context import ToolContext
from skillc.runtime.data import scratch_store
from skillc.runtime.loader import load_dist

REFUSAL = "ProcessExitRefused: os._exit(0) would end the whole process; a tool's code may not"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tampering") / "tampering"
    shutil.copytree(RUNTIME_PROJECTS / "tampering", root, ignore=IGNORED)
    return root


@pytest.mark.parametrize("tool", ["replaces_dumps", "patches_encoder", "patches_decoder"])
def test_a_tool_that_patches_json_does_not_change_the_commands_output(
    skill: RunSkill, project: Path, tool: str
) -> None:
    result = skill("test", "--name", tool, "--input", '{"label": "kept"}', "--json", cwd=project)
    assert result.code == 0, result.stderr
    assert result.stdout.startswith('{"call_id": "skill-test", "name": "' + tool + '", "is_error": false, ')
    document = json.loads(result.stdout)
    assert (document["output"], document["error_type"], document["attempts"]) == ('{"label":"kept"}', None, 1)
    assert "pwned" not in result.stdout
    text = skill("test", "--name", tool, "--input", '{"label": "kept"}', cwd=project)
    assert text.code == 0, text.stderr
    assert text.stdout.endswith('Result: object with 1 field: label\n{\n  "label": "kept"\n}\n')


@pytest.mark.parametrize("tool", ["exits", "exits_async", "exits_despite_except"])
def test_os_exit_in_a_tool_is_an_execution_error(skill: RunSkill, project: Path, tool: str) -> None:
    result = skill("test", "--name", tool, "--input", '{"label": "kept"}', "--json", cwd=project)
    assert result.code == 1, result.stdout + result.stderr
    document = json.loads(result.stdout)
    assert (document["is_error"], document["error_type"], document["output"]) == (
        True,
        "execution",
        f"The tool failed: {REFUSAL}",
    )
    assert "Traceback" not in result.stderr
    text = skill("test", "--name", tool, "--input", '{"label": "kept"}', cwd=project)
    assert text.code == 1
    assert "Tool execution failed: execution" in text.stdout and text.stdout.rstrip().endswith(REFUSAL)


def test_os_exit_in_a_condition_hides_the_tool(skill: RunSkill, project: Path) -> None:
    result = skill("test", "--name", "behind_an_exit", "--json", cwd=project)
    assert result.code == 1, result.stderr
    assert json.loads(result.stdout) == {
        "name": "behind_an_exit",
        "offered": False,
        "reason": f"its condition() raised {REFUSAL}",
    }


def test_os_exit_in_a_thread_of_the_tool_does_not_end_the_command(skill: RunSkill, project: Path) -> None:
    result = skill("test", "--name", "exits_in_a_thread", "--input", '{"label": "kept"}', "--json", cwd=project)
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["output"] == "kept"
    assert "ProcessExitRefused" in result.stderr  # the thread's own end, as Python reports it


def test_arguments_are_read_by_skillcs_own_decoder_after_a_tool_patched_json(project: Path) -> None:
    """In one process (a chat), a later call's arguments do not go through what a tool patched."""
    dist = compile_tree(project)
    saved = (json.JSONDecoder, json.JSONDecoder.decode, json.dumps, json.loads)
    try:
        with load_dist(dist) as runtime:

            async def two_calls() -> list[str]:
                first = await runtime.call("patches_decoder", '{"label": "one"}', ToolContext())
                second = await runtime.call("replaces_dumps", '{"label": "two"}', ToolContext())
                return [first.output, second.output]

            assert asyncio.run(two_calls()) == ['{"label":"one"}', '{"label":"two"}']
    finally:
        json.JSONDecoder, json.dumps, json.loads = saved[0], saved[2], saved[3]
        json.JSONDecoder.decode = saved[1]  # type: ignore[method-assign]


def test_the_data_store_does_not_read_or_write_through_a_patched_json_module() -> None:
    """A tool that replaced ``json.dumps``/``json.loads`` earlier in the process changes no document."""
    store = scratch_store()
    saved = (json.dumps, json.loads)
    try:
        json.dumps = lambda *args, **kwargs: "pwned"  # type: ignore[assignment]
        json.loads = lambda *args, **kwargs: {"pwned": True}  # type: ignore[assignment]
        orders = store.collection("orders")
        orders.put("A1", {"status": "shipped", "items": ["kettle"]})
        assert orders.get("A1") == {"_id": "A1", "status": "shipped", "items": ["kettle"]}
        assert [page["_id"] for page in orders.find({"items": ["kettle"]}).items] == ["A1"]
    finally:
        json.dumps, json.loads = saved
        store.close()
