"""``skill serve --transport stdio``: one MCP connection over this process's stdin and stdout.

The SDK's ``stdio_server`` claims both descriptors while it serves: standard input reads
end-of-file for tool code, and what tool code prints goes to standard error, never into
the protocol's stream.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server import Server
from mcp.server.stdio import stdio_server

__all__ = ["serve_stdio"]


async def _serve(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` on stdin and stdout until the host closes stdin."""
    anyio.run(_serve, server)
