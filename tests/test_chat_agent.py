"""The agent loop against a real HTTP endpoint, through the real ``openai`` client.

``ScriptedServer`` speaks Chat Completions on 127.0.0.1 and replays scripted replies; the
loop runs the fixture project ``tests/chat_projects/desk`` from its compiled ``dist/``.
The tests check what the model is sent (system prompt, tools after conditions,
``tool_choice``, tool results in call order, error results) and what the caller sees.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from chat_support import MODEL, Scripted, ScriptedServer, call, closed_port, compiled_project, fail, say
from skillc.runtime.agent import DENIED_NOTE, AgentLoop, TurnResult
from skillc.runtime.call import Approver
from skillc.runtime.context import ToolContext
from skillc.runtime.loader import Runtime, load_dist
from skillc.runtime.models import Message, ModelError, ModelSettings, Reply, ToolCall
from skillc.runtime.openai_chat import OpenAIChatModel
from skillc.runtime.results import ToolResult

PERSONA = "You run the help desk. Be brief."
FRONT_DESK = "## front_desk\nTicket ids look like T-1."
BACK_OFFICE = "## back_office\nRefunds are final."
ALWAYS_OFFERED = ["lookup_ticket", "wait", "explode", "close_ticket"]


class Recorder:
    """The turn's events, in the order they happened, with when."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, float]] = []
        self.texts: list[str] = []

    def text(self, delta: str) -> None:
        self.texts.append(delta)

    def reply(self, reply: Reply) -> None:
        self.events.append(("reply", reply.text, time.perf_counter()))

    def tool_started(self, call: ToolCall) -> None:
        self.events.append(("started", f"{call.id} {call.name}", time.perf_counter()))

    def tool_finished(self, call: ToolCall, result: ToolResult) -> None:
        self.events.append(("finished", f"{call.id} {call.name}", time.perf_counter()))


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled_project("desk", tmp_path_factory.mktemp("chat")) / "dist"


@pytest.fixture
def runtime(dist: Path) -> Iterator[Runtime]:
    with load_dist(dist) as loaded:
        yield loaded


def chat(
    runtime: Runtime,
    base_url: str,
    *turns: str,
    env: Mapping[str, str] | None = None,
    stream: bool = True,
    max_steps: int = 20,
    approver: Approver | None = None,
    api_key: str = "test",
    messages: list[Message] | None = None,
) -> tuple[list[TurnResult], Recorder, list[Message]]:
    """Run ``turns`` through the loop with the real ``openai`` client against ``base_url``."""
    recorder = Recorder()
    conversation = [] if messages is None else messages

    async def run() -> list[TurnResult]:
        settings = ModelSettings(model=MODEL, base_url=base_url, stream=stream, timeout=10, max_retries=0)
        model = OpenAIChatModel(settings, api_key)
        loop = AgentLoop(
            runtime, model, ToolContext(env=env or {}), max_steps=max_steps, approver=approver, events=recorder
        )
        try:
            return [await loop.turn(conversation, text) for text in turns]
        finally:
            await model.aclose()

    return asyncio.run(run()), recorder, conversation


def definition(dist: Path, name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((dist / "tools" / name / "tool.json").read_text())
    return document


def tool_results(request: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [
        (message["tool_call_id"], message["content"]) for message in request["messages"] if message["role"] == "tool"
    ]


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_the_model_gets_persona_contexts_and_the_offered_tools(runtime: Runtime, dist: Path, stream: bool) -> None:
    with ScriptedServer(say("Hello, how can I help?")) as server:
        (result,), recorder, messages = chat(runtime, server.url, "Hi", stream=stream)
    assert result.answer == "Hello, how can I help?" and result.steps == 1 and not result.stopped
    assert "".join(recorder.texts) == "Hello, how can I help?"
    assert len(recorder.texts) == (5 if stream else 1)  # word by word when streamed
    (request,) = server.requests
    assert request["model"] == MODEL and bool(request.get("stream")) is stream
    assert request["messages"] == [
        {"role": "system", "content": f"{PERSONA}\n\n{FRONT_DESK}"},
        {"role": "user", "content": "Hi"},
    ]
    assert [tool["function"]["name"] for tool in request["tools"]] == ALWAYS_OFFERED
    assert request["tools"][0] == {
        "type": "function",
        "function": {k: v for k, v in definition(dist, "lookup_ticket").items() if k != "type"},
    }
    assert "tool_choice" not in request
    assert server.headers[0]["authorization"] == "Bearer test"
    assert messages == [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello, how can I help?"}]


def test_conditions_decide_the_contexts_and_tools_of_each_turn(runtime: Runtime) -> None:
    with ScriptedServer(say("Back office is open.")) as server:
        chat(runtime, server.url, "Refund T-1", env={"BACK_OFFICE": "on"})
    (request,) = server.requests
    assert request["messages"][0]["content"] == f"{PERSONA}\n\n{FRONT_DESK}\n\n{BACK_OFFICE}"
    assert [tool["function"]["name"] for tool in request["tools"]] == [*ALWAYS_OFFERED, "refund"]


def test_a_required_tool_is_forced_until_it_is_called(runtime: Runtime) -> None:
    script = [call(("check_in", '{"name": "Ada"}')), say("Hello Ada.")]
    with ScriptedServer(*script) as server:
        (result,), _, _ = chat(runtime, server.url, "Hi", env={"CHECK_IN": "on"})
    first, second = server.requests
    assert "check_in" in [tool["function"]["name"] for tool in first["tools"]]
    assert first["tool_choice"] == {"type": "function", "function": {"name": "check_in"}}
    assert "tool_choice" not in second
    assert tool_results(second) == [("call_1", "hello Ada")]
    assert result.answer == "Hello Ada."


def test_parallel_calls_run_at_once_and_their_results_keep_the_call_order(runtime: Runtime) -> None:
    calls = call(("wait", '{"seconds": 0.6}'), ("wait", '{"seconds": 0.3}'), ("lookup_ticket", '{"ticket": "T-1"}'))
    with ScriptedServer(calls, say("All done.")) as server:
        (result,), recorder, _ = chat(runtime, server.url, "Wait twice and look T-1 up")
    assert result.answer == "All done." and result.steps == 2
    tools = [(kind, what, at) for kind, what, at in recorder.events if kind in ("started", "finished")]
    assert [(kind, what) for kind, what, _ in tools[:3]] == [
        ("started", "call_1 wait"),
        ("started", "call_2 wait"),
        ("started", "call_3 lookup_ticket"),
    ]
    finished = [what for kind, what, _ in tools if kind == "finished"]
    assert finished == ["call_3 lookup_ticket", "call_2 wait", "call_1 wait"]  # as they completed
    assert tools[-1][2] - tools[0][2] < 0.85  # one after the other would take 0.9 s at least
    assert tool_results(server.requests[1]) == [
        ("call_1", "waited 0.6"),
        ("call_2", "waited 0.3"),
        ("call_3", '{"ticket":"T-1","status":"open"}'),
    ]
    assistant = server.requests[1]["messages"][2]
    assert assistant["role"] == "assistant" and [item["id"] for item in assistant["tool_calls"]] == [
        "call_1",
        "call_2",
        "call_3",
    ]
    assert [item.call_id for item in result.results] == ["call_1", "call_2", "call_3"]


def test_errors_go_back_to_the_model_as_results_it_can_correct(runtime: Runtime) -> None:
    bad = call(("lookup_ticket", '{"ticket": '), ("lookup_ticket", '{"ticket": "secret-value"}'), ("explode", "{}"))
    fixed = call(("lookup_ticket", '{"ticket": "T-2"}'))
    with ScriptedServer(bad, fixed, say("T-2 is closed.")) as server:
        (result,), _, _ = chat(runtime, server.url, "Look up my ticket")
    assert [item.error_type for item in result.results] == ["invalid_json", "validation", "execution", None]
    (invalid, violation, raised) = tool_results(server.requests[1])
    assert invalid == ("call_1", "The arguments are not valid JSON: Expecting value at line 1 column 12.")
    assert violation[1].startswith(
        "The arguments do not match the tool's input schema:\n- ticket: String should match pattern"
    )
    assert "secret-value" not in violation[1]
    assert raised == ("call_3", "The tool failed: RuntimeError: the desk is on fire")
    assert tool_results(server.requests[2])[-1] == ("call_4", '{"ticket":"T-2","status":"closed"}')
    assert result.answer == "T-2 is closed."


def test_calls_to_tools_not_offered_are_refused(runtime: Runtime) -> None:
    with ScriptedServer(call(("refund", '{"ticket": "T-1"}'), ("no_such_tool", "{}")), say("I cannot.")) as server:
        (result,), _, _ = chat(runtime, server.url, "Refund T-1")  # the back office is closed
    refused, unknown = tool_results(server.requests[1])
    assert refused == ("call_1", "The tool 'refund' is not available right now; do not call it this turn.")
    assert unknown[1].startswith(
        "There is no tool named 'no_such_tool'. The tools are: close_ticket, explode, lookup_ticket, wait."
    )
    assert [item.error_type for item in result.results] == ["not_offered", "unknown_tool"]


def test_text_that_comes_with_tool_calls_is_shown_and_kept(runtime: Runtime) -> None:
    with ScriptedServer(
        call(("lookup_ticket", '{"ticket": "T-1"}'), text="Let me look."), say("It is open.")
    ) as server:
        (result,), recorder, messages = chat(runtime, server.url, "T-1?")
    assert "".join(recorder.texts) == "Let me look.It is open."
    assert server.requests[1]["messages"][2]["content"] == "Let me look."
    assert [message["role"] for message in messages] == ["user", "assistant", "tool", "assistant"]
    assert result.answer == "It is open."


def test_the_step_bound_ends_the_turn_and_the_conversation_goes_on(runtime: Runtime) -> None:
    looping = [call(("lookup_ticket", '{"ticket": "T-1"}')) for _ in range(3)]
    with ScriptedServer(*looping, say("Sorry about that.")) as server:
        (stopped, answered), _, messages = chat(runtime, server.url, "Loop", "Answer now", max_steps=3)
    assert stopped.stopped and stopped.steps == 3 and stopped.answer == "" and len(stopped.results) == 3
    assert not answered.stopped and answered.answer == "Sorry about that."
    assert len(server.requests) == 4
    roles = [message["role"] for message in server.requests[3]["messages"]]
    assert roles == ["system", "user", *["assistant", "tool"] * 3, "user"]
    assert len(messages) == 9


def test_approval_is_asked_with_the_arguments_and_a_refusal_is_a_result(runtime: Runtime) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    def approver(name: str, arguments: dict[str, Any]) -> bool:
        asked.append((name, arguments))
        return bool(arguments["ticket"] == "T-1")

    close = call(("close_ticket", '{"ticket": "T-1"}'), ("close_ticket", '{"ticket": "T-2"}'))
    with ScriptedServer(close, say("Closed one."), close, say("Closed none.")) as server:
        chat(runtime, server.url, "Close both", approver=approver)
        chat(runtime, server.url, "Close both")  # nobody to approve
    assert sorted(asked, key=str) == [("close_ticket", {"ticket": "T-1"}), ("close_ticket", {"ticket": "T-2"})]
    assert tool_results(server.requests[1]) == [
        ("call_1", "closed T-1"),
        ("call_2", f"A person declined to run this tool.\n{DENIED_NOTE}"),
    ]
    denied = f"This tool needs a person's approval, and nobody is here to give it.\n{DENIED_NOTE}"
    assert tool_results(server.requests[3]) == [("call_3", denied), ("call_4", denied)]


def test_an_unreachable_endpoint_is_a_model_error_and_leaves_no_trace(runtime: Runtime) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    messages: list[Message] = [{"role": "user", "content": "earlier"}, {"role": "assistant", "content": "yes"}]
    with pytest.raises(ModelError) as caught:
        chat(runtime, url, "Hi", messages=messages)
    assert caught.value.message.startswith(f"cannot reach the model endpoint at {url}")
    assert caught.value.hint == "is the server running, and is --base-url (or OPENAI_BASE_URL) right?"
    assert messages == [{"role": "user", "content": "earlier"}, {"role": "assistant", "content": "yes"}]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (fail(401, "Incorrect API key provided: sk-secret-123."), "refused the API key (HTTP 401)"),
        (
            fail(404, f"The model `{MODEL}` does not exist."),
            f"has no model '{MODEL}' (HTTP 404: The model `{MODEL}` does not exist.)",
        ),
        (
            fail(400, "this model does not support tools, sk-secret-123"),
            "answered HTTP 400: this model does not support tools, ***",
        ),
    ],
    ids=["auth", "no-model", "bad-request"],
)
def test_endpoint_errors_say_what_failed_and_never_show_the_key(
    runtime: Runtime, reply: Scripted, expected: str
) -> None:
    with ScriptedServer(reply) as server, pytest.raises(ModelError) as caught:
        chat(runtime, server.url, "Hi", api_key="sk-secret-123")
    assert caught.value.message.startswith(f"the model endpoint at {server.url} ")
    assert caught.value.message.endswith(expected)
    assert "sk-secret" not in f"{caught.value.message} {caught.value.hint}"
    assert server.headers[0]["authorization"] == "Bearer sk-secret-123"
