"""``skill chat`` against endpoints that misbehave, and keys, URLs and thread files that are wrong.

Real subprocesses against the scripted server on 127.0.0.1; every answer that cannot be
read is one clear error, never a traceback, a hang or an exit 70.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from chat_support import MODEL, ScriptedServer, call, copy_project, misbehave, say
from helpers import SKILL, Completed, RunSkill
from runtime_support import compile_tree

CLEAN = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "SKILL_MODEL": ""}
#: The deadline the test projects set, in seconds, and their answer size limit.
DEADLINE = 2
MAX_BYTES = 200_000


def _project(root: Path, *, stream: bool) -> Path:
    project = copy_project("desk", root)
    with (project / "pyproject.toml").open("a", encoding="utf-8") as file:
        file.write(f"deadline = {DEADLINE}\nmax_answer_bytes = {MAX_BYTES}\nstream = {str(stream).lower()}\n")
    compile_tree(project)
    return project


@pytest.fixture(scope="module")
def streamed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _project(tmp_path_factory.mktemp("streamed"), stream=True)


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _project(tmp_path_factory.mktemp("whole"), stream=False)


def chat(skill: RunSkill, project: Path, url: str, *args: str, key: str = "test") -> Completed:
    return skill("chat", "--model", MODEL, "--base-url", url, *args, cwd=project, env={**CLEAN, "OPENAI_API_KEY": key})


def _one_error(result: Completed) -> str:
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    return errors[0]


@pytest.mark.parametrize("how", ["html", "not_json", "malformed"])
@pytest.mark.parametrize("mode", ["streamed", "whole"])
def test_an_unreadable_answer_is_one_error_and_exit_1(
    skill: RunSkill, request: pytest.FixtureRequest, how: str, mode: str
) -> None:
    project: Path = request.getfixturevalue(mode)
    with ScriptedServer(misbehave(how)) as server:
        result = chat(skill, project, server.url, "-m", "Hi")
    assert result.code == 1, result.stderr
    assert _one_error(result).startswith(
        f"error: the model endpoint at {server.url} sent an answer that cannot be read"
    )
    assert "no text" not in result.stderr


@pytest.mark.parametrize("mode", ["streamed", "whole"])
def test_a_slow_drip_ends_at_the_deadline(skill: RunSkill, request: pytest.FixtureRequest, mode: str) -> None:
    project: Path = request.getfixturevalue(mode)
    with ScriptedServer(misbehave("drip")) as server:
        started = time.monotonic()
        result = chat(skill, project, server.url, "-m", "Hi")
        took = time.monotonic() - started
    assert result.code == 1, result.stderr
    assert _one_error(result) == f"error: the model endpoint at {server.url} did not finish its answer within 2 s"
    assert took < DEADLINE + 6


@pytest.mark.parametrize("mode", ["streamed", "whole"])
def test_an_endless_answer_ends_at_the_size_limit(skill: RunSkill, request: pytest.FixtureRequest, mode: str) -> None:
    project: Path = request.getfixturevalue(mode)
    with ScriptedServer(misbehave("endless")) as server:
        result = chat(skill, project, server.url, "-m", "Hi")
    assert result.code == 1, result.stderr
    assert f"larger than max_answer_bytes ({MAX_BYTES} bytes)" in _one_error(result)
    assert len(result.stdout) <= MAX_BYTES


def test_a_session_reports_an_unreadable_answer_and_goes_on(streamed: Path) -> None:
    with ScriptedServer(misbehave("html"), say("Still here.")) as server:
        env = {**os.environ, **CLEAN, "NO_COLOR": "1", "OPENAI_API_KEY": "test"}
        finished = subprocess.run(
            [str(SKILL), "chat", "--model", MODEL, "--base-url", server.url],
            cwd=streamed,
            env=env,
            input="Hi\nAgain\n",
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert finished.returncode == 0, finished.stderr
    assert "sent an answer that cannot be read" in finished.stderr
    assert "Still here." in finished.stdout
    assert len(server.requests) == 2


def _everything(project: Path, result: Completed) -> str:
    files = [path.read_text("utf-8", "replace") for path in (project / ".skill").rglob("*") if path.is_file()]
    return "\n".join([result.stdout, result.stderr, *files])


def test_a_key_with_a_line_end_is_sent_stripped(skill: RunSkill, tmp_path: Path) -> None:
    project = _project(tmp_path, stream=True)
    with ScriptedServer(say("Hello.")) as server:
        result = chat(skill, project, server.url, "-m", "Hi", "--thread", "t1", key="sk-secret-key\r\n")
    assert (result.code, result.stdout) == (0, "Hello.\n"), result.stderr
    assert server.headers[0]["authorization"] == "Bearer sk-secret-key"
    assert "sk-secret" not in _everything(project, result)


@pytest.mark.parametrize("key", ["sk-secret\r\nX-Evil: 1", "sk-secret key", "sk-secret\x1b[2J", "sk-secrét"])
def test_a_key_with_inner_whitespace_or_controls_is_refused_unshown(skill: RunSkill, tmp_path: Path, key: str) -> None:
    project = _project(tmp_path, stream=True)
    with ScriptedServer(say("Hello.")) as server:
        result = chat(skill, project, server.url, "-m", "Hi", "--thread", "t1", key=key)
    assert result.code == 2, result.stderr
    assert _one_error(result).startswith("error: OPENAI_API_KEY has whitespace, control or non-ASCII characters")
    assert "sk-secret" not in _everything(project, result)
    assert server.requests == []


@pytest.mark.parametrize("url", ["http://[::1", "ftp://127.0.0.1/v1", "http:///v1", "http://127.0.0.1:port/v1"])
def test_a_bad_base_url_exits_2(skill: RunSkill, streamed: Path, url: str) -> None:
    result = chat(skill, streamed, url, "-m", "Hi")
    assert result.code == 2, result.stderr
    assert _one_error(result).startswith(f"error: the model endpoint's base URL {url!r} is not a valid http(s) URL")


BAD_CALLS = [
    [{"id": "c1", "type": "function", "function": {"name": "lookup_ticket"}}],
    [{"id": "c1", "type": "function", "function": {"name": "lookup_ticket", "arguments": {"ticket": "T-1"}}}],
    [{"id": 7, "type": "function", "function": {"name": "lookup_ticket", "arguments": "{}"}}],
    "lookup_ticket",
    [None],
]


@pytest.mark.parametrize("calls", BAD_CALLS)
def test_a_thread_with_malformed_tool_calls_is_refused_and_kept(skill: RunSkill, streamed: Path, calls: object) -> None:
    folder = streamed / ".skill" / "threads"
    folder.mkdir(parents=True, exist_ok=True)
    messages = [
        {"role": "user", "content": "Is T-1 open?"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c1", "content": "open"},
    ]
    document = {"format": 1, "id": "bad", "agent": "desk", "messages": messages}
    path = folder / "bad.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    before = path.read_bytes()
    script = [call(("lookup_ticket", '{"ticket": "T-1"}')), say("Done.")]
    with ScriptedServer(*script) as server:
        result = chat(skill, streamed, server.url, "-m", "Again", "--thread", "bad")
    assert result.code == 1, result.stderr
    assert _one_error(result).startswith(f"error: {path} is not a thread file: message 2")
    assert path.read_bytes() == before
    assert server.requests == []
    assert "lookup_ticket ok" not in result.stderr


def test_a_tool_result_that_answers_no_call_is_refused(skill: RunSkill, streamed: Path) -> None:
    folder = streamed / ".skill" / "threads"
    folder.mkdir(parents=True, exist_ok=True)
    messages = [{"role": "user", "content": "Hi"}, {"role": "tool", "tool_call_id": "c9", "content": "x"}]
    path = folder / "orphan.json"
    path.write_text(json.dumps({"format": 1, "messages": messages}), encoding="utf-8")
    before = path.read_bytes()
    result = chat(skill, streamed, "http://127.0.0.1:9/v1", "-m", "Again", "--thread", "orphan")
    assert result.code == 1
    assert "message 2: it answers no tool call" in _one_error(result)
    assert path.read_bytes() == before


def test_the_bounds_come_from_the_table_and_are_checked() -> None:
    from skillc.contracts.errors import ConfigError
    from skillc.runtime.models import ModelSettings, model_settings

    read = model_settings({"deadline": 30, "max_answer_bytes": 1000}, environ={})
    assert (read.deadline, read.max_answer_bytes) == (30.0, 1000)
    default = model_settings({}, environ={})
    assert (default.deadline, default.max_answer_bytes) == (ModelSettings.deadline, ModelSettings.max_answer_bytes)
    for table in ({"deadline": 0}, {"deadline": "1"}, {"max_answer_bytes": 0}, {"max_answer_bytes": True}):
        with pytest.raises(ConfigError):
            model_settings(table, environ={})
