"""``skill chat --client-results FILE``: the results of client-side tools, given in advance.

The file is a JSON object whose keys are names of client-side tools.  A key's value is the
result of each call of that tool; a list is the results of its calls in order, one list
item per call (so a tool whose one result is itself a list is written ``[[...]]``).  A
call past the end of its list, or of a tool the file does not name, is an error result
the model reads.  The file is read and checked before anything is compiled or asked.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from ..contracts.errors import UsageError
from ..runtime.client import ClientError, ClientHandler
from ..runtime.ownjson import read_json

__all__ = ["read_client_results", "results_handler"]


def read_client_results(path: Path) -> dict[str, Any]:
    """The object of ``path``; a ``UsageError`` that says what is wrong with the file otherwise."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"--client-results {path}: cannot read it ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise UsageError(f"--client-results {path} is not UTF-8 text") from None
    try:
        document = read_json(text)
    except (ValueError, RecursionError) as error:
        raise UsageError(f"--client-results {path} is not JSON: {error}") from None
    if not isinstance(document, dict):
        raise UsageError(
            f"--client-results {path} must hold a JSON object: tool name -> result (or list of results in order)",
            hint="""e.g. {"get_location": {"latitude": 48.86, "longitude": 2.35}, "pick_color": ["red", "blue"]}""",
        )
    return document


def results_handler(path: Path, results: Mapping[str, Any], client_tools: Collection[str]) -> ClientHandler:
    """A handler that answers each call from ``results``; a ``UsageError`` for a key that names no client tool."""
    unknown = sorted(set(results) - set(client_tools))
    if unknown:
        known = ", ".join(sorted(client_tools)) or "none"
        raise UsageError(
            f"--client-results {path} names {unknown[0]!r}, which is not a client-side tool of the agent",
            hint=f"the client-side tools are: {known}",
        )
    used: dict[str, int] = {}

    async def answer(name: str, arguments: dict[str, Any]) -> Any:
        # On the event loop, without a pause: the calls of one reply take their results in call order.
        if name not in results:
            raise ClientError(f"No result was given for {name!r}: --client-results has none for this tool.")
        given = results[name]
        if not isinstance(given, list):
            return given
        index = used.get(name, 0)
        used[name] = index + 1
        if index >= len(given):
            raise ClientError(
                f"No result was given for this call of {name!r}: the {len(given)} in --client-results are used up."
            )
        return given[index]

    return answer
