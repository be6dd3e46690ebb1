"""``ctx.state`` hands out copies: a change made in place to one, and not stored again, is lost, and said so.

``ctx.state.setdefault("cart", []).append(item)`` (what code written for a live context object
does: the OpenAI Agents SDK's customer-service example appends to ``context.human_handoffs``)
changed a copy, and the call said nothing.  The call now logs a warning naming the key; code
that stores the copy back, or edits inside ``ctx.state.edit()``, is told nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import SKILL, run_command
from runtime_support import compile_tree, run, write_project
from skillc.runtime.context import ToolContext, ToolState
from skillc.runtime.loader import Runtime, load_dist

TOOLS = '''\
from skillc import ToolContext, tool


@tool
def appends_in_place(item: str, *, ctx: ToolContext) -> str:
    """Adds to the cart's copy only."""
    ctx.state.setdefault("cart", []).append(item)
    return "added"


@tool
def stores_it_back(item: str, *, ctx: ToolContext) -> str:
    """Adds, and stores the cart again."""
    cart = ctx.state.get("cart", [])
    cart.append(item)
    ctx.state["cart"] = cart
    return "added"


@tool
def edits(item: str, *, ctx: ToolContext) -> str:
    """Adds inside an edit."""
    with ctx.state.edit() as state:
        state.setdefault("cart", []).append(item)
    return "added"


@tool
def reads(item: str, *, ctx: ToolContext) -> str:
    """Only reads."""
    return ",".join(ctx.state.get("cart", [])) + "|" + json.dumps(ctx.state.get("profile"))


@tool
async def changes_two_keys(item: str, *, ctx: ToolContext) -> str:
    """Changes two copies, twice one of them."""
    ctx.state["cart"].append(item)
    ctx.state["cart"].append(item)
    ctx.state["profile"]["name"] = item
    return "changed"
'''

AGENT = """\
from skillc import Agent, Skill

from tools import appends_in_place, changes_two_keys, edits, reads, stores_it_back

shop = Skill(name="shop", description="Shop.", tools=[appends_in_place, stores_it_back, edits, reads, changes_two_keys])
agent = Agent(name="shop", persona="Sells.", skills=[shop])
"""

START = {"cart": ["kettle"], "profile": {"name": "Ada"}}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sources = {"tools.py": "import json\n\n" + TOOLS, "agent.py": AGENT}
    return compile_tree(write_project(tmp_path_factory.mktemp("state"), "state-copies", sources))


@pytest.fixture
def runtime(dist: Path) -> Iterator[Runtime]:
    with load_dist(dist) as loaded:
        yield loaded


def call(runtime: Runtime, name: str, state: ToolState) -> str:
    result = run(runtime.call(name, '{"item": "cup"}', "c1", ToolContext(state=state)))
    assert not result.is_error, result.output
    return result.output


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]


def lost(tool: str, key: str) -> str:
    return (
        f"tool {tool!r} (call c1) changed the copy of ctx.state[{key!r}] it read without storing it again, so the "
        f"state still holds the old value: store it back (ctx.state[{key!r}] = ...), or change it inside "
        "`with ctx.state.edit() as state:`"
    )


def test_a_copy_changed_in_place_is_lost_and_said_so(runtime: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    state = ToolState(START)
    assert call(runtime, "appends_in_place", state) == "added"
    assert state.to_dict() == START
    assert warnings_of(caplog) == [lost("appends_in_place", "cart")]


def test_each_key_is_told_once(runtime: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    state = ToolState(START)
    assert call(runtime, "changes_two_keys", state) == "changed"
    assert warnings_of(caplog) == [lost("changes_two_keys", "cart"), lost("changes_two_keys", "profile")]


@pytest.mark.parametrize("tool", ["stores_it_back", "edits", "reads"])
def test_stored_edited_or_only_read_copies_are_no_loss(
    runtime: Runtime, caplog: pytest.LogCaptureFixture, tool: str
) -> None:
    state = ToolState(START)
    call(runtime, tool, state)
    expected = START if tool == "reads" else {**START, "cart": ["kettle", "cup"]}
    assert state.to_dict() == expected
    assert warnings_of(caplog) == []


def test_skill_test_shows_the_warning(dist: Path) -> None:
    finished = run_command(
        [str(SKILL), "test", "--name", "appends_in_place", "--input", '{"item": "cup"}', "--state", json.dumps(START)],
        cwd=dist.parent,
    )
    assert finished.code == 0, finished.stderr
    assert 'State after the call: {"cart": ["kettle"], "profile": {"name": "Ada"}}' in finished.stdout
    assert f"warning: {lost('appends_in_place', 'cart').replace('c1', 'skill-test')}" in finished.stderr
