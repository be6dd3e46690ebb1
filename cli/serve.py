"""``skill serve``: the compiled tools over MCP, on stdio for a host that starts it, or over HTTP.

The project is compiled first when ``dist/`` is stale, as ``skill test`` does; a project
that does not compile prints its report and exits 1.  ``--print-config HOST`` prints what
makes that host start the server, and exits.  Over stdio nothing but the protocol is
written to standard output; messages go to standard error.

The server is imported only when it is started, and then only its transport's module:
the mcp SDK takes about half a second to import, which ``--print-config`` and a usage
error need not wait for.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import cast

from ..contracts.errors import UsageError
from ..contracts.settings import CLIENT
from ..project import Project
from ..runtime.context import Environment
from ..serve.choices import Host, Transport
from ..serve.hosts import Launch, host_config, serve_arguments
from ..serve.options import HttpOptions
from .consoles import notice, runtime_log, stdout
from .lifetime import end_by_signal, keep_until_exit
from .opening import open_for_command

__all__ = ["run_serve_command"]


def _skill_command() -> str:
    """This ``skill``, by absolute path when it sits beside the interpreter (a host's PATH is short)."""
    beside = Path(sys.executable).with_name("skill")
    return str(beside.absolute()) if beside.exists() else "skill"


def _print_config(project: Project, host: Host, transport: Transport, options: HttpOptions, approve: bool) -> int:
    name = project.runtime.manifest.agent.name
    if transport is Transport.http:
        shown_host = "127.0.0.1" if options.host in ("0.0.0.0", "::") else options.host
        launch = Launch(name, "", (), url=f"http://{shown_host}:{options.port}{options.path}")
    else:
        args = serve_arguments(str(project.root), project.environment, approve)
        launch = Launch(name, _skill_command(), args)
    stdout().print(host_config(host, launch), markup=False, highlight=False)
    return 0


def run_serve_command(
    project: Path,
    *,
    transport: Transport,
    host: str,
    port: int,
    path: str,
    workers: int,
    environment: str,
    approve: bool,
    print_config: Host | None,
    debug: bool = False,
) -> int:
    """Compile if needed, then serve the project (or print a host's configuration); the exit code."""
    options = HttpOptions(
        project=str(project.resolve()),
        environment=cast(Environment, environment),
        approve=approve,
        host=host,
        port=port,
        path=path,
        workers=workers,
    )
    options.check()
    if transport is Transport.stdio and workers != 1:
        raise UsageError("--workers needs --transport http", hint="a host starts one stdio server per connection")
    opened = open_for_command(project, options.environment)
    if print_config is not None:
        with opened:
            return _print_config(opened, print_config, transport, options, approve)
    runtime = opened.runtime
    client = [name for name in runtime.tool_names if (entry := runtime.tool_entry(name)) and entry.settings[CLIENT]]
    agent, count = runtime.manifest.agent.name, len(runtime.tool_names) - len(client)
    if client:
        notice(
            f"Not served: the client-side tools {', '.join(client)} (their results come from the caller, "
            "which MCP's tools/call cannot ask for)"
        )
    with runtime_log(debug=debug):
        if transport is Transport.stdio:
            from ..serve.server import build_server
            from ..serve.stdio import serve_stdio

            keep_until_exit()  # the server's modules are loaded too, and no tool code has run yet
            with opened:
                server = build_server(opened, approve=approve)
                notice(f"Serving agent {agent!r} ({count} tools) over MCP on stdio")
                signum = serve_stdio(server)
            return _stopped(signum)  # once the project is closed: it may end the process
        url = f"http://{host}:{port}{path}"
        plural = "s" if workers != 1 else ""
        notice(
            f"Serving agent {agent!r} ({count} tools) over MCP at {url} ({workers} worker{plural}; health: /healthz)"
        )
        from ..serve.http import serve_http

        keep_until_exit()  # the server's modules are loaded too, and no tool code has run yet
        return _stopped(serve_http(opened, options))


def _stopped(by: int | None) -> int:
    """The exit code of a server that stopped in order, its project closed (what the tools wrote is flushed).

    ``by`` is the signal that stopped it: a Ctrl-C is an interruption, as in every command;
    SIGTERM and SIGHUP end the process by the signal (its default action: no exit handlers
    run).  ``None``, a server that ended of itself (the host closed stdin), is a success.
    """
    if by == signal.SIGINT:
        raise KeyboardInterrupt
    if by is not None:
        return end_by_signal(by)
    return 0
