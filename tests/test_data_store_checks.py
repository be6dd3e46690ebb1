"""What tools do with the data store that cannot work: the compiler reports it.

A read of an attribute the data store or a collection lacks raises ``AttributeError``
(``skill/unknown-attribute``); a call of one of their coroutine methods made as a
statement of its own reads and writes nothing (``skill/unawaited-coroutine``).  Each is
reported only where the receiver is surely the store or a collection: what the contract
lists say they have is checked against real instances.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest
from helpers import SKILL, run_command, write_project
from skillc.compiler.api import compile_project
from skillc.compiler.check_projects import AGENT_MODULE
from skillc.contracts.spec import (
    COLLECTION_CLASSES,
    COLLECTION_COROUTINES,
    COLLECTION_MEMBERS,
    DATA_STORE_COROUTINES,
    DATA_STORE_MEMBERS,
)
from skillc.runtime.context import ToolContext
from skillc.runtime.data import Collection, DataStore


def test_the_contract_lists_are_what_the_store_and_a_collection_have() -> None:
    def coroutine_methods(cls: type) -> set[str]:
        return {name for name, value in vars(cls).items() if inspect.iscoroutinefunction(value)}

    assert coroutine_methods(DataStore) == DATA_STORE_COROUTINES
    assert coroutine_methods(Collection) == COLLECTION_COROUTINES
    store = ToolContext().data  # a real store (a temporary SQLite file), and a real collection of it
    try:
        assert {name for name in dir(store) if not name.startswith("_")} == DATA_STORE_MEMBERS
        assert {name for name in dir(store["notes"]) if not name.startswith("_")} == COLLECTION_MEMBERS
    finally:
        store.close()
    for qualname in COLLECTION_CLASSES:
        module, _, name = qualname.rpartition(".")
        assert getattr(importlib.import_module(module), name) is Collection


#: A tool module using the data store; ``{body}`` is the rest of the async ``execute``.
STORE_TOOL = """\
from typing import Any

from pydantic import BaseModel
from skillc import Tool, ToolContext
from skillc.runtime.data import Collection


class LookupInput(BaseModel):
    order_id: str


def notes(ctx: ToolContext) -> Collection[dict[str, Any]]:
    return ctx.data["notes"]


async def anotes(ctx: ToolContext) -> Collection[dict[str, Any]]:
    return ctx.data["notes"]


def untyped(ctx):
    return ctx.data["notes"]


async def keep(collection: Collection[dict[str, Any]], plain, ctx) -> None:
    {helper}


class Lookup(Tool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput

    {head}execute(self, input, ctx):
        {body}
        return input.order_id
"""


@pytest.mark.parametrize(
    ("head", "body", "helper", "expected"),
    [
        pytest.param(
            "async def ", 'ctx.data["notes"].acreate({})', "pass", (34, 8, "ctx.data['notes'].acreate"), id="item"
        ),
        pytest.param(
            "async def ", 'ctx.data.collection("notes").apatch("a", {})', "pass", (34, 8, None), id="collection()"
        ),
        pytest.param("async def ", "ctx.data.acollections()", "pass", (34, 8, None), id="store"),
        pytest.param(
            "async def ",
            'kept = ctx.data["notes"]\n        kept.adelete("a")',
            "pass",
            (35, 8, "kept.adelete"),
            id="local",
        ),
        pytest.param("async def ", 'notes(ctx).aget("a")', "pass", None, id="call-not-a-name"),
        pytest.param("async def ", 'kept = notes(ctx)\n        kept.aget("a")', "pass", (35, 8, None), id="helper"),
        pytest.param(
            "async def ", "kept = await anotes(ctx)\n        kept.acount()", "pass", (35, 8, None), id="awaited-helper"
        ),
        pytest.param("async def ", "kept = untyped(ctx)\n        kept.acount()", "pass", None, id="unannotated-helper"),
        pytest.param("async def ", "kept = anotes(ctx)\n        kept.acount()", "pass", None, id="helper-not-awaited"),
        pytest.param("async def ", "pass", "collection.aclear()", (25, 4, None), id="annotated-parameter"),
        pytest.param("async def ", "pass", "plain.aclear()", None, id="unannotated-parameter"),
        pytest.param("async def ", "pass", 'ctx.data["notes"].aclear()', None, id="unannotated-context"),
        pytest.param("async def ", 'await ctx.data["notes"].acreate({})', "pass", None, id="awaited"),
        pytest.param(
            "async def ",
            'import asyncio\n        await asyncio.create_task(ctx.data["notes"].acreate({}))',
            "pass",
            None,
            id="task",
        ),
        pytest.param(
            "async def ",
            'kept = ctx.data["notes"]\n        kept = input\n        kept.acount()',
            "pass",
            None,
            id="bound-twice",
        ),
        pytest.param("def ", 'ctx.data["notes"].acreate({})', "pass", (34, 8, "sync"), id="sync-execute"),
    ],
)
def test_a_dropped_call_of_the_data_store_is_reported_when_its_receiver_is_surely_the_store(
    tmp_path: Path, head: str, body: str, helper: str, expected: tuple[int, int, str | None] | None
) -> None:
    tools = STORE_TOOL.format(head=head, body=body, helper=helper)
    write_project(tmp_path, {"tools.py": tools, "agent.py": AGENT_MODULE})
    report = compile_project(tmp_path, use_cache=False)
    found = [(item.line, item.col) for item in report.diagnostics if item.code == "skill/unawaited-coroutine"]
    assert [item for item in report.diagnostics if item.code != "skill/unawaited-coroutine"] == []
    if expected is None:
        assert found == []
        return
    line, col, shown = expected
    assert found == [(line, col)]
    [diagnostic] = report.diagnostics
    if shown == "sync":
        assert diagnostic.hint == (
            "Lookup.execute is not an async def: call ctx.data['notes'].create(...), which does the same, instead"
        )
    elif shown is not None:
        assert diagnostic.hint == f"await it (await {shown}(...))"
        method = shown.rsplit(".", 1)[1]
        assert diagnostic.message == (
            f"{shown}(...) in Lookup.execute (line {line}) makes a coroutine that nothing awaits: {method} is an "
            "async method of the data store's collections, so none of it runs, and nothing is read or written"
        )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param('ctx.data["notes"].insert_one({})', (34, 8, "did you mean ctx.data['notes'].create?"), id="mongo"),
        pytest.param(
            'await ctx.data["notes"].ainsert_one({})', (34, 14, "did you mean ctx.data['notes'].acreate?"), id="async"
        ),
        pytest.param('ctx.data.colection("notes")', (34, 8, "did you mean ctx.data.collection?"), id="store"),
        pytest.param('kept = ctx.data["notes"]\n        kept.nmae', (35, 8, "did you mean kept.name?"), id="local"),
        pytest.param("kept = notes(ctx)\n        kept.find_all()", (35, 8, "did you mean kept.find?"), id="helper"),
        pytest.param(
            'ctx.data["notes"].acollections()',
            (
                34,
                8,
                "a collection has: clear, count, create, delete, find, find_one, get, insert_many, name, patch, put, "
                "replace, search, store; and an async version of each method, named with an a in front (acreate)",
            ),
            id="store-method-of-a-collection",
        ),
        pytest.param('ctx.data["notes"].name, ctx.data.kind, ctx.data["notes"].store.description', None, id="members"),
        pytest.param("kept = input\n        kept.whatever", None, id="not-the-store"),
        pytest.param("kept = untyped(ctx)\n        kept.whatever", None, id="unannotated-helper"),
        pytest.param('ctx.data["notes"].__class__', None, id="dunder"),
    ],
)
def test_an_attribute_the_store_or_a_collection_lacks_is_reported_with_the_method_meant(
    tmp_path: Path, body: str, expected: tuple[int, int, str] | None
) -> None:
    write_project(
        tmp_path, {"tools.py": STORE_TOOL.format(head="async def ", body=body, helper="pass"), "agent.py": AGENT_MODULE}
    )
    report = compile_project(tmp_path, use_cache=False)
    found = [(item.code, item.line, item.col, item.hint) for item in report.diagnostics]
    assert found == ([] if expected is None else [("skill/unknown-attribute", *expected)])


def test_a_method_the_store_lacks_fails_the_compile(tmp_path: Path) -> None:
    body = 'notes = ctx.data["notes"]\n        notes.insert_one({"order_id": input.order_id})'
    write_project(
        tmp_path, {"tools.py": STORE_TOOL.format(head="def ", body=body, helper="pass"), "agent.py": AGENT_MODULE}
    )
    finished = run_command([str(SKILL), "compile", str(tmp_path)], cwd=tmp_path)
    assert finished.code == 1
    assert (
        "src/tools.py:35:9: error[skill/unknown-attribute] Lookup.execute() reads notes.insert_one, but a collection "
        "of the data store has no attribute insert_one: every call that gets there raises AttributeError"
    ) in finished.stdout
    assert "hint: did you mean notes.create?" in finished.stdout
    assert not (tmp_path / "dist").exists()
