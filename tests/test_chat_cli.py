"""``skill chat -m`` through real subprocesses against the scripted endpoint: output, exit codes, threads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chat_support import MODEL, ScriptedServer, call, closed_port, compiled_project, copy_project, fail, say
from helpers import Completed, RunSkill

#: The variables that would choose a model, cleared so that the tests never see the machine's own.
CLEAN = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "SKILL_MODEL": ""}
SYSTEM = "You run the help desk. Be brief.\n\n## front_desk\nTicket ids look like T-1."


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled_project("desk", tmp_path_factory.mktemp("chat-cli"))


def chat(skill: RunSkill, desk: Path, url: str, *args: str, key: str = "test") -> Completed:
    env = {**CLEAN, "OPENAI_API_KEY": key}
    return skill("chat", "--model", MODEL, "--base-url", url, *args, cwd=desk, env=env)


def test_one_message_prints_the_answer_and_the_tool_calls_on_stderr(skill: RunSkill, desk: Path) -> None:
    script = [call(("lookup_ticket", '{"ticket": "T-1"}')), say("T-1 is open.")]
    with ScriptedServer(*script) as server:
        result = chat(skill, desk, server.url, "-m", "Is T-1 open?", key="sk-do-not-show")
    assert result.code == 0, result.stderr
    assert result.stdout == "T-1 is open.\n"
    lines = result.stderr.splitlines()
    assert lines[0] == '-> lookup_ticket {"ticket": "T-1"}'
    assert lines[1].startswith("<- lookup_ticket ok (") and lines[1].endswith('ms): {"ticket":"T-1","status":"open"}')
    assert len(lines) == 2
    assert "sk-do-not-show" not in result.stdout + result.stderr
    assert server.requests[0]["messages"][:2] == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Is T-1 open?"},
    ]


def test_the_model_and_endpoint_can_come_from_the_environment(skill: RunSkill, desk: Path) -> None:
    with ScriptedServer(say("Hello.")) as server:
        env = {**CLEAN, "OPENAI_API_KEY": "test", "SKILL_MODEL": "from-env", "OPENAI_BASE_URL": server.url}
        result = skill("chat", "-m", "Hi", cwd=desk, env=env)
    assert (result.code, result.stdout) == (0, "Hello.\n"), result.stderr
    assert server.requests[0]["model"] == "from-env"


def test_an_unreachable_endpoint_exits_1_with_a_clear_message(skill: RunSkill, desk: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    result = chat(skill, desk, url, "-m", "Hi")
    assert result.code == 1
    assert result.stderr.startswith(f"error: cannot reach the model endpoint at {url}")
    assert "hint: is the server running" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_a_refused_key_exits_1_without_showing_it(skill: RunSkill, desk: Path) -> None:
    with ScriptedServer(fail(401, "Incorrect API key provided: sk-wrong-key")) as server:
        result = chat(skill, desk, server.url, "-m", "Hi", key="sk-wrong-key")
    assert result.code == 1
    assert result.stderr.startswith(f"error: the model endpoint at {server.url} refused the API key (HTTP 401)")
    assert "sk-wrong-key" not in result.stderr + result.stdout


def test_the_step_bound_exits_1_and_says_so(skill: RunSkill, desk: Path) -> None:
    script = [call(("lookup_ticket", '{"ticket": "T-1"}')) for _ in range(2)]
    with ScriptedServer(*script) as server:
        result = chat(skill, desk, server.url, "-m", "Loop", "--max-steps", "2")
    assert result.code == 1
    assert "Stopped: the model was asked 2 times this turn and still called tools" in result.stderr
    assert "--max-steps" in result.stderr
    assert len(server.requests) == 2


def test_approval_is_refused_with_m_unless_approve_is_given(skill: RunSkill, desk: Path) -> None:
    script = [
        call(("close_ticket", '{"ticket": "T-1"}')),
        say("Not closed."),
        call(("close_ticket", '{"ticket": "T-1"}')),
        say("Closed."),
    ]
    with ScriptedServer(*script) as server:
        refused = chat(skill, desk, server.url, "-m", "Close T-1")
        approved = chat(skill, desk, server.url, "-m", "Close T-1", "--approve")
    assert refused.code == 0 and refused.stdout == "Not closed.\n"
    assert "<- close_ticket failed, approval_denied" in refused.stderr
    assert "pass --approve to approve the tools that need approval" in refused.stderr
    assert approved.code == 0 and approved.stdout == "Closed.\n"
    assert "<- close_ticket ok" in approved.stderr and "closed T-1" in approved.stderr


def test_a_thread_continues_where_the_last_command_left_it(skill: RunSkill, desk: Path) -> None:
    with ScriptedServer(
        call(("lookup_ticket", '{"ticket": "T-2"}')), say("T-2 is closed."), say("You asked about T-2.")
    ) as server:
        first = chat(skill, desk, server.url, "-m", "Is T-2 open?", "--thread", "support-1")
        second = chat(skill, desk, server.url, "-m", "What did I ask?", "--thread", "support-1")
    assert (first.code, second.code) == (0, 0), first.stderr + second.stderr
    assert second.stdout == "You asked about T-2.\n"
    sent = server.requests[2]["messages"]
    assert [(message["role"], message.get("content")) for message in sent] == [
        ("system", SYSTEM),
        ("user", "Is T-2 open?"),
        ("assistant", None),
        ("tool", '{"ticket":"T-2","status":"closed"}'),
        ("assistant", "T-2 is closed."),
        ("user", "What did I ask?"),
    ]
    document = json.loads((desk / ".skill/threads/support-1.json").read_text())
    assert document["format"] == 1 and document["id"] == "support-1" and document["agent"] == "desk"
    assert document["messages"] == [*sent[1:], {"role": "assistant", "content": "You asked about T-2."}]


@pytest.mark.parametrize("thread", ["../escape", "a/b", ".hidden", "", "x" * 101])
def test_a_thread_id_with_a_path_in_it_is_a_usage_error(skill: RunSkill, desk: Path, thread: str) -> None:
    result = skill("chat", "-m", "/tools", "--thread", thread, cwd=desk, env=CLEAN)
    assert result.code == 2
    assert "is not a valid thread id" in result.stderr and "no path separators" in result.stderr
    assert not (desk.parent / "escape.json").exists()


def test_a_thread_file_that_is_not_a_thread_is_never_overwritten(skill: RunSkill, desk: Path) -> None:
    path = desk / ".skill/threads/broken.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json")
    result = skill("chat", "-m", "/tools", "--thread", "broken", cwd=desk, env=CLEAN)
    assert result.code == 1
    assert "broken.json is not a thread file" in result.stderr
    assert path.read_text() == "{not json"


def test_a_project_that_does_not_compile_exits_1_with_its_errors(skill: RunSkill, tmp_path: Path) -> None:
    project = copy_project("desk", tmp_path)
    (project / "src/agent.py").write_text("from skillc import Agent\n\nagent = Agent(name='desk', skills=[missing])\n")
    result = skill("chat", "-m", "Hi", cwd=project, env=CLEAN)
    assert result.code == 1
    assert "error: the project does not compile; fix the errors above first" in result.stderr


def test_bad_settings_are_usage_errors(skill: RunSkill, desk: Path) -> None:
    steps = skill("chat", "-m", "Hi", "--max-steps", "0", cwd=desk, env=CLEAN)
    assert steps.code == 2 and "--max-steps must be at least 1" in steps.stderr
    empty = skill("chat", "-m", " ", cwd=desk, env=CLEAN)
    assert empty.code == 2 and "-m needs a message" in empty.stderr
    nameless = skill("chat", "-m", "Hi", "--base-url", "http://127.0.0.1:9/v1", cwd=desk, env=CLEAN)
    assert nameless.code == 2 and "no model name" in nameless.stderr


def test_the_warnings_of_the_compile_it_runs_come_first_on_stderr(skill: RunSkill, tmp_path: Path) -> None:
    """A stale ``dist/`` is compiled first: its warnings (a variable the module reads by key at
    import) are shown before the conversation, whose tool call then fails as they predict; an
    up-to-date ``dist/`` shows none."""
    project = copy_project("desk", tmp_path)
    module = project / "src" / "desk.py"
    source = module.read_text() + '\nimport os\n\nREGION = os.environ["SKILLC_TEST_REGION"]\n'
    module.write_text(source)
    line = source.count("\n")
    script = [call(("lookup_ticket", '{"ticket": "T-1"}')), say("The desk is down.")]
    with ScriptedServer(*script) as server:
        first = chat(skill, project, server.url, "-m", "Is T-1 open?")
    assert first.code == 0, first.stderr
    lines = first.stderr.splitlines()
    assert lines[:5] == [
        f"src/desk.py:{line}:10: warning[skill/environment-at-import] os.environ['SKILLC_TEST_REGION'] is read when "
        "the module is imported: where the variable is not set, the import raises KeyError, and every tool whose "
        "bundle holds the module fails to load, whatever it is called with",
        '    REGION = os.environ["SKILLC_TEST_REGION"]',
        "             ^",
        "  hint: read the variable when the tool runs (ctx.env[...] in execute, where a missing one is that call's "
        "error), or give it a default (os.environ.get(...))",
        "",
    ]
    assert lines[5:] == [
        "warning: skill 'back_office' is hidden this turn: its code cannot be loaded: importing the bundle of skill "
        "'back_office' raised KeyError: 'SKILLC_TEST_REGION'",
        "warning: tool 'check_in' is hidden this turn: its code cannot be loaded: importing the bundle of tool "
        "'check_in' raised KeyError: 'SKILLC_TEST_REGION'",
        '-> lookup_ticket {"ticket": "T-1"}',
        "error: tool 'lookup_ticket' cannot run: importing the bundle of tool 'lookup_ticket' raised KeyError: "
        "'SKILLC_TEST_REGION'",
        lines[-1],
    ]
    assert lines[-1].startswith("<- lookup_ticket failed, execution (") and lines[-1].endswith(
        "ms): The tool cannot run: importing the bundle of tool 'lookup_ticket' raised KeyError: 'SKILLC_TEST_REGION'."
    )
    with ScriptedServer(say("Hello.")) as server:
        again = chat(skill, project, server.url, "-m", "Hi")
    assert (again.code, again.stdout) == (0, "Hello.\n")
    assert "warning[" not in again.stderr
