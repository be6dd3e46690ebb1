"""A chat turn's offer waits for the conditions at most its budget, failing closed.

The project has a sync condition that sleeps 20 s (counting its starts in a file), an
async one that awaits 20 s, and a fast tool: within the budget the slow ones are hidden
and the fast one offered, and a hanging sync condition is not started again (no new
thread) while its earlier evaluation still runs.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_support import MODEL, ScriptedServer, say
from runtime_support import compile_tree, run, write_project
from skillc.contracts.errors import ConfigError
from skillc.runtime.agent import CHAT_KEYS, DEFAULT_CONDITION_BUDGET, AgentLoop, TurnResult, chat_config
from skillc.runtime.context import ToolContext
from skillc.runtime.loader import Runtime, load_dist
from skillc.runtime.models import Message, ModelSettings
from skillc.runtime.openai_chat import OpenAIChatModel

BUDGET = 1.0
LATE = f"its condition() did not answer within the turn's {BUDGET:g} s budget"

TOOLS = '''\
import asyncio
import time
from pathlib import Path

from pydantic import BaseModel

from skillc import Tool, ToolContext, tool

COUNTER = Path({counter!r})


class NoInput(BaseModel):
    pass


class Base(Tool):
    description = "A tool with a slow condition."
    input_schema = NoInput

    def execute(self, input: NoInput, ctx: ToolContext) -> str:
        return self.name


@tool
def fast() -> str:
    """Offered on every turn."""
    return "fast"


class Sleepy(Base):
    name = "sleepy"

    def condition(self) -> bool:
        started = int(COUNTER.read_text()) if COUNTER.exists() else 0
        COUNTER.write_text(str(started + 1))
        time.sleep(20)
        return True


class AsyncSleepy(Base):
    name = "async_sleepy"

    async def condition(self) -> bool:
        await asyncio.sleep(20)
        return True


sleepy = Sleepy()
async_sleepy = AsyncSleepy()
'''

AGENT = """\
from skillc import Agent, Skill

from tools import async_sleepy, fast, sleepy

main = Skill(name="main", description="Everything.", context="Main context.", tools=[fast, sleepy, async_sleepy])
agent = Agent(name="budgeted", persona="Offers what answers in time.", skills=[main])
"""


@pytest.fixture
def counter(tmp_path: Path) -> Path:
    return tmp_path / "started.txt"


@pytest.fixture
def runtime(tmp_path: Path, counter: Path) -> Iterator[Runtime]:
    project = write_project(
        tmp_path / "budgeted", "budgeted", {"tools.py": TOOLS.format(counter=str(counter)), "agent.py": AGENT}
    )
    with load_dist(compile_tree(project)) as loaded:
        yield loaded


def _reasons(runtime: Runtime, budget: float | None) -> tuple[dict[str, str], frozenset[str], float]:
    started = time.perf_counter()
    found = run(runtime.offer(ToolContext(), budget=budget))
    return {item.name: item.reason for item in found.hidden}, found.names, time.perf_counter() - started


def test_an_offer_with_a_budget_hides_what_did_not_answer_in_time(runtime: Runtime, counter: Path) -> None:
    reasons, names, elapsed = _reasons(runtime, BUDGET)
    assert elapsed < 10
    assert names == frozenset(["fast"])
    assert reasons == {"sleepy": LATE, "async_sleepy": LATE}
    # Again: the sync condition still sleeps, so it is hidden without being started again.
    reasons, names, elapsed = _reasons(runtime, BUDGET)
    assert elapsed < 10
    assert names == frozenset(["fast"])
    assert reasons["sleepy"].startswith(LATE) and "still running" in reasons["sleepy"]
    assert reasons["async_sleepy"] == LATE
    assert counter.read_text() == "1"


def test_without_a_budget_each_condition_keeps_its_own_timeout(tmp_path: Path, counter: Path) -> None:
    project = write_project(
        tmp_path / "timed", "timed", {"tools.py": TOOLS.format(counter=str(counter)), "agent.py": AGENT}
    )
    with load_dist(compile_tree(project), condition_timeout=0.5) as loaded:
        reasons, names, elapsed = _reasons(loaded, None)
    assert elapsed < 10
    assert names == frozenset(["fast"])
    assert reasons == {name: "its condition() did not return within 0.5 s" for name in ("sleepy", "async_sleepy")}


def test_chat_turns_do_not_wait_for_hanging_conditions_nor_pile_up_threads(runtime: Runtime, counter: Path) -> None:
    turns = ["one", "two", "three"]
    with ScriptedServer(*(say(f"Answer {text}.") for text in turns)) as server:

        async def chat() -> list[tuple[TurnResult, float]]:
            settings = ModelSettings(model=MODEL, base_url=server.url, stream=True, timeout=10, max_retries=0)
            model = OpenAIChatModel(settings, "test")
            loop = AgentLoop(runtime, model, ToolContext(), condition_budget=BUDGET)
            messages: list[Message] = []
            timed: list[tuple[TurnResult, float]] = []
            try:
                for text in turns:
                    started = time.perf_counter()
                    result = await loop.turn(messages, text)
                    timed.append((result, time.perf_counter() - started))
            finally:
                await model.aclose()
            return timed

        timed = asyncio.run(chat())
    written_off = runtime.store.pool.written_off
    assert [result.answer for result, _ in timed] == ["Answer one.", "Answer two.", "Answer three."]
    for result, elapsed in timed:
        assert elapsed < 10
        assert result.offer is not None
        assert result.offer.names == frozenset(["fast"])
        assert (result.offer.reason("sleepy") or "").startswith(LATE)
        assert result.offer.reason("async_sleepy") == LATE
    # The hanging sync condition was started once, and one thread written off for it.
    assert counter.read_text() == "1"
    assert written_off == 1
    assert [tool["function"]["name"] for tool in server.requests[-1]["tools"]] == ["fast"]


def test_condition_budget_is_read_and_checked() -> None:
    assert "condition_budget" in CHAT_KEYS
    assert chat_config({}, environ={}).condition_budget == DEFAULT_CONDITION_BUDGET == 2.0
    assert chat_config({"condition_budget": 5}, environ={}).condition_budget == 5.0
    assert chat_config({"condition_budget": 0.5}, environ={}).warnings == ()
    for bad in (0, -1, True, "2", float("inf"), float("nan")):
        with pytest.raises(ConfigError, match="condition_budget"):
            chat_config({"condition_budget": bad}, environ={})
