"""The SQLite backend: one database file per environment, safe for many threads and processes.

Each thread has its own connection (a ``sqlite3`` connection must not be shared; it is
closed when its thread ends), the
database is in WAL mode (readers never wait for a writer), every connection waits up to
``BUSY_TIMEOUT`` seconds for a lock another process holds, and every write is one
transaction: a read-modify-write such as a patch takes the write lock first
(``BEGIN IMMEDIATE``), so two patches of one document never both read the old version.
Writers of one process also queue on a lock of their own, so that they wait in order
instead of polling SQLite's busy handler.

The text search index is an FTS5 table over the words ``documents.search_words`` gives,
kept in step with the documents by triggers.
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from ..ownjson import read_json
from .backend import Conflict, Query, Row, Stored
from .documents import json_equal
from .errors import DuplicateId, StoreUnavailable
from .filters import Filter, sqlite_order, sqlite_where

__all__ = ["BUSY_TIMEOUT", "SqliteBackend", "connect"]

#: Seconds a statement waits for a lock that another connection holds before it fails.
BUSY_TIMEOUT: Final = 30.0
#: The layout of the tables; a database written by a newer skillc with another layout is refused.
SCHEMA_VERSION: Final = 1

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS documents (
    seq INTEGER PRIMARY KEY,
    collection TEXT NOT NULL,
    id TEXT NOT NULL,
    body TEXT NOT NULL,
    words TEXT NOT NULL DEFAULT '',
    UNIQUE (collection, id)
);
CREATE VIRTUAL TABLE IF NOT EXISTS documents_search USING fts5(
    words, content='documents', content_rowid='seq', tokenize='unicode61 remove_diacritics 0'
);
CREATE TRIGGER IF NOT EXISTS documents_inserted AFTER INSERT ON documents BEGIN
    INSERT INTO documents_search(rowid, words) VALUES (new.seq, new.words);
END;
CREATE TRIGGER IF NOT EXISTS documents_deleted AFTER DELETE ON documents BEGIN
    INSERT INTO documents_search(documents_search, rowid, words) VALUES ('delete', old.seq, old.words);
END;
CREATE TRIGGER IF NOT EXISTS documents_updated AFTER UPDATE OF words ON documents
WHEN old.words IS NOT new.words BEGIN
    INSERT INTO documents_search(documents_search, rowid, words) VALUES ('delete', old.seq, old.words);
    INSERT INTO documents_search(rowid, words) VALUES (new.seq, new.words);
END;
"""

_INSERT: Final = {
    "fail": "INSERT INTO documents (collection, id, body, words) VALUES (?, ?, ?, ?)",
    "skip": "INSERT INTO documents (collection, id, body, words) VALUES (?, ?, ?, ?) ON CONFLICT (collection, id) DO NOTHING",
    "replace": (
        "INSERT INTO documents (collection, id, body, words) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (collection, id) DO UPDATE SET body = excluded.body, words = excluded.words"
    ),
}


def _json_equal(left: str | None, right: str | None) -> int:
    if left is None or right is None:
        return 0
    return int(json_equal(read_json(left), read_json(right)))


class SqliteBackend:
    """The collections of one SQLite database file."""

    kind = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._guard = threading.Lock()
        self._writing = threading.Lock()
        self._closed = False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreUnavailable(f"cannot create the folder of {path}: {error.strerror or error}") from None
        self._prepare(self._connection())

    def describe(self) -> str:
        return str(self.path)

    # --- connections --------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is not None:
            return connection
        try:
            connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA synchronous = NORMAL")
            connection.create_function("skill_json_equal", 2, _json_equal, deterministic=True)
        except sqlite3.Error as error:
            raise StoreUnavailable(f"cannot open the data store {self.path}: {error}") from None
        with self._guard:
            if self._closed:
                connection.close()
                raise StoreUnavailable(f"the data store {self.path} is closed")
            self._connections.append(connection)
        self._local.connection = connection
        # A thread that ends (a worker replaced, a condition's thread left behind) takes its connection along.
        weakref.finalize(threading.current_thread(), self._forget, connection)
        return connection

    def _forget(self, connection: sqlite3.Connection) -> None:
        with self._guard:
            if connection not in self._connections:
                return
            self._connections.remove(connection)
        connection.close()

    def _prepare(self, connection: sqlite3.Connection) -> None:
        """Switch the file to WAL and create the tables, once, whichever process gets there first."""
        try:
            if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                connection.execute("PRAGMA journal_mode = WAL")
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version == SCHEMA_VERSION:
                return
            if version > SCHEMA_VERSION:
                raise StoreUnavailable(
                    f"the data store {self.path} was written by a newer skillc (layout {version}); upgrade skillc"
                )
            with self._transaction(connection):  # executescript would commit: one statement at a time
                for statement in _statements(_SCHEMA):
                    connection.execute(statement)
                connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as error:
            raise StoreUnavailable(f"cannot use {self.path} as a data store: {error}") from None

    @contextmanager
    def _transaction(self, connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        """One write transaction that holds the database's write lock from its start."""
        with self._writing:
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

    def close(self) -> None:
        with self._guard:
            self._closed = True
            connections, self._connections = self._connections, []
        for connection in connections:
            connection.close()

    # --- the operations -----------------------------------------------------------------

    def insert(self, collection: str, documents: Sequence[Stored], conflict: Conflict) -> int:
        connection = self._connection()
        rows = [(collection, item.id, item.text, item.words) for item in documents]
        try:
            if len(rows) == 1 and conflict != "skip":
                with self._writing:
                    return connection.execute(_INSERT[conflict], rows[0]).rowcount
            with self._transaction(connection):
                written = connection.executemany(_INSERT[conflict], rows).rowcount
                return written if conflict == "skip" else len(rows)
        except sqlite3.IntegrityError:
            taken = [item.id for item in documents if self.get(collection, item.id) is not None]
            raise DuplicateId(
                f"{collection!r} already holds a document with the id {taken[0]!r}" if taken else "an id is taken"
            ) from None

    def get(self, collection: str, identifier: str) -> str | None:
        row = (
            self._connection()
            .execute("SELECT body FROM documents WHERE collection = ? AND id = ?", (collection, identifier))
            .fetchone()
        )
        return None if row is None else str(row[0])

    def replace(self, collection: str, document: Stored) -> bool:
        with self._writing:
            cursor = self._connection().execute(
                "UPDATE documents SET body = ?, words = ? WHERE collection = ? AND id = ?",
                (document.text, document.words, collection, document.id),
            )
        return cursor.rowcount > 0

    def update(self, collection: str, identifier: str, change: Callable[[str], Stored]) -> Stored | None:
        connection = self._connection()
        with self._transaction(connection):
            row = connection.execute(
                "SELECT body FROM documents WHERE collection = ? AND id = ?", (collection, identifier)
            ).fetchone()
            if row is None:
                return None
            changed = change(row[0])
            connection.execute(
                "UPDATE documents SET body = ?, words = ? WHERE collection = ? AND id = ?",
                (changed.text, changed.words, collection, identifier),
            )
            return changed

    def delete(self, collection: str, identifier: str) -> bool:
        with self._writing:
            cursor = self._connection().execute(
                "DELETE FROM documents WHERE collection = ? AND id = ?", (collection, identifier)
            )
        return cursor.rowcount > 0

    def find(self, collection: str, query: Query) -> tuple[list[Row], int]:
        params: list[Any] = [collection]
        where = sqlite_where(query.where, params)
        order = sqlite_order(query.sort, params)
        params += [-1 if query.limit is None else query.limit, query.offset]
        rows = (
            self._connection()
            .execute(
                f"SELECT id, body, count(*) OVER () FROM documents WHERE collection = ? AND {where} "
                f"ORDER BY {order} LIMIT ? OFFSET ?",
                params,
            )
            .fetchall()
        )
        if rows:
            return [(row[0], row[1]) for row in rows], int(rows[0][2])
        return [], self.count(collection, query.where) if query.offset or query.limit == 0 else 0

    def count(self, collection: str, where: Filter | None) -> int:
        params: list[Any] = [collection]
        condition = sqlite_where(where, params)
        statement = f"SELECT count(*) FROM documents WHERE collection = ? AND {condition}"
        return int(self._connection().execute(statement, params).fetchone()[0])

    def search(
        self, collection: str, words: Sequence[str], where: Filter | None, limit: int
    ) -> list[tuple[str, str, float]]:
        params: list[Any] = [" OR ".join(f'"{word}"' for word in words), collection]
        condition = sqlite_where(where, params, body="d.body", ident="d.id")
        params.append(limit)
        rows = (
            self._connection()
            .execute(
                "SELECT d.id, d.body, bm25(documents_search) AS rank FROM documents_search "
                "JOIN documents AS d ON d.seq = documents_search.rowid "
                f"WHERE documents_search MATCH ? AND d.collection = ? AND {condition} ORDER BY rank, d.id LIMIT ?",
                params,
            )
            .fetchall()
        )
        return [(row[0], row[1], -float(row[2])) for row in rows]

    def collections(self) -> list[tuple[str, int]]:
        rows = self._connection().execute(
            "SELECT collection, count(*) FROM documents GROUP BY collection ORDER BY collection"
        )
        return [(str(name), int(count)) for name, count in rows]

    def clear(self, collection: str | None) -> int:
        with self._writing:
            if collection is None:
                cursor = self._connection().execute("DELETE FROM documents")
            else:
                cursor = self._connection().execute("DELETE FROM documents WHERE collection = ?", (collection,))
        return cursor.rowcount


def connect(path: Path) -> SqliteBackend:
    """Open (creating it if need be) the SQLite database at ``path``."""
    return SqliteBackend(path)


def _statements(script: str) -> list[str]:
    """The statements of ``script``, whole (a trigger's body holds semicolons too)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return [statement for statement in statements if statement]
