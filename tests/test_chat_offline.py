"""The offline model end to end: real ``skill chat -m`` subprocesses on a scaffolded project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import Completed, RunSkill
from skillc.templates import scaffold_project

CLEAN = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "SKILL_MODEL": ""}
NOTICE = "No model endpoint is configured, so the built-in offline model answers"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("offline")
    scaffold_project(Path("demo"), cwd=root)
    return root / "demo"


def chat(skill: RunSkill, demo: Path, message: str, *args: str) -> Completed:
    return skill("chat", "-m", message, *args, cwd=demo, env=CLEAN)


def fenced_json(text: str) -> object:
    """The JSON document inside the first ```json fence of ``text``."""
    return json.loads(text.split("```json\n", 1)[1].split("\n```", 1)[0])


def test_call_runs_the_tool_and_answers_with_its_result(skill: RunSkill, demo: Path) -> None:
    result = chat(skill, demo, '/call lookup_order {"order_id": "A1001"}')
    assert result.code == 0, result.stderr
    assert result.stdout.startswith("`lookup_order` answered:\n\n```json\n")
    assert fenced_json(result.stdout) == {
        "order_id": "A1001",
        "status": "shipped",
        "total_eur": 42.5,
        "delivery_date": "2026-12-03",
    }
    lines = result.stderr.splitlines()
    assert lines[0].startswith(NOTICE)  # said at the start
    assert lines[1] == '-> lookup_order {"order_id": "A1001"}'
    assert lines[2] == "info: tool 'lookup_order': looked up order A1001"  # what the tool logged, as it ran
    assert lines[3].startswith("<- lookup_order ok (")
    assert (demo / "dist/manifest.json").is_file()  # compiled first


def test_tools_lists_the_tools_offered_this_turn_with_their_parameters(skill: RunSkill, demo: Path) -> None:
    result = chat(skill, demo, "/tools")
    assert result.code == 0, result.stderr
    assert result.stdout.splitlines()[0] == "3 tools are offered this turn:"
    assert "- `lookup_order`: Look up an order's status, total and delivery date by its id." in result.stdout
    assert "  - `order_id` (string, required): The order id, like A1001." in result.stdout
    assert '  - `destination` ("domestic" | "eu" | "world", required): Where it goes.' in result.stdout
    (demo / ".env.production").write_text("SHIPPING_QUOTES=off\n")
    try:
        hidden = chat(skill, demo, "/tools", "-e", "production")
    finally:
        (demo / ".env.production").unlink()
    assert hidden.stdout.splitlines()[0] == "2 tools are offered this turn:"
    assert "shipping_quote" not in hidden.stdout


def test_a_plain_message_gets_the_explanation(skill: RunSkill, demo: Path) -> None:
    result = chat(skill, demo, "Where is my order?")
    assert result.code == 0
    assert result.stdout.startswith("I am skillc's built-in offline model")
    assert "`/call lookup_order {...}`" in result.stdout
    assert "`--model NAME`" in result.stdout and "OPENAI_API_KEY" in result.stdout


def test_errors_of_a_call_are_shown_as_the_model_would_read_them(skill: RunSkill, demo: Path) -> None:
    broken = chat(skill, demo, '/call lookup_order {"order_id": ')
    assert broken.code == 0
    assert "<- lookup_order failed, invalid_json" in broken.stderr
    assert "The arguments are not valid JSON" in broken.stdout
    raised = chat(skill, demo, '/call lookup_order {"order_id": "A9999"}')
    assert "<- lookup_order failed, execution" in raised.stderr
    assert "The tool failed: LookupError: There is no order A9999." in raised.stdout
    assert "Traceback" not in raised.stderr
    assert raised.stderr.count("There is no order A9999.") == 2  # the result, and the runtime's one-line warning


def test_a_tool_that_needs_approval_runs_only_with_approve(skill: RunSkill, demo: Path) -> None:
    refused = chat(skill, demo, '/call cancel_order {"order_id": "A1002"}')
    assert "<- cancel_order failed, approval_denied" in refused.stderr
    assert "pass --approve" in refused.stderr
    approved = chat(skill, demo, '/call cancel_order {"order_id": "A1002"}', "--approve")
    assert approved.code == 0
    assert fenced_json(approved.stdout) == {"order_id": "A1002", "status": "cancelled", "reason": "customer request"}


def test_the_offline_model_keeps_a_thread_too(skill: RunSkill, demo: Path) -> None:
    chat(skill, demo, '/call lookup_order {"order_id": "A1001"}', "--thread", "offline")
    second = chat(skill, demo, '/call lookup_order {"order_id": "A1002"}', "--thread", "offline")
    assert second.code == 0
    messages = json.loads((demo / ".skill/threads/offline.json").read_text())["messages"]
    assert [message["role"] for message in messages] == ["user", "assistant", "tool", "assistant"] * 2
    assert [message["tool_call_id"] for message in messages if message["role"] == "tool"] == ["offline_1", "offline_2"]
