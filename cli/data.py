"""``skill data``: the options of the command; what each action does is in ``cli.data_actions``.

This module is imported by every ``skill`` invocation (the command is registered in
``cli.app``), so it imports nothing heavier than typer; the actions load the store's
code only when ``skill data`` runs.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["data_command"]


class DataEnvironment(str, Enum):
    """Whose documents: the sandbox's or production's (they never share any)."""

    sandbox = "sandbox"
    production = "production"


def data_command(
    words: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[PROJECT] ACTION [ARGS]...", help="The project folder (default .), the action and its arguments."
        ),
    ] = None,
    environment: Annotated[
        DataEnvironment, typer.Option("-e", "--environment", help="Whose documents.")
    ] = DataEnvironment.sandbox,
    filter: Annotated[
        str | None, typer.Option("--filter", help="find: a MongoDB-style filter, as a JSON object.")
    ] = None,
    sort: Annotated[
        list[str] | None, typer.Option("--sort", help="find: a field to sort by, -field for descending (repeatable).")
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="find, search: at most this many (default 20).")] = None,
    offset: Annotated[int, typer.Option("--offset", help="find: skip this many first.")] = 0,
    file: Annotated[Path | None, typer.Option("--file", help="put: read the document from FILE (- for stdin).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    yes: Annotated[bool, typer.Option("--yes", help="clear: do not ask for confirmation.")] = False,
) -> int:
    """Look at and change the documents tools keep in ctx.data.

    \b
    Actions:
      collections                      the collections and how many documents each holds
      find COLLECTION                  documents, with --filter JSON, --sort, --limit, --offset
      search COLLECTION TEXT           documents holding the words of TEXT, best first
      get COLLECTION ID                one document
      put COLLECTION ID [JSON]         store a document (or --file FILE), replacing one with that id
      delete COLLECTION ID             delete a document
      import COLLECTION FILE           store the documents of a JSON array or JSON lines file (- for stdin)
      export COLLECTION                print every document as JSON lines
      clear [COLLECTION]               delete every document (of one collection); asks unless --yes
    """
    from .data_actions import DataRequest, run_data_command

    return run_data_command(
        DataRequest(
            words=tuple(words or ()),
            environment=environment.value,
            filter=filter,
            sort=tuple(sort or ()),
            limit=limit,
            offset=offset,
            file=file,
            as_json=as_json,
            yes=yes,
        )
    )
