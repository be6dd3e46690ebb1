"""``skill serve`` stopped by a signal: at once, in order, and nothing a tool wrote is lost.

A host ends a stdio server by closing its stdin, then with SIGTERM if it has not ended, as
the MCP specification says; an operator stops an HTTP server with SIGTERM, a person at a
terminal either with Ctrl-C, and a terminal that closes sends SIGHUP.  Each time, with the
host's end of stdin still open and calls still running, the server ends within seconds: a
Ctrl-C says ``interrupted`` and exits 130, as every command does; SIGTERM and SIGHUP end the
process by the signal, as servers do.  What a tool
wrote to a file it left open, without flushing it, is in the file afterwards.  Tool code
reads end-of-file from stdin, never the protocol.

The host here is this test, speaking JSON-RPC over the server's pipes (``StdioHost``): the
official client cannot be told to keep stdin open while it signals its server.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import SKILL, write_project
from mcp import Client
from runtime_support import run
from serve_support import HttpServer
from stop_support import STALLING_TOOLS, log_env, wait_for

TOOLS = (
    STALLING_TOOLS
    + '''

@tool
def note(text: str) -> str:
    """Write a line to the log."""
    LOG.write(text + "\\n")
    return text


@tool
def read_stdin() -> dict:
    """What tool code reads from standard input."""
    return {"sys.stdin": sys.stdin.read(), "fd 0": os.read(0, 100).decode()}


agent = Agent(name="a", skills=[Skill(name="s", tools=[note, stall, stall_async, read_stdin])])
'''
)

#: The longest a server may take to end after the signal (it ends in well under a second).
STOP_TIMEOUT = 15.0
#: The longest the test waits for one answer.
ANSWER_TIMEOUT = 60.0


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("serve-stop")
    return write_project(root / "p", {"agent.py": TOOLS})


@pytest.fixture
def tool_env(tmp_path: Path) -> dict[str, str]:
    return log_env(tmp_path)


class StdioHost:
    """``skill serve PROJECT`` on pipes, spoken to line by line; its stdin stays open until ``close_stdin``."""

    def __init__(self, project: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [str(SKILL), "serve", str(project)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **env},
        )
        assert self.process.stdout is not None
        self._stdout = self.process.stdout.fileno()
        self._pending = b""  # read from stdout, not yet a whole line
        self._ids = iter(range(1, 1_000_000))

    def _line(self, deadline: float) -> bytes:
        """The server's next line from stdout, waited for until ``deadline`` (no thread: the test may close the pipe)."""
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            assert left > 0, f"no line from the server within {ANSWER_TIMEOUT:g} s"
            if select.select([self._stdout], [], [], left)[0]:
                chunk = os.read(self._stdout, 65536)
                assert chunk, "the server closed its stdout"
                self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> int:
        """Send a request; its id."""
        number = next(self._ids)
        self.send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        return number

    def answer(self, number: int) -> dict[str, Any]:
        """The answer to request ``number`` (waited for, bounded)."""
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while True:
            message = json.loads(self._line(deadline))
            if message.get("id") == number:
                return message  # type: ignore[no-any-return]

    def initialize(self) -> None:
        number = self.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
        )
        assert "result" in self.answer(number)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, name: str, arguments: dict[str, Any]) -> int:
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def stop(self, signum: int) -> tuple[int, float, str]:
        """Send ``signum``: the exit code, the seconds until the process ended, and its stderr."""
        started = time.monotonic()
        self.process.send_signal(signum)
        try:
            code = self.process.wait(timeout=STOP_TIMEOUT)
            took = time.monotonic() - started
            assert self.process.stderr is not None
            return code, took, self.process.stderr.read().decode()
        finally:
            self.kill()

    def kill(self) -> None:
        """End the process if it runs, and close the test's ends of its pipes."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=STOP_TIMEOUT)
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):  # stdin: what was left unsent goes nowhere
                    pipe.close()


@pytest.fixture
def host(project: Path, tool_env: dict[str, str]) -> Iterator[StdioHost]:
    served = StdioHost(project, tool_env)
    try:
        served.initialize()
        yield served
    finally:
        served.kill()


#: What each signal ends a server with: the exit code, and the last line of its stderr.
ENDINGS = {"SIGINT": (130, "interrupted"), "SIGTERM": (-signal.SIGTERM, None), "SIGHUP": (-signal.SIGHUP, None)}


@pytest.mark.parametrize("running", [None, "stall", "stall_async"], ids=["idle", "sync-call", "async-call"])
@pytest.mark.parametrize("signame", ENDINGS)
def test_a_signal_stops_a_stdio_server_at_once_and_keeps_what_the_tools_wrote(
    host: StdioHost, tool_env: dict[str, str], signame: str, running: str | None
) -> None:
    answer = host.answer(host.call("note", {"text": "kept"}))
    assert answer["result"]["content"][0]["text"] == "kept"
    if running is not None:
        host.call(running, {"seconds": 60})
        wait_for(Path(tool_env["TOOL_STARTED"], running))
    code, took, stderr = host.stop(getattr(signal, signame))
    expected_code, last_line = ENDINGS[signame]
    assert code == expected_code, stderr
    assert took < STOP_TIMEOUT  # before: a Ctrl-C waited for the host's next line, for ever
    assert "Traceback" not in stderr
    if last_line is not None:
        assert stderr.splitlines()[-1] == last_line
    began = [] if running is None else [f"{running} began"]
    # Before: SIGTERM ended the process on the spot, and the buffered lines were lost.
    assert Path(tool_env["TOOL_LOG"]).read_text().splitlines() == ["kept", *began]


def test_closing_stdin_still_ends_the_server_normally(host: StdioHost, tool_env: dict[str, str]) -> None:
    host.answer(host.call("note", {"text": "kept"}))
    assert host.process.stdin is not None
    host.process.stdin.close()
    assert host.process.wait(timeout=STOP_TIMEOUT) == 0
    assert Path(tool_env["TOOL_LOG"]).read_text() == "kept\n"


def test_tool_code_reads_end_of_file_from_stdin_never_the_protocol(host: StdioHost) -> None:
    answer = host.answer(host.call("read_stdin", {}))
    assert json.loads(answer["result"]["content"][0]["text"]) == {"sys.stdin": "", "fd 0": ""}
    # The server still reads the host's lines: the next request is answered.
    assert host.answer(host.call("note", {"text": "after"}))["result"]["content"][0]["text"] == "after"


def _call_in_background(url: str, name: str) -> None:
    """Call ``name`` from a daemon thread and forget it: the server goes away before it answers."""

    async def call() -> None:
        async with Client(url) as client:
            await client.call_tool(name, {"seconds": 60})

    def quietly() -> None:
        with contextlib.suppress(BaseException):
            run(call())

    threading.Thread(target=quietly, daemon=True).start()


@pytest.mark.parametrize(
    ("workers", "signame"),
    [("1", "SIGTERM"), ("1", "SIGINT"), ("1", "SIGHUP"), ("2", "SIGTERM"), ("2", "SIGINT")],
    ids=["1-SIGTERM", "1-SIGINT", "1-SIGHUP", "2-SIGTERM", "2-SIGINT"],
)
@pytest.mark.parametrize("running", [None, "stall"], ids=["idle", "sync-call"])
def test_a_signal_keeps_what_the_tools_of_an_http_server_wrote(
    project: Path, tool_env: dict[str, str], workers: str, signame: str, running: str | None
) -> None:
    server = HttpServer(project, "--workers", workers, env=tool_env)
    try:

        async def notes() -> None:
            async with Client(server.url) as client:
                for number in range(4):  # with two workers, most likely both are asked
                    assert (await client.call_tool("note", {"text": f"kept {number}"})).content[0].text

        run(notes())
        if running is not None:
            _call_in_background(server.url, running)
            wait_for(Path(tool_env["TOOL_STARTED"], running))
    finally:
        code = server.stop(getattr(signal, signame))  # uvicorn waits 10 s for a call in flight, then cancels it
    # It ends as a stdio server does.  Before, with one worker a Ctrl-C exited 0 without a word;
    # with two, the supervisor exited 0 whatever the signal, and each worker said "interrupted"
    # after a Ctrl-C (skipping its exit handlers).
    expected_code, last_line = ENDINGS[signame]
    assert code == expected_code, server.output()
    assert "Traceback" not in server.output()
    if last_line is not None:
        assert server.output().splitlines()[-1] == last_line
    assert server.output().count("interrupted") == (1 if signame == "SIGINT" else 0)
    lines = Path(tool_env["TOOL_LOG"]).read_text().splitlines()
    # Before: every line was lost (uvicorn ends by the signal: no exit handlers ran).
    assert sorted(line for line in lines if line.startswith("kept")) == [f"kept {n}" for n in range(4)]
    assert [line for line in lines if not line.startswith("kept")] == ([] if running is None else ["stall began"])


def test_a_host_that_closes_its_end_of_stdout_ends_the_connection(host: StdioHost, tool_env: dict[str, str]) -> None:
    host.answer(host.call("note", {"text": "kept"}))
    assert host.process.stdout is not None
    host.process.stdout.close()
    host.call("note", {"text": "unanswered"})  # its answer meets a closed pipe
    assert host.process.wait(timeout=STOP_TIMEOUT) == 0
    assert host.process.stderr is not None
    stderr = host.process.stderr.read().decode()
    assert stderr.splitlines()[-1] == (
        "warning: the host closed its end of standard output before the server had answered: the connection is over"
    )  # before: 'internal error: ExceptionGroup: ...', exit 70
    assert Path(tool_env["TOOL_LOG"]).read_text() == "kept\nunanswered\n"
