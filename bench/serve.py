"""How many tool calls per second does ``skill serve`` answer over HTTP, and how fast, against FastMCP?

Both servers serve the runtime benchmark's small tool (``place_order``: a pydantic input of
four fields, an async ``execute`` returning a small dict; see ``bench/runtime.py``) over
stateless streamable HTTP with JSON answers, one uvicorn process each, on 127.0.0.1:

skillc
    ``skill serve PROJECT --transport http``: the tool compiled into a generated project
    and called through the runtime's one call path (its condition offer, validation,
    timeout, serialization).
FastMCP
    the server a user would otherwise pick: the ``mcp`` SDK's own high-level server
    (``mcp.server.mcpserver.MCPServer``, FastMCP before the SDK's 2.0), with the same tool
    written as a decorated async function and served from source, with the same settings
    (``stateless_http=True, json_response=True``) and its unstructured output, so that it
    does no more work than skillc does.  It ships in the same SDK skillc depends on, so both
    run in this interpreter with the same SDK version.

The load is the same for both: ``--connections`` keep-alive HTTP/1.1 connections (default
16), each sending ``tools/call`` POSTs of the 2025-11-25 era one after another, as many as
they can, for R rounds of N calls (default 5 x 2,000), the two servers' rounds interleaved.
Each answer is checked (``isError`` false, the tool's JSON).  Reported: calls per second
(median of the rounds) and the p50 and p99 latency of one call over all rounds; the ratios
are skillc's against FastMCP's.  Targets: at least 1.5x FastMCP's throughput at an equal or
better p99.

The client is a minimal asyncio HTTP/1.1 client in this process (an MCP client library
would cost more CPU than either server, on the same cores).

Usage::

    .venv/bin/python bench/serve.py [--quick] [--json] [--rounds R] [--calls N] [--connections C]

Exit codes: 0 measured (a MISS is a result, not a failure), 1 something the measurement
depends on failed (the reason is printed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

# The runtime benchmark's tool and project (this script's folder is first on sys.path).
from runtime import ARGUMENTS, EXPECTED, TOOL_NAME, write_project

SKILL = Path(sys.executable).with_name("skill")
#: The longest a server may take to start answering.
START_TIMEOUT = 120.0
#: The longest one call may take before the run is abandoned.
CALL_TIMEOUT = 30.0
TARGET_THROUGHPUT = 1.5

#: The same tool, for FastMCP: written from source as its users write it.
FASTMCP_SERVER = '''\
"""place_order served by the mcp SDK's high-level server (FastMCP)."""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

server = MCPServer("bench")


@server.tool(structured_output=False)
async def place_order(
    order_id: Annotated[str, Field(pattern=r"^A\\d{4}$", description="The order id, like A1001.")],
    quantity: Annotated[int, Field(ge=1, le=100)] = 1,
    express: bool = False,
    tags: Annotated[list[str], Field(description="Labels to add.")] = [],
) -> dict[str, object]:
    """Order again: the runtime benchmark's one tool."""
    return {"order_id": order_id, "quantity": quantity, "express": express, "tags": tags}


app = server.streamable_http_app(stateless_http=True, json_response=True)
'''


class BenchError(Exception):
    """A step the measurement depends on failed; the message says which and why."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def request_bytes(port: int, call_id: int) -> bytes:
    """One ``tools/call`` POST of the 2025-11-25 era, as a host sends it to a stateless server."""
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": call_id,
            "method": "tools/call",
            "params": {"name": TOOL_NAME, "arguments": json.loads(ARGUMENTS)},
        }
    ).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One HTTP/1.1 response with a Content-Length body: its status and body."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    length = next((int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:")), None)
    if length is None:
        raise BenchError(f"an answer without Content-Length: {lines[:6]}")
    return status, await reader.readexactly(length)


def check_answer(status: int, body: bytes) -> None:
    if status != 200:
        raise BenchError(f"HTTP {status}: {body[:300]!r}")
    result = json.loads(body)["result"]
    if result.get("isError") or json.loads(result["content"][0]["text"]) != EXPECTED:
        raise BenchError(f"unexpected result: {result}")


@dataclass
class Server:
    """One server under test: how to start it, and what was measured."""

    key: str
    label: str
    command: list[str]
    cwd: Path
    port: int
    rates: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    process: subprocess.Popen[bytes] | None = None

    def start(self, log: Path) -> None:
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                self.command, cwd=self.cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)


async def wait_ready(server: Server, log: Path) -> None:
    """Until one call succeeds (bounded by ``START_TIMEOUT``)."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        assert server.process is not None
        if server.process.poll() is not None:
            raise BenchError(f"{server.label} exited {server.process.returncode}:\n{log.read_text()[-2000:]}")
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        try:
            writer.write(request_bytes(server.port, 0))
            check_answer(*await asyncio.wait_for(read_response(reader), CALL_TIMEOUT))
            return
        finally:
            writer.close()
    raise BenchError(f"{server.label} did not answer within {START_TIMEOUT:g}s:\n{log.read_text()[-2000:]}")


async def round_of_calls(server: Server, calls: int, connections: int) -> tuple[float, list[float]]:
    """``calls`` calls over ``connections`` keep-alive connections: calls per second, and each latency (s)."""
    remaining = [calls]
    latencies: list[float] = []

    async def connection() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        try:
            while remaining[0] > 0:
                remaining[0] -= 1
                sent = time.perf_counter()
                writer.write(request_bytes(server.port, remaining[0] + 1))
                status, body = await asyncio.wait_for(read_response(reader), CALL_TIMEOUT)
                latencies.append(time.perf_counter() - sent)
                check_answer(status, body)
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(connection() for _ in range(connections)))
    return calls / (time.perf_counter() - started), latencies


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def measure(servers: list[Server], args: argparse.Namespace, say: Console) -> None:
    for server in servers:  # warm up: imports, first loads, the JIT-free caches of both
        await round_of_calls(server, min(500, args.calls), args.connections)
    for index in range(args.rounds):
        for server in servers if index % 2 == 0 else reversed(servers):
            rate, latencies = await round_of_calls(server, args.calls, args.connections)
            server.rates.append(rate)
            server.latencies.extend(latencies)
        say.print(f"round {index + 1}/{args.rounds}: " + ", ".join(f"{s.label} {s.rates[-1]:.0f}/s" for s in servers))


def figures(servers: list[Server], args: argparse.Namespace) -> dict[str, Any]:
    by_key = {server.key: server for server in servers}
    rows = {
        server.key: {
            "label": server.label,
            "calls_per_s": statistics.median(server.rates),
            "p50_ms": percentile(server.latencies, 0.50) * 1000,
            "p99_ms": percentile(server.latencies, 0.99) * 1000,
        }
        for server in servers
    }
    skillc, fastmcp = rows["skillc"], rows["fastmcp"]
    throughput = skillc["calls_per_s"] / fastmcp["calls_per_s"]
    return {
        "rounds": args.rounds,
        "calls_per_round": args.calls,
        "connections": args.connections,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "servers": rows,
        "throughput_ratio": throughput,
        "p50_ratio": skillc["p50_ms"] / fastmcp["p50_ms"],
        "p99_ratio": skillc["p99_ms"] / fastmcp["p99_ms"],
        "passed": throughput >= TARGET_THROUGHPUT and skillc["p99_ms"] <= fastmcp["p99_ms"],
        "samples": {key: by_key[key].rates for key in rows},
    }


def print_table(console: Console, document: Mapping[str, Any]) -> None:
    table = Table(
        title=f"skill serve vs FastMCP over HTTP: {document['rounds']} rounds x {document['calls_per_round']} calls, "
        f"{document['connections']} connections (Python {document['python']}, {document['cpus']} CPUs)",
        box=box.SIMPLE_HEAD,
    )
    for name in ("server", "calls/s", "p50", "p99"):
        table.add_column(name, justify="left" if name == "server" else "right")
    for row in document["servers"].values():
        table.add_row(row["label"], f"{row['calls_per_s']:.0f}", f"{row['p50_ms']:.2f} ms", f"{row['p99_ms']:.2f} ms")
    console.print(table)
    verdict = "PASS" if document["passed"] else "MISS"
    console.print(
        f"skillc / FastMCP: throughput {document['throughput_ratio']:.2f}x (target >= {TARGET_THROUGHPUT}x), "
        f"p50 {document['p50_ratio']:.2f}x, p99 {document['p99_ratio']:.2f}x (target <= 1.00x): {verdict}"
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Time skill serve against FastMCP over HTTP, in one run.")
    parser.add_argument("--quick", action="store_true", help="fewer rounds and calls")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON document")
    parser.add_argument("--rounds", type=int, help="rounds per server (default 5, --quick 2)")
    parser.add_argument("--calls", type=int, help="calls per round (default 2000, --quick 500)")
    parser.add_argument("--connections", type=int, default=16, help="keep-alive connections at once (default 16)")
    args = parser.parse_args(argv)
    for name, (full, quick) in {"rounds": (5, 2), "calls": (2000, 500)}.items():
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if args.connections < 1:
        parser.error("--connections must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    say = Console(stderr=True, highlight=False, markup=False, soft_wrap=True)
    started = time.time()
    work = Path(tempfile.mkdtemp(prefix="skillc-bench-serve-"))
    project = work / "project"
    write_project(project)
    (work / "fastmcp_server.py").write_text(FASTMCP_SERVER, encoding="utf-8")
    uvicorn = [sys.executable, "-m", "uvicorn", "--log-level", "warning", "--no-access-log", "--host", "127.0.0.1"]
    skillc_port, fastmcp_port = free_port(), free_port()
    servers = [
        Server("skillc", "skill serve", [str(SKILL), "serve", str(project), "--transport", "http",
                                          "--port", str(skillc_port)], work, skillc_port),
        Server("fastmcp", "FastMCP (MCPServer)", [*uvicorn, "--port", str(fastmcp_port), "fastmcp_server:app"],
               work, fastmcp_port),
    ]  # fmt: skip
    try:
        for server in servers:
            log = work / f"{server.key}.log"
            server.start(log)
        for server in servers:
            asyncio.run(wait_ready(server, work / f"{server.key}.log"))
        asyncio.run(measure(servers, args, say))
    except BenchError as error:
        say.print(f"error: {error}")
        return 1
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)
    document = figures(servers, args)
    document["elapsed_s"] = round(time.time() - started, 1)
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        print_table(
            Console(highlight=False, markup=False, soft_wrap=True, width=None if sys.stdout.isatty() else 120), document
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
