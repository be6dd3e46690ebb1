"""What each ``skill data`` action does: open the environment's store, one library call, print.

The store is the one the project's tools get as ``ctx.data`` (``project.open_project_data``),
found from ``pyproject.toml`` without compiling anything.  Text output is a table or
pretty JSON, with what the documents hold made visible (``consoles.shown``); ``--json``
prints exact JSON.  Exit codes: 0 done, 1 no such document (or clear declined), 2 bad input.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

from rich.table import Table

from ..compiler.config import locate_config, read_config
from ..contracts.errors import UsageError
from ..project import open_project_data
from ..runtime.arguments import decode_json
from ..runtime.context import Environment
from ..runtime.data import DataStore
from .consoles import notice, out_stream, shown, stderr, stdout, visible

__all__ = ["ACTIONS", "DataRequest", "run_data_command"]

#: What ``find`` and ``search`` show without ``--limit``.
DEFAULT_LIMIT: Final = 20
#: The widest a table cell gets before it is cut (``--json`` shows everything).
CELL_WIDTH: Final = 60


@dataclass(frozen=True)
class DataRequest:
    """The command line of one ``skill data`` run."""

    words: tuple[str, ...]
    environment: str
    filter: str | None = None
    sort: tuple[str, ...] = ()
    limit: int | None = None
    offset: int = 0
    file: Path | None = None
    as_json: bool = False
    yes: bool = False


def _write(text: str) -> None:
    stream = out_stream()
    stream.write(text + "\n")
    stream.flush()


def _json_text(value: Any, *, pretty: bool = False) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2 if pretty else None)


def _json_flag(flag: str, text: str, example: str) -> Any:
    try:
        return decode_json(text)
    except ValueError as error:
        raise UsageError(f"{flag} is not JSON: {error}", hint=f"e.g. {example}") from None


def _arguments(request: DataRequest, action: str, names: tuple[str, ...], optional: int = 0) -> tuple[str, ...]:
    given = request.words[1:]
    if not len(names) - optional <= len(given) <= len(names):
        usage = " ".join(names[: len(names) - optional]) + "".join(
            f" [{name}]" for name in names[len(names) - optional :]
        )
        raise UsageError(f"usage: skill data [PROJECT] {action} {usage}".rstrip())
    return tuple(given)


# --- the actions ------------------------------------------------------------------------


def _collections(store: DataStore, request: DataRequest) -> int:
    _arguments(request, "collections", ())
    found = store.collections()
    if request.as_json:
        _write(_json_text([{"collection": name, "documents": count} for name, count in found.items()]))
        return 0
    if not found:
        stdout().print(f"No documents in the {request.environment} store.")
        return 0
    table = Table(box=None, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("collection", no_wrap=True)
    table.add_column("documents", justify="right")
    for name, count in found.items():
        table.add_row(shown(name), str(count))
    stdout().print(table)
    return 0


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else _json_text(value)
    text = text.replace("\n", " ")
    return shown(text if len(text) <= CELL_WIDTH else text[: CELL_WIDTH - 3] + "...")


def _print_documents(documents: list[dict[str, Any]], summary: str) -> None:
    if documents:
        columns = list(dict.fromkeys(key for document in documents for key in document))
        table = Table(box=None, show_edge=False, pad_edge=False, header_style="bold")
        for column in columns:
            table.add_column(shown(column), no_wrap=True, overflow="ellipsis")
        for document in documents:
            table.add_row(*(_cell(document[column]) if column in document else "" for column in columns))
        stdout().print(table)
    stdout().print(summary)


def _find(store: DataStore, request: DataRequest) -> int:
    (collection,) = _arguments(request, "find", ("COLLECTION",))
    where = None
    if request.filter is not None:
        where = _json_flag("--filter", request.filter, """--filter '{"status": {"$in": ["new", "paid"]}}'""")
        if not isinstance(where, dict):
            raise UsageError("--filter must be a JSON object", hint="""e.g. --filter '{"status": "shipped"}'""")
    limit = DEFAULT_LIMIT if request.limit is None else request.limit
    page = store.collection(collection).find(where, sort=list(request.sort) or None, limit=limit, offset=request.offset)
    if request.as_json:
        document = {"total": page.total, "offset": page.offset, "limit": page.limit, "documents": page.items}
        _write(_json_text(document))
        return 0
    shown_range = f"{page.offset + 1}-{page.offset + len(page)}" if page.items else "none"
    more = " (--limit and --offset show others)" if page.offset + len(page) < page.total else ""
    _print_documents(page.items, f"{shown_range} of {page.total} documents in {shown(collection)}{more}")
    return 0


def _search(store: DataStore, request: DataRequest) -> int:
    collection, text = _arguments(request, "search", ("COLLECTION", "TEXT"))
    limit = DEFAULT_LIMIT if request.limit is None else request.limit
    hits = store.collection(collection).search(text, limit=max(limit, 1))
    if request.as_json:
        _write(_json_text([{"score": hit.score, "document": hit.item} for hit in hits]))
        return 0
    _print_documents([hit.item for hit in hits], f"{len(hits)} documents in {shown(collection)}, best first")
    return 0


def _get(store: DataStore, request: DataRequest) -> int:
    collection, identifier = _arguments(request, "get", ("COLLECTION", "ID"))
    document = store.collection(collection).get(identifier)
    if document is None:
        stderr().print(f"[bold red]error:[/] no document {shown(repr(identifier))} in {shown(collection)}")
        return 1
    if request.as_json:
        _write(_json_text(document))
    else:
        stdout().print(shown(_json_text(document, pretty=True)))
    return 0


def _read_text(path: Path) -> str:
    try:
        return sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from None


def _put(store: DataStore, request: DataRequest) -> int:
    given = _arguments(request, "put", ("COLLECTION", "ID", "JSON"), optional=1)
    collection, identifier = given[0], given[1]
    if (len(given) == 3) == (request.file is not None):
        raise UsageError("put takes the document as JSON or with --file FILE (one of them)")
    text = given[2] if len(given) == 3 else _read_text(cast(Path, request.file))
    document = _json_flag("the document", text, """skill data put orders A1003 '{"status": "new"}'""")
    if not isinstance(document, dict):
        raise UsageError(f"the document must be a JSON object, not {type(document).__name__}")
    existed = store.collection(collection).get(identifier) is not None
    stored = store.collection(collection).put(identifier, document)
    if request.as_json:
        _write(_json_text(stored))
    else:
        stdout().print(f"{'Replaced' if existed else 'Stored'} {shown(collection)}/{shown(identifier)}")
    return 0


def _delete(store: DataStore, request: DataRequest) -> int:
    collection, identifier = _arguments(request, "delete", ("COLLECTION", "ID"))
    if not store.collection(collection).delete(identifier):
        stderr().print(f"[bold red]error:[/] no document {shown(repr(identifier))} in {shown(collection)}")
        return 1
    if request.as_json:
        _write(_json_text({"deleted": identifier}))
    else:
        stdout().print(f"Deleted {shown(collection)}/{shown(identifier)}")
    return 0


def _documents_of(text: str, source: str) -> Iterator[Any]:
    """The documents of a JSON array, or of JSON lines (one document a line)."""
    if text.lstrip().startswith("["):
        documents = _json_flag(source, text, "a JSON array of objects, or one JSON object a line")
        yield from documents
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                yield decode_json(line)
            except ValueError as error:
                raise UsageError(f"{source}:{number}: not JSON: {error}") from None


def _import(store: DataStore, request: DataRequest) -> int:
    collection, name = _arguments(request, "import", ("COLLECTION", "FILE"))
    documents = list(_documents_of(_read_text(Path(name)), name))
    for index, document in enumerate(documents, start=1):
        if not isinstance(document, dict):
            raise UsageError(f"{name}: document {index} is {type(document).__name__}, not a JSON object")
    count = store.collection(collection).insert_many(documents, if_exists="replace")
    if request.as_json:
        _write(_json_text({"collection": collection, "imported": count}))
    else:
        stdout().print(f"Imported {count} documents into {shown(collection)}")
    return 0


def _export(store: DataStore, request: DataRequest) -> int:
    (collection,) = _arguments(request, "export", ("COLLECTION",))
    for document in store.collection(collection).find():
        _write(_json_text(document))
    return 0


def _confirm(question: str) -> bool:
    if not sys.stdin.isatty():
        raise UsageError("clear deletes documents and there is no terminal to ask on: pass --yes to confirm")
    stderr().print(f"{visible(question)} [y/N] ", end="", markup=False)
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def _clear(store: DataStore, request: DataRequest) -> int:
    given = _arguments(request, "clear", ("COLLECTION",), optional=1)
    collection = store.collection(given[0]) if given else None
    what = f"every document of {given[0]}" if given else "every document of every collection"
    if not request.yes and not _confirm(f"Delete {what} in the {request.environment} store?"):
        stderr().print("Nothing deleted.")
        return 1
    count = collection.clear() if collection is not None else store.clear()
    if request.as_json:
        _write(_json_text({"deleted": count}))
    else:
        stdout().print(f"Deleted {count} documents.")
    return 0


ACTIONS: Final[dict[str, Callable[[DataStore, DataRequest], int]]] = {
    "collections": _collections,
    "find": _find,
    "search": _search,
    "get": _get,
    "put": _put,
    "delete": _delete,
    "import": _import,
    "export": _export,
    "clear": _clear,
}


def run_data_command(request: DataRequest) -> int:
    """Find the project and its store, run the action, print; the exit code."""
    words, project = request.words, Path(".")
    if words and words[0] not in ACTIONS and (len(words) > 1 or Path(words[0]).is_dir()):
        project, words = Path(words[0]), words[1:]  # the project folder came first
    if not words or words[0] not in ACTIONS:
        known = ", ".join(ACTIONS)
        raise UsageError(
            f"skill data needs an action: {known}"
            if not words
            else f"unknown action {words[0]!r}; the actions are: {known}",
            hint="e.g. skill data collections, or skill data find orders --limit 5",
        )
    if request.limit is not None and request.limit < 0 or request.offset < 0:
        raise UsageError("--limit and --offset take whole numbers, 0 or more")
    config = read_config(locate_config(project))
    store = open_project_data(config, cast(Environment, request.environment))
    with store:
        notice(f"{request.environment} data: {store.description}")
        return ACTIONS[words[0]](store, DataRequest(**{**request.__dict__, "words": words}))
