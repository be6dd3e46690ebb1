"""``skill serve --transport http --workers 2`` under load, and after hostile requests.

Four client processes (two per protocol era) send 250 calls each at once: 1,000 concurrent
calls, each answered with the sum of its own arguments, so that every result is matched to
its request.  No call may fail, and all of them finish within a bound.  Then requests no
client would send (a body over the size limit, JSON nested past any parser's depth, text that
is not JSON) each get an HTTP error, and the server still answers afterwards.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from mcp import Client
from runtime_support import run
from serve_support import CLOSED, HttpServer, copy_project, get_json, post_raw

CLIENTS = 4
CALLS_PER_CLIENT = 250
#: The whole load (client start-up included) must finish within this many seconds.
LOAD_BOUND = 30.0

#: One client process: ``CALLS_PER_CLIENT`` calls of ``add`` at once, each checked against its own arguments.
CLIENT = """
import asyncio, json, sys
from mcp import Client

url, mode, index, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

async def main():
    async with Client(url, mode=mode, read_timeout_seconds=60) as client:
        await client.list_tools()
        async def one(i):
            a, b = i, index * 100_000
            result = await client.call_tool("add", {"a": a, "b": b})
            text = result.content[0].text
            return None if not result.is_error and text == str(a + b) else f"call {i}: {result.is_error} {text}"
        version = client.protocol_version
        problems = [p for p in await asyncio.gather(*(one(i) for i in range(count))) if p]
    print(json.dumps({"version": version, "problems": problems[:5], "failed": len(problems)}))

asyncio.run(main())
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    project = copy_project(tmp_path_factory.mktemp("serve-load"))
    started = HttpServer(project, "--workers", "2")
    try:
        yield started
    finally:
        started.stop()


def test_a_thousand_concurrent_calls_from_four_processes(server: HttpServer) -> None:
    modes = ["legacy", "auto"] * (CLIENTS // 2)
    began = time.monotonic()
    clients = [
        subprocess.Popen(
            [sys.executable, "-c", CLIENT, server.url, mode, str(index), str(CALLS_PER_CLIENT)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for index, mode in enumerate(modes)
    ]
    reports = []
    for client in clients:
        try:
            out, err = client.communicate(timeout=LOAD_BOUND * 2)
        except subprocess.TimeoutExpired:
            for other in clients:
                other.kill()
            raise
        assert client.returncode == 0, err
        reports.append(json.loads(out))
    elapsed = time.monotonic() - began
    assert [report["failed"] for report in reports] == [0] * CLIENTS, reports
    assert sorted(report["version"] for report in reports) == ["2025-11-25", "2025-11-25", "2026-07-28", "2026-07-28"]
    assert elapsed < LOAD_BOUND, f"{CLIENTS * CALLS_PER_CLIENT} calls took {elapsed:.1f} s"


async def _one_call(url: str) -> str:
    async with Client(url, mode="auto", read_timeout_seconds=30) as client:
        result = await client.call_tool("add", {"a": 1, "b": 2})
        return result.content[0].text


@pytest.mark.parametrize(
    ("body", "statuses"),
    [
        # refused at its Content-Length: 413, or the connection closed while the body is still being sent
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "' + b"x" * 5_000_000 + b'"}}',
            {413, CLOSED},
        ),
        (b"[" * 200_000 + b"]" * 200_000, {400}),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": '
            + b'{"a": ' * 50_000
            + b"1"
            + b"}" * 50_000
            + b"}}",
            {400},
        ),
        (b'{"jsonrpc": "2.0", "id": 1, "method": ', {400}),
        (b"\xff\xfe not even text", {400}),
    ],
    ids=["huge", "deep", "deep-arguments", "truncated", "not-text"],
)
def test_the_server_stays_up_after_a_hostile_request(server: HttpServer, body: bytes, statuses: set[int]) -> None:
    assert post_raw(server.url, body) in statuses
    assert get_json(f"{server.base}/healthz")[0] == 200
    assert run(_one_call(server.url)) == "3"
    assert server.process.poll() is None
    assert "Traceback" not in server.output()
