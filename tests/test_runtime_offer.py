"""Offers: every condition evaluated at once, and anything but ``True`` hides (fail closed).

``tests/runtime_projects/conditions`` has tools whose conditions say yes (sync and
async), say no, raise, hang (sync and async), return a non-bool, or read the context;
and a skill whose own condition gates its tool and its context.
"""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from runtime_support import compile_case, run
from skillc.runtime.context import ToolContext
from skillc.runtime.loader import Runtime, load_dist
from skillc.runtime.offer import Offer

TIMEOUT = 0.3
ALWAYS_OFFERED = ["always", "yes", "async_yes"]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_case("conditions", tmp_path_factory.mktemp("conditions"))


@pytest.fixture
def runtime(dist: Path) -> Iterator[Runtime]:
    with load_dist(dist, condition_timeout=TIMEOUT) as loaded:
        yield loaded


def offer(runtime: Runtime, **env: str) -> Offer:
    return run(runtime.offer(ToolContext(env=env)))


def test_only_what_the_conditions_allow_is_offered(runtime: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="skillc.runtime")
    started = time.perf_counter()
    found = offer(runtime)
    elapsed = time.perf_counter() - started

    assert [tool.name for tool in found.tools] == ALWAYS_OFFERED
    assert found.names == frozenset(ALWAYS_OFFERED)
    assert [definition["name"] for definition in found.definitions] == ALWAYS_OFFERED
    assert found.definitions[0]["type"] == "function"
    reasons = {(item.kind, item.name): item.reason for item in found.hidden}
    assert reasons == {
        ("skill", "gated"): "its condition() returned False",
        ("tool", "no"): "its condition() returned False",
        ("tool", "broken"): "its condition() raised RuntimeError: the flag service is down",
        ("tool", "hangs"): f"its condition() did not return within {TIMEOUT:g} s",
        ("tool", "async_hangs"): f"its condition() did not return within {TIMEOUT:g} s",
        ("tool", "not_bool"): "its condition() returned NoneType, not True or False",
        ("tool", "env_gate"): "its condition() returned False",
        ("tool", "gated_tool"): "its skill 'gated' is hidden",
    }
    assert found.reason("broken") == reasons[("tool", "broken")]
    assert found.reason("always") is None
    # Hidden skills take their context with them.
    assert found.contexts == {"main": "Main context."}
    # Evaluated concurrently: two hanging conditions cost one timeout, not two.
    assert elapsed < TIMEOUT * 1.9 + 0.5
    logged = {(record.levelname, record.getMessage()) for record in caplog.records}
    assert (
        "WARNING",
        "tool 'broken' is hidden this turn: its condition() raised RuntimeError: the flag service is down",
    ) in logged
    assert ("INFO", "tool 'no' is hidden this turn: its condition() returned False") in logged


def test_conditions_see_the_turns_context(runtime: Runtime) -> None:
    found = offer(runtime, GATED="on", FEATURE="on")
    assert found.names == frozenset([*ALWAYS_OFFERED, "env_gate", "gated_tool"])
    assert found.contexts == {"main": "Main context.", "gated": "Gated context."}
    assert [skill.name for skill in found.skills] == ["main", "gated"]


def test_a_tool_hidden_this_turn_cannot_be_called(runtime: Runtime) -> None:
    async def scenario() -> tuple[str | None, str | None]:
        context = ToolContext()
        turn = await runtime.offer(context)
        refused = await runtime.call("no", {}, "c1", context, offered=turn.names)
        allowed = await runtime.call("yes", {}, "c2", context, offered=turn.names)
        return refused.error_type, allowed.output

    assert run(scenario()) == ("not_offered", "yes")


def test_the_condition_timeout_is_configurable(dist: Path) -> None:
    with load_dist(dist) as runtime:
        started = time.perf_counter()
        found = run(runtime.offer(ToolContext(), timeout=0.1))
    assert time.perf_counter() - started < 1.5
    assert found.reason("async_hangs") == "its condition() did not return within 0.1 s"


def test_a_tampered_bundle_hides_its_tool_and_a_tampered_condition_its_skill(dist: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(dist, tmp_path / "dist")
    for relative in ("tools/yes/bundle.zip", "skills/gated/condition.zip"):
        path = copy / relative
        path.write_bytes(path.read_bytes()[:-1])
    with load_dist(copy, condition_timeout=TIMEOUT) as runtime:
        found = offer(runtime, GATED="on")
    assert "does not match the sha256" in (found.reason("yes") or "")
    assert "does not match the sha256" in (found.reason("gated", "skill") or "")
    assert found.reason("gated_tool") == "its skill 'gated' is hidden"
    assert "always" in found.names


def test_tools_without_a_condition_are_offered_without_loading_their_bundle(runtime: Runtime) -> None:
    offer(runtime)
    assert "always" not in runtime.loaded
    assert {"yes", "no", "broken"} <= runtime.loaded
