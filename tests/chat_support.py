"""What the chat tests share: a scripted Chat Completions server, and the fixture project.

It holds no tests.  ``ScriptedServer`` is a real HTTP server on 127.0.0.1 (the standard
library's, in a thread) that speaks the Chat Completions protocol, JSON and SSE
streaming, and answers each request with the next scripted reply; it records every
request.  Every wait is bounded, and the test that starts it stops it.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from runtime_support import IGNORED, compile_tree

CHAT_PROJECTS = Path(__file__).resolve().parent / "chat_projects"
#: No request, read or join waits longer than this.
WAIT = 10.0
MODEL = "scripted-model"


@dataclass(frozen=True)
class Scripted:
    """One reply: text and tool calls ``(name, arguments)``, or an HTTP error."""

    content: str | None = None
    tool_calls: Sequence[tuple[str, str]] = ()
    status: int = 200
    error: str = ""
    #: Ids for the tool calls; ``call_<n>`` numbered through the script when not given.
    ids: Sequence[str] = field(default=())
    #: A misbehaving answer instead: one of ``MISBEHAVIOURS``.
    misbehave: str = ""


def say(text: str) -> Scripted:
    return Scripted(content=text)


def call(*calls: tuple[str, str], text: str | None = None, ids: Sequence[str] = ()) -> Scripted:
    return Scripted(content=text, tool_calls=calls, ids=ids)


def fail(status: int, message: str) -> Scripted:
    return Scripted(status=status, error=message)


#: ``html``: an HTML page; ``not_json``: plain text; ``malformed``: JSON that is not a
#: completion (and, streamed, a chunk that is not JSON); ``drip``: a byte every 0.5 s;
#: ``endless``: chunks of text without end.  The last two end when the client hangs up
#: or after ``WAIT`` seconds.
MISBEHAVIOURS = ("html", "not_json", "malformed", "drip", "endless")


def misbehave(how: str) -> Scripted:
    assert how in MISBEHAVIOURS, how
    return Scripted(misbehave=how)


class ScriptedServer:
    """Replays ``replies`` in order, one per request to ``POST /v1/chat/completions``."""

    def __init__(self, *replies: Scripted) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._numbered = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            timeout = WAIT  # a client that stops sending cannot hold the thread

            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path != "/v1/chat/completions":
                    self._json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                request = json.loads(body)
                with server._lock:
                    server.requests.append(request)
                    server.headers.append({key.lower(): value for key, value in self.headers.items()})
                    reply = server.replies.pop(0) if server.replies else fail(500, "the script has no reply left")
                    ids = list(reply.ids) or [
                        f"call_{server._numbered + index + 1}" for index in range(len(reply.tool_calls))
                    ]
                    server._numbered += len(reply.tool_calls)
                if reply.misbehave:
                    self._misbehave(reply.misbehave, bool(request.get("stream")))
                elif reply.status != 200:
                    self._json(reply.status, {"error": {"message": reply.error, "type": "scripted"}})
                elif request.get("stream"):
                    self._stream(request, reply, ids)
                else:
                    self._json(200, _completion(request, reply, ids))

            def _misbehave(self, how: str, stream: bool) -> None:
                self.send_response(200)
                if how == "html":
                    self._body("text/html", b"<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>")
                elif how == "not_json":
                    self._body("text/plain", b"OK")
                elif how == "malformed" and stream:
                    self._body("text/event-stream", b'data: {"choices": [{"delta": {"content": \n\ndata: [DONE]\n\n')
                elif how == "malformed":
                    self._body("application/json", json.dumps({"choices": [{"message": "hi"}]}).encode())
                else:
                    self.send_header("Content-Type", "text/event-stream" if stream else "application/json")
                    self.end_headers()
                    self._forever(how)

            def _forever(self, how: str) -> None:
                chunk = {"choices": [{"index": 0, "delta": {"content": "more " * 200}}]}
                piece = b"{" if how == "drip" else f"data: {json.dumps(chunk)}\n\n".encode()
                until = time.monotonic() + WAIT
                with contextlib.suppress(OSError):  # the client hung up
                    while time.monotonic() < until:
                        self.wfile.write(piece)
                        self.wfile.flush()
                        if how == "drip":
                            time.sleep(0.5)

            def _body(self, kind: str, data: bytes) -> None:
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _json(self, status: int, document: dict[str, Any]) -> None:
                data = json.dumps(document).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, request: dict[str, Any], reply: Scripted, ids: list[str]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for delta, finish in _deltas(reply, ids):
                    chunk = {
                        "id": "chatcmpl-scripted",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": request.get("model"),
                        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                    }
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(WAIT)
        assert not self._thread.is_alive(), "the scripted server did not stop"


def _finish(reply: Scripted) -> str:
    return "tool_calls" if reply.tool_calls else "stop"


def _completion(request: dict[str, Any], reply: Scripted, ids: list[str]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
            for call_id, (name, arguments) in zip(ids, reply.tool_calls, strict=True)
        ]
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model"),
        "choices": [{"index": 0, "message": message, "finish_reason": _finish(reply)}],
    }


def _deltas(reply: Scripted, ids: list[str]) -> Iterator[tuple[dict[str, Any], str | None]]:
    """The reply in pieces, as OpenAI streams it: text word by word, each call's arguments in halves."""
    yield {"role": "assistant", "content": ""}, None
    words = (reply.content or "").split(" ")
    for index, word in enumerate(words if reply.content else ()):
        yield {"content": word if index == 0 else f" {word}"}, None
    for index, (call_id, (name, arguments)) in enumerate(zip(ids, reply.tool_calls, strict=True)):
        half = len(arguments) // 2
        opening = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
        yield {"tool_calls": [opening]}, None
        for piece in (arguments[:half], arguments[half:]):
            yield {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}, None
    yield {}, _finish(reply)


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def copy_project(case: str, root: Path) -> Path:
    """Copy ``tests/chat_projects/<case>`` under ``root`` and return the copy (not compiled)."""
    project = root / case
    shutil.copytree(CHAT_PROJECTS / case, project, ignore=IGNORED)
    return project


def compiled_project(case: str, root: Path) -> Path:
    """Copy and compile ``tests/chat_projects/<case>``; return the project folder."""
    project = copy_project(case, root)
    compile_tree(project)
    return project


def user_view(request: dict[str, Any]) -> list[tuple[str, str]]:
    """The roles and texts of a request's messages, tool calls as ``name(arguments)``."""
    shown: list[tuple[str, str]] = []
    for message in request["messages"]:
        text = message.get("content") or ""
        for item in message.get("tool_calls") or ():
            text += f"{item['function']['name']}({item['function']['arguments']})"
        shown.append((message["role"], text))
    return shown
