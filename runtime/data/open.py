"""Choose and open the store of one environment: PostgreSQL when a URL names one, else SQLite.

Where the data goes, first match wins:

1. ``SKILL_DATA_URL`` among the environment's variables (the shell's, then ``.env.<environment>``
   and ``.env``), a ``postgresql://`` URL;
2. ``[tool.skill.data] url`` in the project's ``pyproject.toml`` (given here as ``url``);
3. a SQLite file, ``<folder>/<environment>.sqlite3``, with ``folder`` from
   ``[tool.skill.data] path`` (default ``.skill/data`` in the project).

Either way the sandbox and production never share documents: each environment has its own
SQLite file, or its own table in PostgreSQL.  The choice and the URL's syntax are checked
here, when the project is loaded; the database itself is opened on first use, so a project
whose tools never touch ``ctx.data`` never creates one.
"""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Mapping
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Final

from ...contracts.errors import ConfigError
from ...contracts.spec import ENVIRONMENTS
from .api import DataStore
from .backend import Backend
from .urls import backend_kind, redact_url

__all__ = ["DEFAULT_FOLDER", "URL_VARIABLE", "open_store", "scratch_store", "sqlite_file"]

URL_VARIABLE: Final = "SKILL_DATA_URL"
#: Where the SQLite databases go, relative to the project, unless ``[tool.skill.data] path`` says otherwise.
DEFAULT_FOLDER: Final = Path(".skill") / "data"


def sqlite_file(folder: Path, environment: str) -> Path:
    """The SQLite database of ``environment`` in ``folder``."""
    if environment not in ENVIRONMENTS:
        raise ConfigError(f"environment must be one of {', '.join(ENVIRONMENTS)}, not {environment!r}")
    return folder / f"{environment}.sqlite3"


def _backend(module: str, *arguments: Any) -> Backend:
    backend: Backend = import_module(module, __package__).connect(*arguments)
    return backend


def open_store(
    root: Path,
    environment: str,
    *,
    url: str | None = None,
    folder: Path | None = None,
    variables: Mapping[str, str] | None = None,
) -> DataStore:
    """The store of ``environment`` for the project at ``root`` (see the module's docstring for the choice).

    A URL that names no PostgreSQL database, or one when psycopg is not installed, is a
    ``ConfigError``; no connection is made until the store is first used.
    """
    chosen_folder = folder if folder is not None else root / DEFAULT_FOLDER
    database = sqlite_file(chosen_folder, environment)
    given = (variables or {}).get(URL_VARIABLE) or None
    origin = URL_VARIABLE if given else "[tool.skill.data] url"
    chosen = given or url
    if not chosen:
        return DataStore(lambda: _backend(".sqlite", database), str(database))
    backend_kind(chosen, origin)
    if find_spec("psycopg") is None or find_spec("psycopg_pool") is None:
        raise ConfigError(
            f"{origin} names a PostgreSQL database, but psycopg is not installed",
            hint="install the driver with: pip install 'skillc[postgres]'",
        )
    return DataStore(lambda: _backend(".postgres", chosen, environment), redact_url(chosen))


def scratch_store() -> DataStore:
    """A SQLite store in a temporary folder of its own, made on first use and removed when the store is closed.

    It is what ``ctx.data`` is in a ``ToolContext`` built by hand (a unit test's), so that
    such a context works; documents written there last only as long as the store.
    """
    made: list[str] = []

    def connect() -> Backend:
        made.append(tempfile.mkdtemp(prefix="skillc-data-"))
        return _backend(".sqlite", Path(made[0]) / "sandbox.sqlite3")

    def remove() -> None:
        for folder in made:
            shutil.rmtree(folder, ignore_errors=True)

    store = DataStore(connect, "a temporary store", on_close=remove)
    weakref.finalize(store, remove)
    return store
