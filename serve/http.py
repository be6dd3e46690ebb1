"""``skill serve --transport http``: stateless streamable HTTP under uvicorn, with a health route.

Stateless means every POST is served on its own: no session id, no session table, nothing
one request leaves for the next.  Any number of identical replicas (``--workers`` processes
on one machine, containers on many) can therefore sit behind any load balancer.  Answers
are plain JSON (no event stream): a stateless server never calls the host back.

``GET /healthz`` answers ``{"status": "ok", "agent": ..., "tools": N}`` once the worker
that answers has loaded the project.

With one worker the app runs in this process.  With several, uvicorn starts each in a
process of its own, which opens the project again (already compiled by the parent) from
the options this module passes in ``SKILLC_SERVE_OPTIONS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import asdict
from typing import Any, Final

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from uvicorn.config import STARTUP_FAILURE

from ..contracts.spec import TOOL_LOGGER
from ..project import Project, open_project
from ..runtime.running import running_tool_label
from .options import HEALTH_PATH, HttpOptions
from .server import ProjectServer

__all__ = ["HEALTH_PATH", "OPTIONS_VARIABLE", "HttpOptions", "http_app", "serve_http", "worker_app"]

#: How the parent process passes its options to the worker processes uvicorn starts.
OPTIONS_VARIABLE: Final = "SKILLC_SERVE_OPTIONS"
#: Seconds a stopping server waits for the requests in flight.
_GRACEFUL_SHUTDOWN: Final = 10


def http_app(project: Project, options: HttpOptions) -> Starlette:
    """The ASGI app serving ``project`` at ``options.path``, and ``/healthz``; it closes the project when it stops."""
    handlers = ProjectServer(project, approve=options.approve)
    server = handlers.server
    mcp_app = server.streamable_http_app(
        streamable_http_path=options.path, stateless_http=True, json_response=True, host=options.host
    )
    health = {"status": "ok", "agent": project.runtime.manifest.agent.name, "tools": len(handlers.listings)}

    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse(health)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # What is loaded now lives as long as the server: out of the collector's way, so that
        # a full collection walks only what requests made (the tail of the latency).
        gc.freeze()
        logging.getLogger("uvicorn.error").addFilter(_cancelled_at_stop)  # once: a filter is added once
        try:
            async with server.session_manager.run():
                yield
        finally:
            # The process may end next by the signal that stopped uvicorn (its default action:
            # no exit handlers run): closing flushes what the tools wrote.
            project.close()

    return Starlette(routes=[*mcp_app.routes, Route(HEALTH_PATH, healthz, methods=["GET"])], lifespan=lifespan)


def _cancelled_at_stop(record: logging.LogRecord) -> bool:
    """uvicorn's log, with a call cancelled because the server stopped told in one line, not a traceback.

    A stopping server waits ``_GRACEFUL_SHUTDOWN`` seconds for the calls in flight, then
    cancels them; uvicorn logs each as an exception in the application, traceback and all.
    """
    error = record.exc_info[1] if record.exc_info else None
    if isinstance(error, asyncio.CancelledError):
        record.msg, record.args = "a call still running when the server stopped was cancelled", ()
        record.exc_info = record.exc_text = None
    return True


class _OneLine(logging.Handler):
    """The runtime's warnings (hidden tools, failing tools) as one line each on standard error."""

    def emit(self, record: logging.LogRecord) -> None:
        sys.stderr.write(f"{record.levelname.lower()}: {record.getMessage()}\n")


class _ToolLine(logging.Handler):
    """What tools log through ``ctx.logger``, a line each naming the tool, on the process's own standard
    error (``sys.stderr`` is the running call's capture while its code runs)."""

    def emit(self, record: logging.LogRecord) -> None:
        stream = sys.__stderr__
        if stream is not None:
            who = running_tool_label()
            stream.write(f"{record.levelname.lower()}: {who}: {record.getMessage()}\n")
            stream.flush()


def worker_app() -> Starlette:
    """The app of one worker process (uvicorn's factory): the project as the parent's options name it."""
    options = HttpOptions(**json.loads(os.environ[OPTIONS_VARIABLE]))
    runtime_logger = logging.getLogger("skillc.runtime")
    runtime_logger.addHandler(_OneLine(logging.WARNING))
    runtime_logger.propagate = False
    tool_logger = logging.getLogger(TOOL_LOGGER)
    tool_logger.addHandler(_ToolLine(logging.INFO))
    tool_logger.setLevel(logging.INFO)
    tool_logger.propagate = False
    project = open_project(options.project, environment=options.environment)
    return http_app(project, options)


@contextlib.contextmanager
def _signals_seen() -> Iterator[list[int]]:
    """The numbers of the signals this process received while the block ran, in order (those Python handles).

    Read from a wakeup pipe (``signal.set_wakeup_fd``), set for the block and put back
    after: uvicorn's supervisor of several workers stops on SIGINT and SIGTERM alike and
    returns without a word of which, and its handlers keep no record of it.  Empty on
    Windows, whose wakeup needs a socket.
    """
    seen: list[int] = []
    if sys.platform == "win32":
        yield seen
        return
    read_end, write_end = os.pipe()
    for end in (read_end, write_end):
        os.set_blocking(end, False)
    previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    try:
        yield seen
    finally:
        signal.set_wakeup_fd(previous)
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(read_end, 4096):
                seen.extend(chunk)
        os.close(read_end)
        os.close(write_end)


def serve_http(project: Project, options: HttpOptions) -> int | None:
    """Serve until stopped: in this process with one worker, else in ``options.workers`` processes.

    With several workers ``project`` (already compiled and loaded) is closed first: each
    worker opens its own, and the supervisor returns the signal that stopped it (SIGINT or
    SIGTERM), for the caller to end as that signal asks.  With one, the signal comes back
    as uvicorn raises it again once the server has stopped in order (``KeyboardInterrupt``
    for a Ctrl-C), and ``None`` is returned.  (``uvicorn.run`` swallows a Ctrl-C: the command
    would end as if nothing had happened.)
    """
    settings: dict[str, Any] = {
        "host": options.host,
        "port": options.port,
        "log_level": "warning",
        "access_log": False,
        "timeout_graceful_shutdown": _GRACEFUL_SHUTDOWN,
    }
    if options.workers == 1:
        server = uvicorn.Server(uvicorn.Config(http_app(project, options), **settings))
        server.run()  # uvicorn's signal handlers stop it, then raise the signal again
        if not server.started:  # as uvicorn.run ends a server that could not start
            sys.exit(STARTUP_FAILURE)
        return None
    project.close()
    os.environ[OPTIONS_VARIABLE] = json.dumps(asdict(options))
    with _signals_seen() as seen:
        uvicorn.run(f"{__name__}:{worker_app.__name__}", factory=True, workers=options.workers, **settings)
    return next((signum for signum in seen if signum in (signal.SIGINT, signal.SIGTERM)), None)
