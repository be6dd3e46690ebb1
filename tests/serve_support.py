"""What the ``skill serve`` tests share: the fixture project, and a real HTTP server to talk to.

It holds no tests.  ``tests/serve_projects/shop`` is a real project; each test copies it and
lets ``skill serve`` compile it, as a user's first run would.  ``HttpServer`` starts
``skill serve --transport http`` as a subprocess on a free port of 127.0.0.1, waits (bounded)
for its health route, and stops it.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from helpers import SKILL

SERVE_PROJECTS = Path(__file__).resolve().parent / "serve_projects"
IGNORED = shutil.ignore_patterns(".skill", "dist", "__pycache__")
#: Both protocol eras, as ``mcp.Client(mode=...)`` picks them: the handshake, and the 2026-07-28 envelope.
MODES = {"legacy": "2025-11-25", "auto": "2026-07-28"}
#: The longest a server may take to answer its health route after it was started.
START_TIMEOUT = 60.0


def copy_project(root: Path, case: str = "shop") -> Path:
    """A fresh copy of ``tests/serve_projects/<case>`` under ``root`` (not compiled yet)."""
    project = root / case
    shutil.copytree(SERVE_PROJECTS / case, project, ignore=IGNORED)
    return project


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def get_json(url: str, timeout: float = 5.0) -> tuple[int, Any]:
    """GET ``url``: the status and the decoded JSON body."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


#: What ``post_raw`` returns when the server closed the connection before it had read the whole body.
CLOSED = 0


def post_raw(url: str, body: bytes, timeout: float = 30.0) -> int:
    """POST ``body`` as an MCP client would frame it: the HTTP status of the answer, or ``CLOSED``.

    A server may answer (413) and close before a large body is sent in full; the client then
    sees the connection reset rather than the answer.
    """
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.putrequest("POST", parts.path)
        for name, value in (
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("Content-Length", str(len(body))),
        ):
            connection.putheader(name, value)
        connection.endheaders()
        try:
            for start in range(0, len(body), 65536):
                connection.send(body[start : start + 65536])
            response = connection.getresponse()
        except (BrokenPipeError, ConnectionResetError):
            return CLOSED
        response.read()
        return response.status
    finally:
        connection.close()


class HttpServer:
    """``skill serve PROJECT --transport http`` on a free port, started and stopped by the test."""

    def __init__(self, project: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.base}/mcp"
        self.log = project.parent / f"serve-{self.port}.log"
        command = [str(SKILL), "serve", str(project), "--transport", "http", "--port", str(self.port), *args]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, **(env or {})},
                start_new_session=True,  # its worker processes are stopped with it
            )
        self.wait_healthy()

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def wait_healthy(self) -> dict[str, Any]:
        """The health route's answer, once it gives one; fails after ``START_TIMEOUT``."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"skill serve exited with {self.process.returncode}:\n{self.output()}")
            try:
                status, body = get_json(f"{self.base}/healthz", timeout=2.0)
            except (OSError, ValueError):
                time.sleep(0.1)
                continue
            assert status == 200, body
            assert isinstance(body, dict)
            return body
        raise AssertionError(f"skill serve did not answer within {START_TIMEOUT:g} s:\n{self.output()}")

    def stop(self, signum: int = signal.SIGTERM) -> int:
        """Stop the server (and its workers) as an operator would: ``signum`` (SIGTERM), then SIGKILL after 15 s."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signum)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)
        return self.process.returncode
