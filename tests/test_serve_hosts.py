"""A host no one here wrote: the OpenAI Agents SDK runs an agent on the tools ``skill serve`` serves.

The SDK's own MCP clients (``MCPServerStdio``, which starts ``skill serve``, and
``MCPServerStreamableHttp``, against ``skill serve --transport http``) list the tools, and
its runner, driven by its own scripted test model, calls them as a model's reply asks and
feeds the results back, exactly as it would with a real model.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner
from agents.items import ToolCallOutputItem
from agents.mcp import MCPServer, MCPServerStdio, MCPServerStreamableHttp
from agents.testing import ScriptedModel, assistant_message, function_call
from helpers import SKILL
from runtime_support import run
from serve_support import HttpServer, copy_project


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("serve-hosts"))


@pytest.fixture(scope="module")
def http_server(project: Path) -> Iterator[HttpServer]:
    server = HttpServer(project)
    try:
        yield server
    finally:
        server.stop()


async def _run_agent(server: MCPServer) -> dict[str, Any]:
    """One turn of an Agents SDK agent whose model calls two served tools, then answers."""
    model = ScriptedModel(
        [
            [
                function_call("lookup_order", {"order_id": "A1001"}, call_id="call_1"),
                function_call("add", {"a": 40, "b": 2}, call_id="call_2"),
            ],
            [assistant_message("Order A1001 has shipped.")],
        ]
    )
    async with server:
        listed = await server.list_tools()
        agent = Agent(name="shop", instructions="Help.", model=model, mcp_servers=[server])
        result = await Runner.run(agent, "Where is my order A1001?", run_config=RunConfig(tracing_disabled=True))
    outputs = {
        item.raw_item["call_id"]: item.output for item in result.new_items if isinstance(item, ToolCallOutputItem)
    }  # type: ignore[index]
    first_call = model.calls[0]
    return {
        "listed": [tool.name for tool in listed],
        "offered to the model": sorted(getattr(tool, "name", "") for tool in first_call.tools),
        "outputs": outputs,
        "answer": result.final_output,
    }


def _expected() -> dict[str, Any]:
    tools = ["add", "lookup_order", "explode", "slow", "cancel_order", "chatty"]
    return {
        "listed": tools,
        "offered to the model": sorted(tools),
        "outputs": {
            "call_1": {
                "type": "text",
                "text": json.dumps({"order_id": "A1001", "status": "shipped"}, separators=(",", ":")),
            },
            "call_2": {"type": "text", "text": "42"},
        },
        "answer": "Order A1001 has shipped.",
    }


def test_the_agents_sdk_runs_an_agent_on_the_stdio_server(project: Path) -> None:
    server = MCPServerStdio(
        {"command": str(SKILL), "args": ["serve", str(project)], "env": dict(os.environ)},
        name="shop",
        client_session_timeout_seconds=60,
    )
    assert run(_run_agent(server)) == _expected()


def test_the_agents_sdk_runs_an_agent_on_the_http_server(http_server: HttpServer) -> None:
    server = MCPServerStreamableHttp(
        {"url": http_server.url, "timeout": 60}, name="shop", client_session_timeout_seconds=60
    )
    assert run(_run_agent(server)) == _expected()
