"""``skill compile``, ``skill test`` and ``skill serve``, declared once for typer and for the quick parse.

Each command is a plain function: its signature is the one list of its options (see
``cli.quick``), its docstring its help.  ``cli.app`` registers it as a typer command; a
plain command line reaches it through ``quick_call`` without typer being imported.  The
body only hands the options to the module that does the work (``cli.compiling``,
``cli.tooltest``, ``cli.serve``), imported when the command runs: ``skill --help`` loads
no project.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from enum import Enum
from functools import partial
from pathlib import Path
from typing import Annotated

from ..serve.choices import Host, Transport
from .lifetime import collect_seldom, keep_until_exit
from .quick import argument, option, parse_plain

__all__ = ["QUICK_COMMANDS", "Environment", "OutputFormat", "compile_", "quick_call", "serve", "settings", "test"]


class Environment(str, Enum):
    """Which variables a tool runs with."""

    sandbox = "sandbox"
    production = "production"


class OutputFormat(str, Enum):
    """How ``skill compile`` prints its result."""

    text = "text"
    json = "json"


class _Settings:
    """Global flags, read by ``cli.main`` when it reports an error."""

    debug: bool = False


settings = _Settings()

#: The root's one option that a quick command line may give before the command's name.
ROOT_DEBUG = "--debug"
#: Set, it asks typer for shell completion instead of a run.
COMPLETION_VARIABLE = "_SKILL_COMPLETE"


def compile_(
    project: Annotated[Path, argument(help="Project folder (or any folder inside it).")] = Path("."),
    out: Annotated[Path | None, option("--out", help="Output folder (default: dist).")] = None,
    output_format: Annotated[
        OutputFormat, option("--format", help="text for people, json for CI.")
    ] = OutputFormat.text,
    watch: Annotated[bool, option("--watch", help="Recompile on every change.")] = False,
    verify: Annotated[bool, option("--verify", help="Import each bundle in an isolated process.")] = False,
    check: Annotated[bool, option("--check", help="Only check: write no dist/.")] = False,
    allow_import: Annotated[
        bool,
        option(
            "--allow-import",
            help='Let schema = "import" import the project\'s code (isolated, one process per tool).',
        ),
    ] = False,
) -> int:
    """Check the project statically and build its per-tool bundles."""
    collect_seldom()  # until it ends: no project code runs in this process
    from .compiling import run_compile_command  # for start-up: the compiler loads when the command runs

    code = run_compile_command(
        project,
        out=out,
        as_json=output_format is OutputFormat.json,
        watch=watch,
        verify=verify,
        check=check,
        allow_import=allow_import,
    )
    if not watch:  # a watch's compiles replace what the last one kept: it must stay collectable
        keep_until_exit()  # no project code ran in this process: what is left is skillc's
    return code


def test(
    name: Annotated[str | None, option("--name", help="The tool to run.")] = None,
    input: Annotated[str | None, option("--input", help="The tool's input, as JSON.")] = None,
    project: Annotated[Path, argument(help="Project folder.")] = Path("."),
    as_json: Annotated[bool, option("--json", help="Print the result as one JSON object.")] = False,
    environment: Annotated[
        Environment, option("-e", "--environment", help="Variables to run with.")
    ] = Environment.sandbox,
    skip_condition: Annotated[
        bool, option("--skip-condition", help="Run the tool even if its condition hides it.")
    ] = False,
    approve: Annotated[bool, option("--approve", help="Approve a tool that needs approval.")] = False,
    user: Annotated[str | None, option("--user", help="ctx.user for the call, as a JSON object.")] = None,
    session: Annotated[str | None, option("--session", help="ctx.session for the call, as a JSON object.")] = None,
    state: Annotated[str | None, option("--state", help="ctx.state for the call, as a JSON object.")] = None,
    result: Annotated[
        str | None, option("--result", help="A client-side tool's result, as JSON (it has no execute).")
    ] = None,
) -> int:
    """Run one tool from its compiled bundle, as a model's call would."""
    collect_seldom()  # while it loads: until run_test_command has opened the project (keep_until_exit)
    from .tooltest import run_test_command  # for start-up: the project and runtime load when the command runs

    return run_test_command(
        project,
        name,
        input,
        as_json=as_json,
        environment=environment.value,
        skip_condition=skip_condition,
        approve=approve,
        user=user,
        session=session,
        state=state,
        result_text=result,
        debug=settings.debug,
    )


def serve(
    project: Annotated[Path, argument(help="Project folder.")] = Path("."),
    transport: Annotated[
        Transport, option("--transport", help="stdio for a host that starts the server, http to listen.")
    ] = Transport.stdio,
    host: Annotated[str, option("--host", help="Address to listen on (http).")] = "127.0.0.1",
    port: Annotated[int, option("--port", help="Port to listen on (http).")] = 8000,
    path: Annotated[str, option("--path", help="URL path of the MCP endpoint (http).")] = "/mcp",
    workers: Annotated[int, option("--workers", help="Worker processes (http).")] = 1,
    environment: Annotated[
        Environment, option("-e", "--environment", help="Variables to run with.")
    ] = Environment.sandbox,
    approve: Annotated[
        bool, option("--approve", help="Run tools that need approval: the host has asked its user.")
    ] = False,
    print_config: Annotated[
        Host | None, option("--print-config", help="Print what makes HOST start the server, and exit.")
    ] = None,
) -> int:
    """Serve the compiled tools over MCP (Model Context Protocol)."""
    collect_seldom()  # while it loads: until run_serve_command has loaded the server (keep_until_exit)
    from .serve import run_serve_command  # for start-up: the project and runtime load when the command runs

    return run_serve_command(
        project,
        transport=transport,
        host=host,
        port=port,
        path=path,
        workers=workers,
        environment=environment.value,
        approve=approve,
        print_config=print_config,
        debug=settings.debug,
    )


#: The commands a plain command line runs without typer, by name.
QUICK_COMMANDS: dict[str, Callable[..., int]] = {"compile": compile_, "test": test, "serve": serve}


def quick_call(args: Sequence[str]) -> Callable[[], int] | None:
    """The call a plain command line (``args``, without the program's name) makes, or ``None`` for typer.

    Plain: ``--debug`` at most before the name of a quick command, then what
    ``quick.parse_plain`` takes, and no shell completion asked for.  ``--debug`` sets
    ``settings.debug`` as the root's option does.
    """
    if os.environ.get(COMPLETION_VARIABLE):
        return None
    at = next((index for index, arg in enumerate(args) if not arg.startswith("-")), None)
    if at is None or any(arg != ROOT_DEBUG for arg in args[:at]) or args[at] not in QUICK_COMMANDS:
        return None
    command = QUICK_COMMANDS[args[at]]
    values = parse_plain(command, args[at + 1 :])
    if values is None:
        return None
    settings.debug = at > 0
    return partial(command, **values)
