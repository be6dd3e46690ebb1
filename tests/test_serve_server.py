"""The MCP server of a project, in process: the official ``mcp`` client against ``build_server``.

Every test runs in both protocol eras the SDK speaks (``MODES``): the ``initialize``
handshake (2025-11-25) and the stateless envelope (2026-07-28).  What is checked is what a
host receives: the listing (what conditions hide, the compiled schemas, the annotations),
the instructions, and each kind of call result.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from mcp import Client, MCPError
from runtime_support import run
from serve_support import MODES, copy_project
from skillc.project import Project, open_project
from skillc.serve.server import build_server

_T = TypeVar("_T")
SHOWN = ["add", "lookup_order", "explode", "slow", "cancel_order", "chatty"]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    with open_project(copy_project(tmp_path_factory.mktemp("serve"))) as opened:
        yield opened


def with_client(project: Project, mode: str, work: Callable[[Client], Awaitable[_T]], **server: Any) -> _T:
    """Run ``work`` with a client connected in process, in the era ``mode`` negotiates."""

    async def session() -> _T:
        async with Client(build_server(project, **server), mode=mode) as client:
            assert client.protocol_version == MODES[mode]
            return await work(client)

    return run(session())


@pytest.mark.parametrize("mode", MODES)
def test_the_listing_is_the_offer_with_the_compiled_schemas(project: Project, mode: str) -> None:
    async def work(client: Client) -> Any:
        return await client.list_tools()

    listed = with_client(project, mode, work)
    assert [tool.name for tool in listed.tools] == SHOWN  # the reports skill's condition hides sales_report
    dist = project.runtime.dist
    for tool in listed.tools:
        assert tool.input_schema == json.loads((dist / "tools" / tool.name / "input.schema.json").read_text())
    by_name = {tool.name: tool for tool in listed.tools}
    lookup = by_name["lookup_order"]
    assert lookup.output_schema == json.loads((dist / "tools" / "lookup_order" / "output.schema.json").read_text())
    assert lookup.description == "Look up an order by its id."
    assert by_name["add"].output_schema is None


@pytest.mark.parametrize("mode", MODES)
def test_annotations_are_the_settings_and_unset_ones_are_not_sent(project: Project, mode: str) -> None:
    async def work(client: Client) -> Any:
        return await client.list_tools()

    by_name = {tool.name: tool for tool in with_client(project, mode, work).tools}
    add = by_name["add"]
    assert add.title == "Add two numbers"
    assert add.annotations is not None
    assert add.annotations.model_dump(exclude_none=True) == {
        "title": "Add two numbers",
        "read_only_hint": True,
        "idempotent_hint": True,
        "open_world_hint": False,
    }
    # needs_approval: hosts ask their user about a destructive tool
    cancel = by_name["cancel_order"].annotations
    assert cancel is not None and cancel.model_dump(exclude_none=True) == {"destructive_hint": True}
    assert by_name["explode"].annotations is None


@pytest.mark.parametrize("mode", MODES)
def test_instructions_are_the_persona_and_the_offered_skills_contexts(project: Project, mode: str) -> None:
    async def work(client: Client) -> str | None:
        if mode == "legacy":
            return client.session.initialize_result.instructions  # type: ignore[union-attr]
        discovered = await client.session.discover()
        return discovered.instructions

    assert with_client(project, mode, work) == (
        "You help customers with their orders.\n\n## orders\nOrder ids look like A1001."
    )


@pytest.mark.parametrize("mode", MODES)
def test_calls_return_what_the_runtime_returns(project: Project, mode: str) -> None:
    async def work(client: Client) -> dict[str, Any]:
        results = {}
        for name, arguments in [
            ("add", {"a": 2, "b": 3}),
            ("lookup_order", {"order_id": "A1001"}),
            ("lookup_order", {"order_id": "secret-value-9"}),
            ("explode", {}),
            ("slow", {}),
            ("cancel_order", {"order_id": "A1001"}),
            ("sales_report", {}),
            ("chatty", {"text": "hi"}),
        ]:
            result = await client.call_tool(name, arguments)
            key = name if name not in results else f"{name} (invalid)"
            results[key] = (result.is_error, [block.text for block in result.content], result.structured_content)
        return results

    results = with_client(project, mode, work)
    assert results["add"] == (False, ["5"], None)
    assert results["lookup_order"] == (
        False,
        ['{"order_id":"A1001","status":"shipped"}'],
        {"order_id": "A1001", "status": "shipped"},
    )
    is_error, (text,), structured = results["lookup_order (invalid)"]
    assert is_error and structured is None
    assert (
        text
        == "The arguments do not match the tool's input schema:\n- order_id: String should match pattern '^A\\d{4}$'"
    )
    assert "secret-value-9" not in text  # field paths, never values
    assert results["explode"] == (True, ["The tool failed: RuntimeError: the tool broke: boom"], None)
    assert results["slow"] == (True, ["The tool did not finish within 0.3 s."], None)
    assert results["cancel_order"] == (
        True,
        ["This tool needs a person's approval, and nobody is here to give it."],
        None,
    )
    assert results["sales_report"] == (
        True,
        ["The tool 'sales_report' is not available right now; do not call it this turn."],
        None,
    )
    assert results["chatty"] == (False, ["HI"], None)


@pytest.mark.parametrize("mode", MODES)
def test_an_unknown_tool_is_a_protocol_error(project: Project, mode: str) -> None:
    async def work(client: Client) -> tuple[int, str]:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("no_such_tool", {})
        return raised.value.code, raised.value.message

    assert with_client(project, mode, work) == (-32602, "Unknown tool: no_such_tool")


@pytest.mark.parametrize("mode", MODES)
def test_approve_trusts_the_hosts_approval(project: Project, mode: str) -> None:
    async def work(client: Client) -> Any:
        return await client.call_tool("cancel_order", {"order_id": "A1001"})

    result = with_client(project, mode, work, approve=True)
    assert (result.is_error, result.content[0].text) == (False, "cancelled A1001")


@pytest.mark.parametrize("mode", MODES)
def test_a_condition_that_allows_shows_the_skill_and_its_context(tmp_path: Path, mode: str) -> None:
    root = copy_project(tmp_path)
    (root / ".env").write_text("SHOW_REPORTS=on\n", encoding="utf-8")

    async def work(client: Client) -> tuple[list[str], Any]:
        listed = await client.list_tools()
        return [tool.name for tool in listed.tools], await client.call_tool("sales_report", {"month": "2025-02"})

    try:
        with open_project(root) as opened:
            names, result = with_client(opened, mode, work)
    finally:
        os.environ.pop("SHOW_REPORTS", None)  # opening the project exported it; later servers must not inherit it
    assert names == [*SHOWN, "sales_report"]
    assert (result.is_error, result.content[0].text) == (False, '{"month":"2025-02","orders":42}')


@pytest.mark.parametrize("mode", MODES)
def test_a_bundle_changed_after_the_server_started_is_refused(tmp_path: Path, mode: str) -> None:
    with open_project(copy_project(tmp_path)) as opened:
        bundle = opened.runtime.dist / "tools" / "add" / "bundle.zip"
        bundle.write_bytes(bundle.read_bytes() + b"\0")

        async def work(client: Client) -> Any:
            return await client.call_tool("add", {"a": 1, "b": 1})

        result = with_client(opened, mode, work)
    assert result.is_error
    assert result.content[0].text == (
        "The tool cannot run: the bundle of tool 'add' (tools/add/bundle.zip) does not match the sha256 in the "
        "manifest: it changed after it was compiled; recompile with `skill compile`."
    )
