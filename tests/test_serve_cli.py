"""``skill serve`` as a host runs it: a stdio subprocess, and an HTTP server on 127.0.0.1.

The official ``mcp`` client talks to the real command in both protocol eras; the command
compiles the copied project itself on its first start.  Also: ``--print-config`` for each
host, and the usage errors and compile errors a user can cause (a message and an exit
code, never a traceback).
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import SKILL, RunSkill
from mcp import Client, StdioServerParameters
from runtime_support import run
from serve_support import MODES, HttpServer, copy_project, get_json


async def _exercise(client: Client) -> dict[str, Any]:
    """What a host does first: list, then call a tool with an output model, one that prints, one that fails."""
    listed = await client.list_tools()
    lookup = await client.call_tool("lookup_order", {"order_id": "A1001"})
    chatty = await client.call_tool("chatty", {"text": "quiet"})
    failed = await client.call_tool("add", {"a": "two", "b": 3})
    return {
        "version": client.protocol_version,
        "tools": [tool.name for tool in listed.tools],
        "lookup": lookup.structured_content,
        "chatty": chatty.content[0].text,
        "failed": (failed.is_error, failed.content[0].text),
    }


EXPECTED = {
    "tools": ["add", "lookup_order", "explode", "slow", "cancel_order", "chatty"],
    "lookup": {"order_id": "A1001", "status": "shipped"},
    "chatty": "QUIET",
    "failed": (
        True,
        "The arguments do not match the tool's input schema:\n- a: Input should be a valid integer, unable to parse string as an integer",
    ),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("serve-cli"))


@pytest.mark.parametrize("mode", MODES)
def test_stdio_serves_both_eras_and_keeps_the_stream_clean(project: Path, mode: str) -> None:
    # A tool that prints would corrupt the protocol's stream if its output reached stdout.
    parameters = StdioServerParameters(command=str(SKILL), args=["serve", str(project)], env=dict(os.environ))

    async def session() -> dict[str, Any]:
        async with Client(parameters, mode=mode, read_timeout_seconds=60) as client:
            return await _exercise(client)

    assert run(session()) == {"version": MODES[mode], **EXPECTED}


@pytest.fixture(scope="module")
def http_server(project: Path) -> Iterator[HttpServer]:
    server = HttpServer(project)
    try:
        yield server
    finally:
        # uvicorn finishes the requests in flight, then ends by the signal it was sent, as servers do
        assert server.stop() == -signal.SIGTERM, server.output()
        assert "Traceback" not in server.output()


@pytest.mark.parametrize("mode", MODES)
def test_http_serves_both_eras_statelessly(http_server: HttpServer, mode: str) -> None:
    async def session() -> dict[str, Any]:
        async with Client(http_server.url, mode=mode, read_timeout_seconds=60) as client:
            return await _exercise(client)

    assert run(session()) == {"version": MODES[mode], **EXPECTED}


def test_the_health_route_names_the_agent(http_server: HttpServer) -> None:
    assert get_json(f"{http_server.base}/healthz") == (200, {"status": "ok", "agent": "shop", "tools": 7})
    assert f"Serving agent 'shop' (7 tools) over MCP at {http_server.url} (1 worker" in http_server.output()


def test_print_config_for_each_host(skill: RunSkill, project: Path) -> None:
    command = str(SKILL.absolute())
    entry = {"command": command, "args": ["serve", str(project)]}
    claude = skill("serve", str(project), "--print-config", "claude")
    assert claude.code == 0, claude.stderr
    assert claude.stdout.splitlines()[0] == "// claude_desktop_config.json (Settings > Developer > Edit Config)"
    assert json.loads(claude.stdout.split("\n", 1)[1]) == {"mcpServers": {"shop": entry}}

    cursor = skill("serve", str(project), "--print-config", "cursor", "-e", "production")
    assert cursor.code == 0, cursor.stderr
    production = {"command": command, "args": ["serve", str(project), "-e", "production"]}
    assert json.loads(cursor.stdout.split("\n", 1)[1]) == {"mcpServers": {"shop": production}}

    vscode = skill("serve", str(project), "--print-config", "vscode", "--transport", "http", "--port", "9000")
    assert vscode.code == 0, vscode.stderr
    assert json.loads(vscode.stdout.split("\n", 1)[1]) == {
        "servers": {"shop": {"type": "http", "url": "http://127.0.0.1:9000/mcp"}}
    }

    code = skill("serve", str(project), "--print-config", "claude-code")
    assert (code.code, code.stdout) == (0, f"claude mcp add shop -- {command} serve {project}\n")

    agents = skill("serve", str(project), "--print-config", "openai-agents")
    assert agents.code == 0, agents.stderr
    assert f"MCPServerStdio(name='shop', params={entry!r}, cache_tools_list=True)" in agents.stdout
    compile(agents.stdout, "agent.py", "exec")  # the snippet is Python that runs as it is


def test_print_config_refuses_what_a_host_cannot_do(skill: RunSkill, project: Path) -> None:
    refused = skill("serve", str(project), "--print-config", "claude", "--transport", "http")
    assert refused.code == 2
    assert refused.stderr.startswith("error: Claude Desktop starts local servers itself, over stdio\n")
    assert "Traceback" not in refused.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--transport", "http", "--path", "mcp"], "error: --path must be an absolute URL path other than /healthz"),
        (
            ["--transport", "http", "--path", "/healthz"],
            "error: --path must be an absolute URL path other than /healthz",
        ),
        (["--transport", "http", "--workers", "0"], "error: --workers must be at least 1, not 0"),
        (["--workers", "2"], "error: --workers needs --transport http"),
        (["--transport", "sse"], "Invalid value for '--transport'"),
    ],
)
def test_usage_errors_exit_2(skill: RunSkill, project: Path, args: list[str], message: str) -> None:
    finished = skill("serve", str(project), *args)
    assert finished.code == 2
    assert message in finished.stderr
    assert "Traceback" not in finished.stderr and finished.stdout == ""


def test_a_project_that_does_not_compile_exits_1_with_its_report(skill: RunSkill, tmp_path: Path) -> None:
    broken = copy_project(tmp_path)
    (broken / "src" / "tools" / "orders.py").write_text("def broken(:\n", encoding="utf-8")
    finished = skill("serve", str(broken))
    assert finished.code == 1
    assert "error[skill/syntax-error]" in finished.stderr
    assert "error: the project does not compile; fix the errors above first" in finished.stderr
    assert finished.stdout == ""


def test_the_warnings_of_the_compile_it_runs_go_to_stderr(skill: RunSkill, tmp_path: Path) -> None:
    """A stale ``dist/`` is compiled first and its warnings are shown on stderr, never in the
    output a host reads; an up-to-date ``dist/`` shows none."""
    warned = copy_project(tmp_path)
    orders = warned / "src" / "tools" / "orders.py"
    source = orders.read_text(encoding="utf-8") + '\nimport os\n\nREGION = os.environ["SKILLC_TEST_REGION"]\n'
    orders.write_text(source, encoding="utf-8")
    line = source.count("\n")
    first = skill("serve", str(warned), "--print-config", "claude-code")
    assert (first.code, first.stdout) == (0, f"claude mcp add shop -- {SKILL.absolute()} serve {warned}\n")
    assert first.stderr.splitlines()[:3] == [
        f"src/tools/orders.py:{line}:10: warning[skill/environment-at-import] os.environ['SKILLC_TEST_REGION'] is "
        "read when the module is imported: where the variable is not set, the import raises KeyError, and every "
        "tool whose bundle holds the module fails to load, whatever it is called with",
        '    REGION = os.environ["SKILLC_TEST_REGION"]',
        "             ^",
    ]
    again = skill("serve", str(warned), "--print-config", "claude-code")
    assert again.code == 0 and "warning[" not in again.stderr
