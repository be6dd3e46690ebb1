"""At call time, a coroutine that a call's code drops unawaited fails the call (``runtime.unawaited``).

The compiler reports the drops it can prove (``skill/unawaited-coroutine``).  These tools drop
theirs where it cannot see: through a helper given the coroutine function as an argument, or
a data store collection handed to an unannotated helper.  Without the net each call said
"success" and none of the dropped work ran.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import SKILL, run_command
from helpers import write_project as write_cli_project
from runtime_support import compile_tree, run, write_project
from skillc.compiler.check_projects import agent
from skillc.runtime.context import ToolContext
from skillc.runtime.loader import Runtime, load_dist
from skillc.runtime.results import ToolResult

# Python's own warning still goes out (as an error under -W error, raised where nothing can catch it).
pytestmark = pytest.mark.filterwarnings(
    "ignore:coroutine '.*' was never awaited:RuntimeWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)

TOOLS = """\
import asyncio
import gc

from skillc import Tool, tool

LOG = []
TASKS = set()


async def record(note):
    LOG.append(note)
    await asyncio.sleep(0)


def save(make, note):
    make(note)


@tool
async def drops(note: str) -> str:
    \"\"\"Keep a note, but drop the coroutine.\"\"\"
    save(record, note)
    return "saved"


@tool
def drops_in_a_thread(note: str) -> str:
    \"\"\"A sync tool, in a worker thread.\"\"\"
    save(record, note)
    return "saved"


@tool
async def drops_twice(note: str) -> str:
    \"\"\"Two drops.\"\"\"
    save(record, note)
    save(record, note)
    return "saved"


@tool
async def drops_and_raises(note: str) -> str:
    \"\"\"Drops one, then fails.\"\"\"
    save(record, note)
    raise ValueError("no such note")


@tool
async def drops_after_awaiting(note: str) -> str:
    \"\"\"Drops one after it suspended once.\"\"\"
    await asyncio.sleep(0)
    save(record, note)
    return "saved"


@tool
async def awaits(note: str) -> str:
    \"\"\"Keeps the note.\"\"\"
    await record(note)
    return str(len(LOG))


@tool
async def starts_a_task(note: str) -> str:
    \"\"\"Keeps the note in a task of its own.\"\"\"
    task = asyncio.get_running_loop().create_task(record(note))
    TASKS.add(task)
    task.add_done_callback(TASKS.discard)
    return "started"


@tool
async def drops_later(note: str) -> str:
    \"\"\"Its task drops one after the call has its result.\"\"\"

    async def later():
        await asyncio.sleep(0)
        save(record, note)

    task = asyncio.get_running_loop().create_task(later())
    TASKS.add(task)
    task.add_done_callback(TASKS.discard)
    return "started"


@tool
async def keeps_one_in_a_cycle(note: str) -> str:
    \"\"\"Leaves an unawaited coroutine that only the garbage collector finds.\"\"\"
    gc.disable()
    holder = {}
    holder["itself"] = holder
    holder["coroutine"] = record(note)
    return "kept"


@tool
async def collects(note: str) -> str:
    \"\"\"Runs the garbage collector, which finds another call's coroutine.\"\"\"
    gc.enable()
    gc.collect()
    return "collected"


@tool
async def logged(note: str) -> str:
    \"\"\"What LOG holds.\"\"\"
    return ",".join(LOG)


class Checked(Tool):
    name = "checked"
    description = "Offered when its condition says so."

    async def condition(self):
        save(record, "condition")
        return True

    async def execute(self, input, ctx):
        return "ran"
"""

NAMES = (
    "drops",
    "drops_in_a_thread",
    "drops_twice",
    "drops_and_raises",
    "drops_after_awaiting",
    "awaits",
    "starts_a_task",
    "drops_later",
    "keeps_one_in_a_cycle",
    "collects",
    "logged",
    "Checked()",
)

AGENT = f"""\
from skillc import Agent, Skill

from tools import Checked, {", ".join(NAMES[:-1])}

notes = Skill(name="notes", description="Notes.", tools=[{", ".join(NAMES)}])
agent = Agent(name="notes", persona="Keeps notes.", skills=[notes])
"""

FAILED = "The tool failed: its code made a coroutine that nothing awaited, so part of its work never ran: "
DROPPED = "record(), dropped in save (tools, line 16)"
ARGUMENTS = '{"note": "n1"}'


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = write_project(tmp_path_factory.mktemp("unawaited"), "unawaited", {"tools.py": TOOLS, "agent.py": AGENT})
    return compile_tree(project)


@pytest.fixture
def runtime(dist: Path) -> Iterator[Runtime]:
    with load_dist(dist) as loaded:
        yield loaded


def call(runtime: Runtime, name: str, arguments: str = ARGUMENTS) -> ToolResult:
    return run(runtime.call(name, arguments, "c1", ToolContext()))


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]


@pytest.mark.parametrize("name", ["drops", "drops_in_a_thread", "drops_after_awaiting"])
def test_a_dropped_coroutine_fails_the_call_and_is_logged(
    runtime: Runtime, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    result = call(runtime, name)
    assert (result.is_error, result.error_type) == (True, "execution")
    assert result.output == FAILED + DROPPED + ". Its result was not sent."
    assert warnings_of(caplog) == [
        f"tool {name!r} (call c1) made a coroutine that nothing awaited, so none of its body ran: {DROPPED}"
    ]
    assert call(runtime, "logged").output == ""  # none of record's body ran


def test_every_drop_is_logged_and_counted(runtime: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    result = call(runtime, "drops_twice")
    assert result.output == FAILED + DROPPED + " (and 1 more). Its result was not sent."
    assert len(warnings_of(caplog)) == 2


def test_an_error_the_call_had_stays_its_result(runtime: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    result = call(runtime, "drops_and_raises")
    assert (result.error_type, result.output) == ("execution", "The tool failed: ValueError: no such note")
    assert any(DROPPED in message for message in warnings_of(caplog))


def test_awaited_coroutines_and_tasks_are_no_drops(runtime: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    async def calls() -> list[ToolResult]:
        results = [await runtime.call(name, ARGUMENTS, "c1", ToolContext()) for name in ("awaits", "starts_a_task")]
        await asyncio.sleep(0.05)  # the task's turn
        return [*results, await runtime.call("logged", ARGUMENTS, "c2", ToolContext())]

    assert [(result.is_error, result.output) for result in run(calls())] == [
        (False, "1"),
        (False, "started"),
        (False, "n1,n1"),
    ]
    assert warnings_of(caplog) == []


def test_a_drop_after_the_result_is_logged(runtime: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    async def calls() -> ToolResult:
        result = await runtime.call("drops_later", ARGUMENTS, "c9", ToolContext())
        await asyncio.sleep(0.05)  # the task's turn
        return result

    result = run(calls())
    assert (result.is_error, result.output) == (False, "started")
    assert warnings_of(caplog) == [
        "tool 'drops_later' (call c9), after its result, made a coroutine that nothing awaited, so none of its "
        "body ran: record(), dropped in save (tools, line 16)"
    ]


def test_a_coroutine_the_garbage_collector_finds_fails_no_other_call(
    runtime: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    try:
        assert call(runtime, "keeps_one_in_a_cycle").output == "kept"
        assert call(runtime, "collects").output == "collected"  # it finalized the other call's coroutine
    finally:
        import gc

        gc.enable()
    assert warnings_of(caplog) == []


def test_a_condition_that_drops_a_coroutine_hides_its_tool(runtime: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    offer = run(runtime.offer(ToolContext()))
    why = "its condition() made a coroutine that nothing awaited: record(), dropped in save (tools, line 16)"
    assert "checked" not in offer.names
    assert offer.reason("checked") == why
    assert "drops" in offer.names
    assert warnings_of(caplog) == [f"tool 'checked' is hidden this turn: {why}"]


# --- through skill test: the data store, handed to a helper the compiler cannot type -------------------

NOTES = """\
from pydantic import BaseModel

from skillc import Tool, ToolContext


class NoteInput(BaseModel):
    note: str


def save(notes, note):
    notes.acreate({"note": note})


class Note(Tool):
    name = "note"
    description = "Keep a note."
    input_schema = NoteInput

    async def execute(self, input: NoteInput, ctx: ToolContext) -> dict[str, bool]:
        save(ctx.data["notes"], input.note)
        return {"saved": True}
"""


def test_skill_test_says_the_store_was_not_written(tmp_path: Path) -> None:
    write_cli_project(tmp_path, {"notes.py": NOTES, "agent.py": agent("Note()", "from notes import Note")})
    finished = run_command([str(SKILL), "test", "--name", "note", "--input", '{"note": "hi"}'], cwd=tmp_path)
    assert finished.code == 1, finished.stdout + finished.stderr
    dropped = "Collection.acreate(), dropped in save (notes, line 11)"
    assert FAILED + dropped + ". Its result was not sent." in finished.stdout
    assert (
        f"warning: tool 'note' (call skill-test) made a coroutine that nothing awaited, so none of its body ran: "
        f"{dropped}"
    ) in finished.stderr
    listed = run_command([str(SKILL), "data", "collections", "--json"], cwd=tmp_path)
    assert listed.code == 0, listed.stderr
    assert json.loads(listed.stdout) == [], listed.stdout  # nothing was written
