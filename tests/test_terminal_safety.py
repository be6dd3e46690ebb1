"""Escape sequences from tools and models reach the terminal only in their visible form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chat_support import MODEL, ScriptedServer, call, fail, say
from helpers import RunSkill, write_project
from skillc.cli.consoles import shown, visible

HOSTILE = "\x1b]0;pwned\x07\x1b[2Khello"
SHOWN = "\\x1b]0;pwned\\x07\\x1b[2Khello"
#: Raw control characters that must never reach the terminal (newline and tab may).
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\r")
CLEAN = {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": "", "SKILL_MODEL": ""}

AGENT = """\
from skillc import Agent

from noisy import noise

agent = Agent(name="noisy", persona="You are noisy.", skills=[noise])
"""
TOOLS = f"""\
from skillc import Skill, tool


@tool
def noisy() -> str:
    \"\"\"Return text full of escape sequences.\"\"\"
    return {HOSTILE!r}


@tool
def noisy_fields() -> dict[str, str]:
    \"\"\"Return an object whose value has C1 controls and a bidi override.\"\"\"
    return {{"text": "a\\x9b2Jb\\u202ec"}}


@tool
def noisy_failure() -> str:
    \"\"\"Fail with escape sequences in the message.\"\"\"
    raise ValueError({HOSTILE!r})


noise = Skill(name="noise", description="Noise.", tools=[noisy, noisy_fields, noisy_failure])
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "noisy", {"agent.py": AGENT, "noisy.py": TOOLS})


def assert_clean(text: str) -> None:
    for character in RAW:
        assert character not in text, (character, text)


def test_visible_shows_controls_and_keeps_newlines_and_tabs() -> None:
    assert visible(HOSTILE) == SHOWN
    assert visible("a\tb\nc\r\nd\re\x7f\x85\u202a\u2069") == "a\tb\nc\nd\\x0de\\x7f\\x85\\u202a\\u2069"
    assert visible("plain text, ünïcode") == "plain text, ünïcode"
    assert shown("[bold]\x1b") == "\\[bold]\\x1b"


def test_skill_test_shows_a_tool_result_visibly_and_json_keeps_it_exact(skill: RunSkill, project: Path) -> None:
    text = skill("test", "--name", "noisy", cwd=project)
    assert text.code == 0, text.stderr
    assert_clean(text.stdout + text.stderr)
    assert SHOWN in text.stdout
    as_json = skill("test", "--name", "noisy", "--json", cwd=project)
    assert as_json.code == 0, as_json.stderr
    assert json.loads(as_json.stdout)["output"] == HOSTILE


def test_skill_test_shows_c1_controls_and_bidi_overrides_in_a_json_result(skill: RunSkill, project: Path) -> None:
    text = skill("test", "--name", "noisy_fields", cwd=project)
    assert text.code == 0, text.stderr
    assert_clean(text.stdout)
    assert '"text": "a\\x9b2Jb\\u202ec"' in text.stdout
    as_json = skill("test", "--name", "noisy_fields", "--json", cwd=project)
    assert json.loads(json.loads(as_json.stdout)["output"]) == {"text": "a\x9b2Jb\u202ec"}


def test_skill_test_shows_a_failing_tool_and_its_warning_visibly(skill: RunSkill, project: Path) -> None:
    text = skill("test", "--name", "noisy_failure", cwd=project)
    assert text.code == 1
    assert_clean(text.stdout + text.stderr)
    assert "Tool execution failed: execution" in text.stdout


def test_skill_chat_shows_answers_tool_calls_and_results_visibly(skill: RunSkill, project: Path) -> None:
    script = [
        call(("noisy", "{}"), ("\x1b[2Kghost", '{"a": "\x1b]52;c;cHduZWQ=\x07"}')),
        say(f"Done: {HOSTILE} \u202eevil\u202c."),
    ]
    with ScriptedServer(*script) as server:
        result = skill("chat", "--model", MODEL, "--base-url", server.url, "-m", "Hi", cwd=project, env=CLEAN)
    assert result.code == 0, result.stderr
    assert_clean(result.stdout + result.stderr)
    assert result.stdout == f"Done: {SHOWN} \\u202eevil\\u202c.\n"
    lines = result.stderr.splitlines()
    assert lines[0] == "-> noisy {}"
    assert lines[1].startswith("-> \\x1b[2Kghost ") and "\\x1b]52;c;cHduZWQ=\\x07" in lines[1]
    assert any(line.startswith("<- noisy ok (") and line.endswith(f"ms): {SHOWN}") for line in lines)
    assert any(line.startswith("<- \\x1b[2Kghost failed") for line in lines)
    # the model still got the exact result
    tool_messages = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert tool_messages[0]["content"] == HOSTILE


def test_skill_chat_shows_an_answer_of_only_escapes_visibly(skill: RunSkill, project: Path) -> None:
    with ScriptedServer(say(HOSTILE)) as server:
        result = skill("chat", "--model", MODEL, "--base-url", server.url, "-m", "Hi", cwd=project, env=CLEAN)
    assert result.code == 0, result.stderr
    assert result.stdout == SHOWN + "\n"


def test_skill_chat_quotes_an_endpoint_error_visibly(skill: RunSkill, project: Path) -> None:
    with ScriptedServer(fail(500, HOSTILE)) as server:
        result = skill("chat", "--model", MODEL, "--base-url", server.url, "-m", "Hi", cwd=project, env=CLEAN)
    assert result.code == 1
    assert_clean(result.stdout + result.stderr)
    assert result.stderr.startswith("error: ")
