"""The ``skill`` command line: options in, one library call, rendered output out.

Each command returns its exit code; ``cli.main`` is the one place that turns errors into
exit codes and messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from ..contracts.version import __version__
from .commands import Environment, compile_, serve, settings, test
from .consoles import stdout
from .data import data_command
from .typer_commands import typer_command

__all__ = ["app", "app_for", "settings"]


#: How ``app`` is made, and each one-command app ``app_for`` makes.
_APP_SETTINGS: dict[str, Any] = {
    "name": "skill",
    "help": "Write, check and ship LLM tools in Python.",
    "no_args_is_help": True,
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
    "context_settings": {"help_option_names": ["-h", "--help"]},
}

app = typer.Typer(**_APP_SETTINGS)


def app_for(args: Sequence[str]) -> typer.Typer:
    """The app that parses ``args``: ``app`` with only the command ``args`` names, else all of ``app``.

    Typer builds each command's parser from its signature on every start, which costs
    more than the rest of the parse; a command line names one command, so only that
    one is built.  The root's options take no value, so the command's name is the
    first argument that is not an option.  Without a known name (``skill``, ``skill
    --help``, a typo) it is the whole app: the help lists every command and a typo
    gets suggestions.
    """
    named = next((arg for arg in args if not arg.startswith("-")), None)
    chosen = [
        info
        for info in app.registered_commands
        if info.callback is not None and (info.name or typer.main.get_command_name(info.callback.__name__)) == named
    ]
    if not chosen:
        return app
    one = typer.Typer(**_APP_SETTINGS)
    one.registered_callback = app.registered_callback
    one.registered_commands = chosen
    return one


def _show_version(value: bool) -> None:
    if value:
        stdout().print(f"skill {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Print the version and exit."),
    ] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show the full traceback of unexpected errors.")] = False,
) -> None:
    """Write, check and ship LLM tools in Python."""
    settings.debug = debug


@app.command()
def init(
    path: Annotated[Path, typer.Argument(metavar="NAME", help="Folder to create the project in.")],
    name: Annotated[str | None, typer.Option("--name", help="Agent name, if not the folder's name.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Write into a folder that is not empty.")] = False,
    pretend: Annotated[bool, typer.Option("--pretend", help="Print what would be written; write nothing.")] = False,
) -> int:
    """Create a new agent project from the template."""
    from ..templates import scaffold_project

    files = scaffold_project(path, name=name, force=force, pretend=pretend)
    verb = "Would write" if pretend else "Created"
    stdout().print(f"{verb} {len(files)} files in {path}/")
    for planned in files:
        stdout().print(f"  {planned.path}")
    if not pretend:
        stdout().print(
            f"\nNext:\n  cd {path}\n  pytest\n  skill compile\n"
            '  skill test --name lookup_order --input \'{"order_id": "A1001"}\''
        )
    return 0


# Declared in cli.commands, which a plain command line reaches without typer (start-up).
app.command(name="compile")(typer_command(compile_))
# Declared in cli.commands, which a plain command line reaches without typer (start-up).
app.command(name="test")(typer_command(test))


@app.command()
def chat(
    project: Annotated[Path, typer.Argument(help="Project folder.")] = Path("."),
    message: Annotated[
        str | None, typer.Option("-m", "--message", help="Send one message, print the answer, exit.")
    ] = None,
    environment: Annotated[
        Environment, typer.Option("-e", "--environment", help="Variables to run with.")
    ] = Environment.sandbox,
    model: Annotated[str | None, typer.Option("--model", help="Model name.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint.")] = None,
    thread: Annotated[str | None, typer.Option("--thread", help="Keep the conversation under this id.")] = None,
    max_steps: Annotated[int | None, typer.Option("--max-steps", help="Model steps per turn (default 20).")] = None,
    approve: Annotated[bool, typer.Option("--approve", help="Approve tools that need approval.")] = False,
    user: Annotated[str | None, typer.Option("--user", help="ctx.user for every call, as a JSON object.")] = None,
    session: Annotated[
        str | None, typer.Option("--session", help="ctx.session for every call, as a JSON object.")
    ] = None,
    voice: Annotated[
        bool, typer.Option("--voice", help="Simulate a voice session: the tools' voice flags apply.")
    ] = False,
    client_results: Annotated[
        Path | None,
        typer.Option(
            "--client-results",
            help="JSON file: client-side tool name -> its result, or a list of results in call order.",
        ),
    ] = None,
) -> int:
    """Talk to the agent through a model, running its tool calls."""
    from .chat import run_chat_command

    return run_chat_command(
        project,
        message,
        environment=environment.value,
        model=model,
        base_url=base_url,
        thread_id=thread,
        max_steps=max_steps,
        approve=approve,
        user=user,
        session=session,
        voice=voice,
        client_results=client_results,
        debug=settings.debug,
    )


app.command(name="serve")(typer_command(serve))
app.command(name="data")(data_command)
