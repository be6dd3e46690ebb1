"""A model that will not stop calling tools: refusals, repeats and floods of calls stay bounded."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from chat_support import MODEL, ScriptedServer, call, compiled_project, say
from helpers import RunSkill
from skillc.contracts.errors import ConfigError
from skillc.runtime.agent import DENIED_NOTE, AgentLoop, TurnResult, chat_config
from skillc.runtime.call import Approver
from skillc.runtime.context import ToolContext
from skillc.runtime.loader import load_dist
from skillc.runtime.models import Message, ModelSettings, Reply, ToolCall
from skillc.runtime.openai_chat import OpenAIChatModel
from skillc.runtime.results import ToolResult

CLOSE = ("close_ticket", '{"ticket": "T-1"}')


class Counter:
    def __init__(self) -> None:
        self.started: list[str] = []

    def text(self, delta: str) -> None:
        pass

    def reply(self, reply: Reply) -> None:
        pass

    def tool_started(self, call: ToolCall) -> None:
        self.started.append(call.name)

    def tool_finished(self, call: ToolCall, result: ToolResult) -> None:
        pass


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled_project("desk", tmp_path_factory.mktemp("runaway"))


def turn(desk: Path, url: str, text: str, **options: Any) -> tuple[TurnResult, Counter]:
    counter = Counter()
    approver: Approver | None = options.pop("approver", None)

    async def run() -> TurnResult:
        settings = ModelSettings(model=MODEL, base_url=url, stream=False, timeout=10, max_retries=0)
        model = OpenAIChatModel(settings, "test")
        with load_dist(desk / "dist") as runtime:
            loop = AgentLoop(runtime, model, ToolContext(env={}), approver=approver, events=counter, **options)
            try:
                messages: list[Message] = []
                return await loop.turn(messages, text)
            finally:
                await model.aclose()

    return asyncio.run(run()), counter


def contents(request: dict[str, Any]) -> list[str]:
    return [message["content"] for message in request["messages"] if message["role"] == "tool"]


def test_a_refused_tool_is_withdrawn_for_the_turn_and_never_asked_again(desk: Path) -> None:
    asked: list[str] = []

    def no(name: str, arguments: dict[str, Any]) -> bool:
        asked.append(name)
        return False

    # After the refusal the model tries the same call, then other tickets (as a small model does).
    script = [
        call(CLOSE),
        call(CLOSE),
        call(("close_ticket", '{"ticket": "T-2"}')),
        call(("close_ticket", '{"ticket": "T-3"}')),
        say("I did not close it."),
    ]
    with ScriptedServer(*script) as server:
        result, counter = turn(desk, server.url, "Close T-1", approver=no)
    assert result.answer == "I did not close it." and not result.stopped
    assert asked == ["close_ticket"]  # asked once: the later calls never reached the call path
    assert counter.started == ["close_ticket"]
    first = contents(server.requests[1])[-1]
    assert first.startswith("A person declined to run this tool.") and DENIED_NOTE in first
    for request in server.requests[2:5]:
        later = contents(request)[-1]
        assert later == f"Not run: a call of close_ticket was refused in this turn.\n{DENIED_NOTE}"
    offered = [[tool["function"]["name"] for tool in request.get("tools", [])] for request in server.requests]
    assert "close_ticket" in offered[0]
    assert all("close_ticket" not in names and "lookup_ticket" in names for names in offered[1:])
    assert [r.error_type for r in result.results] == ["approval_denied"] * 4


def test_a_failed_call_repeated_is_answered_from_memory_then_withdrawn(desk: Path) -> None:
    script = [call(("explode", "{}")) for _ in range(5)] + [say("It keeps failing.")]
    with ScriptedServer(*script) as server:
        result, counter = turn(desk, server.url, "Try the desk")
    assert result.answer == "It keeps failing." and not result.stopped
    assert counter.started == ["explode"]  # run once; the repeats and the withdrawn call never ran
    assert "RuntimeError: the desk is on fire" in contents(server.requests[1])[-1]
    for request in server.requests[2:5]:
        repeated = contents(request)[-1]
        assert repeated.startswith("Not run again: this exact call already failed") and "on fire" in repeated
    offered = [[tool["function"]["name"] for tool in request.get("tools", [])] for request in server.requests]
    assert all("explode" in names for names in offered[:4])
    assert all("explode" not in names for names in offered[4:])  # withdrawn after 3 repeats
    assert "explode was withdrawn for this turn" in contents(server.requests[5])[-1]
    assert [r.error_type for r in result.results] == ["execution"] * 4 + ["call_limit"]


def test_one_reply_with_a_thousand_calls_runs_only_the_cap(desk: Path) -> None:
    flood = call(*[("lookup_ticket", json.dumps({"ticket": "T-1"})) for _ in range(1000)])
    with ScriptedServer(flood, say("Done.")) as server:
        result, counter = turn(desk, server.url, "Look it up a lot")
    assert result.answer == "Done." and not result.stopped
    assert len(counter.started) == 16
    assert len(result.results) == 1000
    limited = [r for r in result.results if r.error_type == "call_limit"]
    assert len(limited) == 984 and "at most 16 tool calls run per reply" in limited[0].output
    assert len(contents(server.requests[1])) == 1000  # every call id has its result


def test_the_cap_per_turn_ends_the_turn(desk: Path) -> None:
    many = call(*[("lookup_ticket", '{"ticket": "T-1"}') for _ in range(4)])
    with ScriptedServer(many, many, many, say("never")) as server:
        result, counter = turn(desk, server.url, "Again", max_tool_calls_per_turn=6)
    assert result.stopped and "more than 6 tool calls" in result.reason
    assert len(counter.started) == 6 and len(server.requests) == 2


def test_the_caps_are_settings(desk: Path) -> None:
    table = {"max_tool_calls_per_step": 3, "max_tool_calls_per_turn": 9}
    config = chat_config(table, environ={})
    assert (config.max_tool_calls_per_step, config.max_tool_calls_per_turn, config.warnings) == (3, 9, ())
    for bad in (0, -1, True, "8", 1.5):
        with pytest.raises(ConfigError, match="max_tool_calls_per_step"):
            chat_config({"max_tool_calls_per_step": bad}, environ={})


def test_m_exits_1_with_the_reason_when_the_cap_per_turn_ends_the_turn(skill: RunSkill, desk: Path) -> None:
    pyproject = desk / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "max_tool_calls_per_turn = 2\n")
    env = {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": "", "SKILL_MODEL": ""}
    many = call(*[("lookup_ticket", '{"ticket": "T-1"}') for _ in range(3)])
    with ScriptedServer(many, say("never")) as server:
        result = skill("chat", "--model", MODEL, "--base-url", server.url, "-m", "Go", cwd=desk, env=env)
    assert result.code == 1, result.stderr
    assert "Stopped: the model asked for more than 2 tool calls this turn" in result.stderr
    assert len(server.requests) == 1
