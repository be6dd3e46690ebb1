"""``skill serve --print-config HOST``: what makes each agent host start (or reach) the server.

Each snippet names the server by the agent's name, the key hosts show and prefix tool
names with (Claude Code calls a tool ``mcp__<agent>__<tool>``).  Over stdio the host starts
``skill serve PROJECT`` itself, with the absolute path of this ``skill`` so that a host
started from a desktop, with a short ``PATH``, finds it; over HTTP it is given the URL.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from ..contracts.errors import UsageError
from .choices import Host

__all__ = ["Launch", "host_config", "serve_arguments"]


@dataclass(frozen=True)
class Launch:
    """How a host reaches the server: a command to start (stdio), or a URL (http)."""

    name: str
    command: str
    args: tuple[str, ...]
    #: The server's URL when it is served over HTTP; ``None`` for stdio.
    url: str | None = None


def _json(document: object) -> str:
    return json.dumps(document, indent=2)


def _stdio_entry(launch: Launch) -> dict[str, object]:
    return {"command": launch.command, "args": list(launch.args)}


def _agents_snippet(launch: Launch) -> str:
    if launch.url is not None:
        server = (
            f"MCPServerStreamableHttp(name={launch.name!r}, params={{'url': {launch.url!r}}}, cache_tools_list=True)"
        )
        kind = "MCPServerStreamableHttp"
    else:
        params = {"command": launch.command, "args": list(launch.args)}
        server = f"MCPServerStdio(name={launch.name!r}, params={params!r}, cache_tools_list=True)"
        kind = "MCPServerStdio"
    return (
        "import asyncio\n\n"
        "from agents import Agent, Runner\n"
        f"from agents.mcp import {kind}\n\n\n"
        "async def main() -> None:\n"
        f"    async with {server} as server:\n"
        f"        agent = Agent(name={launch.name!r}, mcp_servers=[server])\n"
        '        result = await Runner.run(agent, "What can you do?")\n'
        "        print(result.final_output)\n\n\n"
        "asyncio.run(main())\n"
    )


def host_config(host: Host, launch: Launch) -> str:
    """The snippet for ``host``, with a first line saying where it goes; a ``UsageError`` if it cannot be."""
    name, url = launch.name, launch.url
    if host is Host.claude:
        if url is not None:
            raise UsageError(
                "Claude Desktop starts local servers itself, over stdio",
                hint="drop --transport http, or add the URL in Claude's Settings > Connectors",
            )
        return "// claude_desktop_config.json (Settings > Developer > Edit Config)\n" + _json(
            {"mcpServers": {name: _stdio_entry(launch)}}
        )
    if host is Host.claude_code:
        if url is not None:
            return f"claude mcp add --transport http {shlex.quote(name)} {shlex.quote(url)}"
        return f"claude mcp add {shlex.quote(name)} -- " + shlex.join([launch.command, *launch.args])
    if host is Host.cursor:
        entry: dict[str, object] = {"url": url} if url is not None else _stdio_entry(launch)
        return "// .cursor/mcp.json\n" + _json({"mcpServers": {name: entry}})
    if host is Host.vscode:
        entry = {"type": "http", "url": url} if url is not None else {"type": "stdio", **_stdio_entry(launch)}
        return "// .vscode/mcp.json\n" + _json({"servers": {name: entry}})
    return "# agent.py (pip install openai-agents)\n" + _agents_snippet(launch)


def serve_arguments(project: str, environment: str, approve: bool, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """The arguments of ``skill`` that serve ``project`` as asked, for a host to start it with."""
    args = ["serve", project]
    if environment != "sandbox":
        args += ["-e", environment]
    if approve:
        args.append("--approve")
    return (*args, *extra)
