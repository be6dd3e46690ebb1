"""The PostgreSQL backend: the same collections in one table per environment, shared by every replica.

Needs the ``postgres`` extra (``pip install 'skillc[postgres]'``: psycopg 3 and its pool).
The table ``skill_data_<environment>`` holds each document's text as written (so it reads
back exactly, key order included), a ``jsonb`` copy of it that filters and sorts read, and
a ``tsvector`` of its search words with a GIN index.  Connections come from a pool, in
autocommit mode; a patch is one transaction that locks the document's row
(``SELECT ... FOR UPDATE``) before it reads it, so concurrent patches apply one by one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import psycopg
from psycopg import errors as pg_errors
from psycopg_pool import ConnectionPool, PoolTimeout

from .backend import Conflict, Query, Row, Stored
from .errors import DuplicateId, StoreUnavailable
from .filters import Filter, postgres_order, postgres_where
from .urls import redact_url, without_secrets

__all__ = ["CONNECT_TIMEOUT", "PostgresBackend", "connect"]

#: Seconds to wait for the server when the store is first used, and for a free connection after that.
CONNECT_TIMEOUT: Final = 15.0
POOL_SIZE: Final = 10
#: Taken inside the transaction that creates the tables, so that replicas starting together do not collide.
_SCHEMA_LOCK: Final = 0x736B696C6C63  # "skillc"

_SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS {table} (
        collection text COLLATE "C" NOT NULL,
        id text COLLATE "C" NOT NULL,
        doc text NOT NULL,
        body jsonb GENERATED ALWAYS AS (doc::jsonb) STORED,
        words text NOT NULL DEFAULT '',
        search tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, words)) STORED,
        PRIMARY KEY (collection, id)
    )""",
    "CREATE INDEX IF NOT EXISTS {table}_search ON {table} USING gin (search)",
)


class PostgresBackend:
    """The collections of one environment in a PostgreSQL database."""

    kind = "postgresql"

    def __init__(self, url: str, environment: str) -> None:
        self._shown = redact_url(url)
        self._url = url
        self.table = f"skill_data_{environment}"
        self._sql = _statements(self.table)
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=POOL_SIZE,
            kwargs={"autocommit": True, "connect_timeout": int(CONNECT_TIMEOUT)},
            timeout=CONNECT_TIMEOUT,
            open=False,
            name="skillc-data",
        )
        try:
            self._prepare(url)  # one connection first, so that a server that refuses is said at once, with why
            self._pool.open(wait=True, timeout=CONNECT_TIMEOUT)
        except (PoolTimeout, psycopg.Error) as error:
            self._pool.close()
            raise StoreUnavailable(
                f"cannot use the PostgreSQL data store {self._shown}: {_reason(error, self._url)}"
            ) from None

    def describe(self) -> str:
        return self._shown

    def _prepare(self, url: str) -> None:
        """Create the environment's table unless it is there (under a lock, as replicas may start together)."""
        with psycopg.connect(url, autocommit=True, connect_timeout=int(CONNECT_TIMEOUT)) as connection:
            with connection.transaction():
                connection.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                for statement in _SCHEMA:
                    connection.execute(statement.format(table=self.table))

    def _run(self, statement: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        try:
            with self._pool.connection() as connection:
                cursor = connection.execute(statement, params)
                return cursor.fetchall() if cursor.description is not None else [(cursor.rowcount,)]
        except PoolTimeout as error:
            raise StoreUnavailable(
                f"the PostgreSQL data store {self._shown} did not answer: {_reason(error, self._url)}"
            ) from None
        except psycopg.OperationalError as error:
            raise StoreUnavailable(
                f"the PostgreSQL data store {self._shown} failed: {_reason(error, self._url)}"
            ) from None

    def close(self) -> None:
        self._pool.close()

    # --- the operations -----------------------------------------------------------------

    def insert(self, collection: str, documents: Sequence[Stored], conflict: Conflict) -> int:
        rows = [(collection, item.id, item.text, item.words) for item in documents]
        statement = self._sql[f"insert_{conflict}"]
        try:
            if len(rows) == 1:
                return int(self._run(statement, rows[0])[0][0])
            with self._pool.connection() as connection, connection.transaction():
                with connection.cursor() as cursor:
                    cursor.executemany(statement, rows)
                    return len(rows) if conflict != "skip" else max(cursor.rowcount, 0)
        except pg_errors.UniqueViolation:
            taken = [item.id for item in documents if self.get(collection, item.id) is not None]
            raise DuplicateId(
                f"{collection!r} already holds a document with the id {taken[0]!r}" if taken else "an id is taken"
            ) from None

    def get(self, collection: str, identifier: str) -> str | None:
        rows = self._run(self._sql["get"], (collection, identifier))
        return str(rows[0][0]) if rows else None

    def replace(self, collection: str, document: Stored) -> bool:
        rows = self._run(self._sql["replace"], (document.text, document.words, collection, document.id))
        return int(rows[0][0]) > 0

    def update(self, collection: str, identifier: str, change: Callable[[str], Stored]) -> Stored | None:
        try:
            with self._pool.connection() as connection, connection.transaction():
                row = connection.execute(self._sql["lock"], (collection, identifier)).fetchone()
                if row is None:
                    return None
                changed = change(row[0])
                connection.execute(self._sql["replace"], (changed.text, changed.words, collection, identifier))
                return changed
        except PoolTimeout as error:
            raise StoreUnavailable(
                f"the PostgreSQL data store {self._shown} did not answer: {_reason(error, self._url)}"
            ) from None

    def delete(self, collection: str, identifier: str) -> bool:
        return int(self._run(self._sql["delete"], (collection, identifier))[0][0]) > 0

    def find(self, collection: str, query: Query) -> tuple[list[Row], int]:
        params: list[Any] = [collection]
        where = postgres_where(query.where, params)
        order = postgres_order(query.sort, params)
        params += [query.limit, query.offset]
        rows = self._run(
            f"SELECT id, doc, count(*) OVER () FROM {self.table} WHERE collection = %s AND {where} "
            f"ORDER BY {order} LIMIT %s OFFSET %s",
            params,
        )
        if rows:
            return [(row[0], row[1]) for row in rows], int(rows[0][2])
        return [], self.count(collection, query.where) if query.offset or query.limit == 0 else 0

    def count(self, collection: str, where: Filter | None) -> int:
        params: list[Any] = [collection]
        condition = postgres_where(where, params)
        return int(self._run(f"SELECT count(*) FROM {self.table} WHERE collection = %s AND {condition}", params)[0][0])

    def search(
        self, collection: str, words: Sequence[str], where: Filter | None, limit: int
    ) -> list[tuple[str, str, float]]:
        params: list[Any] = [" | ".join(f"'{word}'" for word in words), collection]
        condition = postgres_where(where, params)
        params.append(limit)
        rows = self._run(
            f"SELECT id, doc, ts_rank(search, query) AS rank FROM {self.table}, "
            "to_tsquery('simple'::regconfig, %s) AS query "
            f"WHERE collection = %s AND search @@ query AND {condition} ORDER BY rank DESC, id LIMIT %s",
            params,
        )
        return [(row[0], row[1], float(row[2])) for row in rows]

    def collections(self) -> list[tuple[str, int]]:
        rows = self._run(f"SELECT collection, count(*) FROM {self.table} GROUP BY collection ORDER BY collection", ())
        return [(str(name), int(count)) for name, count in rows]

    def clear(self, collection: str | None) -> int:
        if collection is None:
            return int(self._run(f"DELETE FROM {self.table}", ())[0][0])
        return int(self._run(f"DELETE FROM {self.table} WHERE collection = %s", (collection,))[0][0])


def connect(url: str, environment: str) -> PostgresBackend:
    """Connect to the database ``url`` names and make the environment's table if it is not there."""
    return PostgresBackend(url, environment)


def _statements(table: str) -> dict[str, str]:
    insert = f"INSERT INTO {table} (collection, id, doc, words) VALUES (%s, %s, %s, %s)"
    return {
        "insert_fail": insert,
        "insert_skip": insert + " ON CONFLICT (collection, id) DO NOTHING",
        "insert_replace": insert
        + " ON CONFLICT (collection, id) DO UPDATE SET doc = excluded.doc, words = excluded.words",
        "get": f"SELECT doc FROM {table} WHERE collection = %s AND id = %s",
        "lock": f"SELECT doc FROM {table} WHERE collection = %s AND id = %s FOR UPDATE",
        "replace": f"UPDATE {table} SET doc = %s, words = %s WHERE collection = %s AND id = %s",
        "delete": f"DELETE FROM {table} WHERE collection = %s AND id = %s",
    }


def _reason(error: BaseException, url: str) -> str:
    """The first line of a driver's message, with anything of the URL's password in it hidden."""
    text = str(error).strip().splitlines()
    return without_secrets(text[0], url) if text else type(error).__name__
