"""``ctx.state``: a conversation's own data, kept by its tools, saved with the thread, safe under concurrent calls.

The fixture is an airline desk (``tests/chat_projects/seats``) whose tools keep the
passenger's seat in the state, as the OpenAI Agents SDK's customer-service example keeps
it in its context.  Chats run through real ``skill chat`` subprocesses against the
scripted Chat Completions server on 127.0.0.1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chat_support import MODEL, ScriptedServer, call, compiled_project, say
from helpers import Completed, RunSkill

#: The variables that would choose a model, cleared so that the tests never see the machine's own.
CLEAN = {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": "", "SKILL_MODEL": ""}
MOVE = '{"confirmation_number": "ABC123", "new_seat": "14C"}'


@pytest.fixture(scope="module")
def seats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled_project("seats", tmp_path_factory.mktemp("tool-state"))


def chat(skill: RunSkill, project: Path, url: str, *args: str) -> Completed:
    return skill("chat", "--model", MODEL, "--base-url", url, *args, cwd=project, env=CLEAN)


def thread_file(project: Path, thread: str) -> Path:
    return project / ".skill" / "threads" / f"{thread}.json"


def offered(request: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request.get("tools", [])]


def tool_results(request: dict[str, Any]) -> list[str]:
    return [message["content"] for message in request["messages"] if message["role"] == "tool"]


def test_the_state_persists_with_the_thread_across_two_runs(skill: RunSkill, seats: Path) -> None:
    script = [
        call(("update_seat", MOVE)),
        say("You are in 14C now."),
        call(("current_seat", "{}"), ("order_meal", '{"meal": "soup"}')),
        say("Seat 14C, soup is coming."),
    ]
    with ScriptedServer(*script) as server:
        first = chat(skill, seats, server.url, "-m", "Move me to 14C, booking ABC123", "--thread", "trip-1")
        saved = json.loads(thread_file(seats, "trip-1").read_text())
        second = chat(skill, seats, server.url, "-m", "Where do I sit? And soup, please.", "--thread", "trip-1")
    assert (first.code, second.code) == (0, 0), first.stderr + second.stderr
    assert saved["state"] == {"confirmation_number": "ABC123", "seat": "14C"}
    assert tool_results(server.requests[1]) == ["Moved ABC123 from no seat to 14C."]
    # The second run gets the state back: its tools read it, and a condition sees it.
    assert "order_meal" not in offered(server.requests[0]) and "order_meal" in offered(server.requests[2])
    assert tool_results(server.requests[3])[1:] == ['{"confirmation_number":"ABC123","seat":"14C"}', "soup to seat 14C"]
    assert json.loads(thread_file(seats, "trip-1").read_text())["state"] == saved["state"]


def test_a_thread_file_without_a_state_still_loads(skill: RunSkill, seats: Path) -> None:
    path = thread_file(seats, "old-1")
    path.parent.mkdir(parents=True, exist_ok=True)
    old = {
        "format": 1,
        "id": "old-1",
        "agent": "airline",
        "created": "2026-05-01T09:30:00Z",
        "updated": "2026-05-01T09:31:12Z",
        "messages": [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi."}],
    }
    path.write_text(json.dumps(old))
    with ScriptedServer(call(("update_seat", MOVE)), say("Done.")) as server:
        result = chat(skill, seats, server.url, "-m", "Move me", "--thread", "old-1")
    assert result.code == 0, result.stderr
    assert [message.get("content") for message in server.requests[0]["messages"][1:3]] == ["Hello", "Hi."]
    document = json.loads(path.read_text())
    assert document["state"] == {"confirmation_number": "ABC123", "seat": "14C"}
    assert document["messages"][:2] == old["messages"]


def test_concurrent_calls_of_one_turn_lose_no_update(skill: RunSkill, seats: Path) -> None:
    calls = [("bump", "{}"), ("bump_async", "{}")] * 4
    with ScriptedServer(call(*calls), say("Counted.")) as server:
        result = chat(skill, seats, server.url, "-m", "Count eight times", "--thread", "count-1")
    assert result.code == 0, result.stderr
    assert json.loads(thread_file(seats, "count-1").read_text())["state"] == {"count": 8}
    # Each read-modify-write saw every earlier one: the counts handed out are 1 to 8, once each.
    assert sorted(int(text) for text in tool_results(server.requests[1])) == list(range(1, 9))


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        (
            "remember_date",
            "{}",
            "The tool failed: StateError: ctx.state['when'] is a date, which is not JSON data: the state keeps "
            "dicts with string keys, lists, strings, finite numbers, booleans and None",
        ),
        (
            "remember_much",
            '{"kib": 300}',
            "The tool failed: StateError: storing ctx.state['notes'] would make the state 300 KiB of JSON, "
            "more than its limit of 256 KiB",
        ),
    ],
)
def test_a_value_the_state_cannot_keep_is_an_execution_error(
    skill: RunSkill, seats: Path, tool: str, arguments: str, message: str
) -> None:
    result = skill("test", "--name", tool, "--input", arguments, "--json", cwd=seats)
    assert result.code == 1, result.stderr
    document = json.loads(result.stdout)
    assert (document["is_error"], document["error_type"]) == (True, "execution")
    assert document["output"].startswith(message)
    assert "state" not in document  # nothing was kept
    assert "Traceback" not in result.stderr


def test_skill_test_json_shows_the_state_after_the_call(skill: RunSkill, seats: Path) -> None:
    result = skill("test", "--name", "update_seat", "--input", MOVE, "--json", cwd=seats)
    assert result.code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["output"] == "Moved ABC123 from no seat to 14C."
    assert document["state"] == {"confirmation_number": "ABC123", "seat": "14C"}
    text = skill("test", "--name", "update_seat", "--input", MOVE, cwd=seats)
    assert text.code == 0, text.stderr
    assert text.stdout.rstrip().endswith('State after the call: {"confirmation_number": "ABC123", "seat": "14C"}')
    untouched = skill("test", "--name", "current_seat", "--json", cwd=seats)
    assert "state" not in json.loads(untouched.stdout)  # an empty state is not shown


def test_skill_test_state_gives_the_call_its_state(skill: RunSkill, seats: Path) -> None:
    given = '{"confirmation_number": "XYZ789", "seat": "2A"}'
    result = skill("test", "--name", "order_meal", "--input", '{"meal": "tea"}', "--state", given, "--json", cwd=seats)
    assert result.code == 0, result.stderr
    document = json.loads(result.stdout)
    assert (document["output"], document["state"]) == ("tea to seat 2A", json.loads(given))
    bad = skill("test", "--name", "current_seat", "--state", "[1]", cwd=seats)
    assert bad.code == 2 and bad.stderr.startswith("error: --state must be a JSON object, not list")


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ("[1, 2]", "state must be an object, not list"),
        ('{"seat": {"since": NaN}}', "state: ctx.state['seat']['since'] is nan: JSON has no NaN or infinity"),
        ('{"notes": "' + "x" * 300_000 + '"}', "state: storing ctx.state['notes'] would make the state 293 KiB"),
    ],
)
def test_a_bad_state_in_a_thread_file_is_refused_and_the_file_kept(
    skill: RunSkill, seats: Path, state: str, message: str
) -> None:
    path = thread_file(seats, "bad-state")
    path.parent.mkdir(parents=True, exist_ok=True)
    text = '{"format": 1, "id": "bad-state", "agent": "airline", "state": ' + state + ', "messages": []}'
    path.write_text(text)
    with ScriptedServer(say("never asked")) as server:
        result = chat(skill, seats, server.url, "-m", "Hello", "--thread", "bad-state")
    assert result.code == 1, result.stderr
    assert result.stderr.startswith(f"error: {path} is not a thread file: {message}")
    assert "hint: move" in result.stderr and "Traceback" not in result.stderr
    assert server.requests == [] and path.read_text() == text


def test_skillc_testing_shares_a_state_between_calls(seats: Path) -> None:
    from skillc.testing import ToolState, load_project

    project = load_project(seats)
    state = ToolState({"seat": "3B"})
    assert project.value("current_seat", state=state) == {"confirmation_number": None, "seat": "3B"}
    assert project.value("update_seat", MOVE, state=state) == "Moved ABC123 from 3B to 14C."
    assert state.to_dict() == {"seat": "14C", "confirmation_number": "ABC123"}
    assert project.value("order_meal", {"meal": "tea"}, state=state) == "tea to seat 14C"
    assert project.call("order_meal", {"meal": "tea"}).error_type == "not_offered"  # a fresh, empty state
    assert project.value("bump", state={"count": 41}) == 42  # a mapping is copied into a state of its own
