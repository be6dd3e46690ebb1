"""``skill serve --transport stdio``: one MCP connection over this process's stdin and stdout.

While it serves, neither descriptor is tool code's: the SDK's ``stdio_server`` claims
standard output (what tool code or its child processes print goes to standard error, never
into the protocol's stream), and this module claims standard input (``_claimed_stdin``: fd
0 reads end-of-file for tool code and its children).  The host's lines are read by a daemon
thread of this module's own (``_HostLines``), not by the SDK's reader, whose thread a stop
would have to wait for until the host wrote another line or closed its end.

The serve ends when the host closes stdin, or when SIGINT, SIGTERM or SIGHUP comes (where the
platform has them, and the process does not ignore them): the requests in flight are
cancelled, and ``serve_stdio`` returns the signal's number, for the caller to close the
project (which flushes the files its tools left open) and end as the signal asks.  Before,
a Ctrl-C waited for the host's next line (forever, with a host that waits too), and a
SIGTERM ended the process on the spot.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import IO, Any, Final, cast

import anyio
import anyio.abc
import anyio.from_thread
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server import Server
from mcp.server.stdio import stdio_server

from ..contracts.signals import TERMINATING

if sys.platform != "win32":
    import fcntl

__all__ = ["STOP_SIGNALS", "serve_stdio"]

logger = logging.getLogger("skillc.runtime")

#: The signals that stop the server in order, where the platform has them: a Ctrl-C, and those
#: that ask a command to end.
STOP_SIGNALS: Final = (signal.SIGINT, *TERMINATING)


@contextlib.contextmanager
def _claimed_stdin() -> Iterator[IO[str]]:
    """The host's end of standard input, as text, while fd 0 reads end-of-file (``os.devnull``).

    The host's end is a private duplicate of fd 0, never closed (the reading thread may
    still block on it after the serve); fd 0 is the host's end again afterwards.
    """
    if sys.platform == "win32":
        private = os.dup(0)
    else:  # above fd 2: the duplicate must never take stdout's or stderr's place
        private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    try:
        yield open(private, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115 - never closed
    finally:
        os.dup2(private, 0)


class _HostLines:
    """The host's lines, for the SDK's transport (``async for line in ...``), read by a daemon thread.

    A stop cancels the transport's wait for the next line at once: the thread, blocked in a
    read, is left to end with the process.  The lines are handed over one at a time (the
    reader waits for each to be taken), and end-of-file ends the iteration.
    """

    def __init__(self, source: IO[str]) -> None:
        self._source = source
        send: MemoryObjectSendStream[str]
        receive: MemoryObjectReceiveStream[str]
        send, receive = anyio.create_memory_object_stream[str](0)
        self._send, self._receive = send, receive

    def start(self) -> None:
        """Start reading (in the event loop's thread, where the reader hands its lines)."""
        token = anyio.lowlevel.current_token()
        threading.Thread(target=self._read, args=(token,), name="skillc-stdin", daemon=True).start()

    def _read(self, token: anyio.lowlevel.EventLoopToken) -> None:
        """Hand each line over until end-of-file, then end the lines; quietly once the serve is over."""
        try:
            for line in self._source:
                anyio.from_thread.run(self._send.send, line, token=token)
        except (anyio.RunFinishedError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            return  # the serve is over: nobody takes lines any more
        except OSError as error:  # the host's end cannot be read: the connection is over, as at end-of-file
            logger.warning("cannot read standard input: %s", error)
        # A daemon thread must not end on a traceback at exit: the loop may be closing by now.
        with contextlib.suppress(Exception):
            anyio.from_thread.run_sync(self._send.close, token=token)

    def __aiter__(self) -> _HostLines:
        return self

    async def __anext__(self) -> str:
        try:
            return await self._receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None


def _stop_signals() -> tuple[signal.Signals, ...]:
    """The stop signals this process may handle: none on Windows, none it was started ignoring."""
    if sys.platform == "win32":
        return ()
    return tuple(signum for signum in STOP_SIGNALS if signal.getsignal(signum) is not signal.SIG_IGN)


async def _serve(server: Server[Any], lines: _HostLines) -> int | None:
    stopped_by: int | None = None
    async with anyio.create_task_group() as group:

        async def stop_on_signal(
            signums: tuple[signal.Signals, ...], *, task_status: anyio.abc.TaskStatus[None]
        ) -> None:
            nonlocal stopped_by
            with anyio.open_signal_receiver(*signums) as received:
                task_status.started()
                async for signum in received:
                    stopped_by = signum
                    group.cancel_scope.cancel()
                    return

        signums = _stop_signals()
        if signums:
            await group.start(stop_on_signal, signums)  # listening before the first line is read
        lines.start()
        # stdin is given, so the SDK claims stdout alone (see the module's docstring).
        async with stdio_server(stdin=cast(anyio.AsyncFile[str], lines)) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        group.cancel_scope.cancel()  # the host closed stdin: stop listening for signals
    return stopped_by


def serve_stdio(server: Server[Any]) -> int | None:
    """Serve ``server`` on stdin and stdout until the host closes stdin (``None``) or a stop signal comes (its number).

    A host that closes its end of stdout ends the connection too (``None``, with a warning).
    """
    host_gone = False
    with _claimed_stdin() as source:
        try:
            return anyio.run(_serve, server, _HostLines(source))
        except* (BrokenPipeError, ConnectionResetError):
            host_gone = True
    if host_gone:
        logger.warning(
            "the host closed its end of standard output before the server had answered: the connection is over"
        )
    return None
