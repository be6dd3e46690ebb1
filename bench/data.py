"""How much does ``ctx.data`` cost over the bare database driver doing the same statements?

For each backend, SQLite (a WAL file in a temporary folder) and PostgreSQL (a server of
the benchmark's own, from the ``pgserver`` binaries, unless ``--postgres URL`` names
one), over a collection of 1,000 small orders, three operations are timed:

get
    ``orders.get(id)`` against the bare driver's ``SELECT body ... WHERE collection = ?
    AND id = ?`` and ``json.loads`` of the row (random ids).
find
    ``orders.find({"status": "processing", "total": {"$gte": 50}}, sort="-total",
    limit=10)`` against the bare driver running the very SQL that filter is translated to
    (with its window count of the total) and decoding the ten rows.
patch
    ``orders.patch(id, {"status": "paid", "seen": n})`` against the bare driver's own
    read-modify-write transaction: ``BEGIN IMMEDIATE`` (SQLite) or ``SELECT ... FOR
    UPDATE`` (PostgreSQL), ``json.loads``, the merge, ``json.dumps``, ``UPDATE``, commit.

The bare driver is given every advantage: one connection held open (skillc takes one from
its pool or its thread), no argument checks, no document validation.  Each figure is the
median of R interleaved rounds of N operations; the ratio is skillc's time per operation
over the bare driver's (target: within 2x).

    .venv/bin/python bench/data.py [--rounds 7] [--ops 2000] [--postgres URL] [--sqlite-only]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from skillc.runtime.data import DataStore, open_store
from skillc.runtime.data.filters import (
    parse_filter,
    parse_sort,
    postgres_order,
    postgres_where,
    sqlite_order,
    sqlite_where,
)

DOCUMENTS = 1000
FILTER = {"status": "processing", "total": {"$gte": 50}}
SORT = "-total"
LIMIT = 10
TARGET = 2.0


def orders() -> list[dict[str, Any]]:
    rng = random.Random(15)
    statuses = ["new", "processing", "shipped", "cancelled"]
    return [
        {
            "_id": f"A{index:05d}",
            "status": rng.choice(statuses),
            "total": round(rng.uniform(1, 200), 2),
            "customer": {"name": f"customer {index}", "city": rng.choice(["Oslo", "Bergen", "Lyon"])},
            "items": [rng.choice(["kettle", "tea", "notebook", "mug"]) for _ in range(rng.randint(1, 3))],
        }
        for index in range(DOCUMENTS)
    ]


class Bare:
    """The same statements as skillc's backend, straight through the driver."""

    def __init__(self, kind: str, connection: Any, table: str) -> None:
        self.kind, self.connection, self.table = kind, connection, table
        mark = "?" if kind == "sqlite" else "%s"
        body = "body" if kind == "sqlite" else "doc"
        self.get_sql = f"SELECT {body} FROM {table} WHERE collection = {mark} AND id = {mark}"
        self.lock_sql = self.get_sql + ("" if kind == "sqlite" else " FOR UPDATE")
        self.update_sql = (
            f"UPDATE {table} SET {body} = {mark}, words = {mark} WHERE collection = {mark} AND id = {mark}"
        )
        params: list[Any] = ["orders"]
        where, order = (sqlite_where, sqlite_order) if kind == "sqlite" else (postgres_where, postgres_order)
        condition = where(parse_filter(FILTER), params)
        ordering = order(parse_sort(SORT), params)
        params += [LIMIT, 0]
        self.find_params = params
        self.find_sql = (
            f"SELECT id, {body}, count(*) OVER () FROM {table} WHERE collection = {mark} AND {condition} "
            f"ORDER BY {ordering} LIMIT {mark} OFFSET {mark}"
        )

    def get(self, identifier: str) -> dict[str, Any]:
        row = self.connection.execute(self.get_sql, ("orders", identifier)).fetchone()
        return {"_id": identifier, **json.loads(row[0])}

    def find(self) -> list[dict[str, Any]]:
        rows = self.connection.execute(self.find_sql, self.find_params).fetchall()
        return [{"_id": row[0], **json.loads(row[1])} for row in rows]

    def patch(self, identifier: str, changes: dict[str, Any]) -> None:
        begin = self.connection.transaction() if self.kind != "sqlite" else _sqlite_transaction(self.connection)
        with begin:
            row = self.connection.execute(self.lock_sql, ("orders", identifier)).fetchone()
            merged = {**json.loads(row[0]), **changes}
            text = json.dumps(merged, ensure_ascii=False, separators=(",", ":"))
            words = " ".join(str(value) for value in merged.values() if isinstance(value, str))
            self.connection.execute(self.update_sql, (text, words, "orders", identifier))


@contextlib.contextmanager
def _sqlite_transaction(connection: sqlite3.Connection) -> Iterator[None]:
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def timed(work: Callable[[int], Any], count: int) -> float:
    """Seconds per operation of ``work(i)`` for i in range(count)."""
    started = time.perf_counter()
    for index in range(count):
        work(index)
    return (time.perf_counter() - started) / count


def measure(store: DataStore, bare: Bare, rounds: int, count: int) -> dict[str, tuple[float, float]]:
    collection = store["orders"]
    rng = random.Random(7)
    ids = [f"A{rng.randrange(DOCUMENTS):05d}" for _ in range(count)]
    cases: dict[str, tuple[Callable[[int], Any], Callable[[int], Any], int]] = {
        "get": (lambda i: collection.get(ids[i]), lambda i: bare.get(ids[i]), count),
        "find": (
            lambda i: collection.find(FILTER, sort=SORT, limit=LIMIT),
            lambda i: bare.find(),
            max(count // 10, 50),
        ),
        "patch": (
            lambda i: collection.patch(ids[i], {"status": "paid", "seen": i}),
            lambda i: bare.patch(ids[i], {"status": "paid", "seen": i}),
            max(count // 4, 50),
        ),
    }
    assert collection.find(FILTER, sort=SORT, limit=LIMIT).items == bare.find()  # the same statement, the same answer
    results = {}
    for name, (ours, theirs, ops) in cases.items():
        ours(0), theirs(0)  # warm: connections, prepared statements
        skillc_times, bare_times = [], []
        for _ in range(rounds):
            skillc_times.append(timed(ours, ops))
            bare_times.append(timed(theirs, ops))
        results[name] = (statistics.median(skillc_times), statistics.median(bare_times))
    return results


def sqlite_case(folder: Path) -> tuple[DataStore, Bare, Callable[[], None]]:
    store = open_store(folder, "sandbox", folder=folder)
    store["orders"].insert_many(orders())
    connection = sqlite3.connect(folder / "sandbox.sqlite3", isolation_level=None, timeout=30)
    connection.execute("PRAGMA synchronous = NORMAL")
    return store, Bare("sqlite", connection, "documents"), connection.close


def postgres_case(url: str, folder: Path) -> tuple[DataStore, Bare, Callable[[], None]]:
    import psycopg

    store = open_store(folder, "sandbox", url=url)
    store.clear()
    store["orders"].insert_many(orders())
    connection = psycopg.connect(url, autocommit=True)
    return store, Bare("postgres", connection, "skill_data_sandbox"), connection.close


@contextlib.contextmanager
def postgres_url(given: str | None) -> Iterator[str | None]:
    if given:
        yield given
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from datastore.server import ServerUnavailable, running_postgres

    try:
        with running_postgres() as url:
            yield url
    except ServerUnavailable as reason:
        print(f"PostgreSQL left out: {reason}", file=sys.stderr)
        yield None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--ops", type=int, default=2000, help="gets per round (finds and patches: fewer)")
    parser.add_argument("--postgres", help="a PostgreSQL URL to use instead of a server of the benchmark's own")
    parser.add_argument("--sqlite-only", action="store_true")
    options = parser.parse_args()
    table = Table(title="ctx.data against the bare driver (median of interleaved rounds)")
    for column in ("backend", "operation", "skillc ops/s", "bare ops/s", "ratio"):
        table.add_column(column, justify="right" if column not in ("backend", "operation") else "left")
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="skillc-bench-data-") as scratch:
        cases = [("sqlite", lambda: sqlite_case(Path(scratch) / "sqlite"))]
        with contextlib.ExitStack() as stack:
            url = None if options.sqlite_only else stack.enter_context(postgres_url(options.postgres))
            if url is not None:
                cases.append(("postgresql", lambda: postgres_case(url, Path(scratch) / "pg")))
            for backend, make in cases:
                store, bare, close = make()
                try:
                    results = measure(store, bare, options.rounds, options.ops)
                finally:
                    store.close()
                    close()
                for operation, (ours, theirs) in results.items():
                    ratio = ours / theirs
                    worst = max(worst, ratio)
                    table.add_row(backend, operation, f"{1 / ours:,.0f}", f"{1 / theirs:,.0f}", f"{ratio:.2f}x")
    Console().print(table)
    verdict = "within" if worst <= TARGET else "NOT within"
    print(f"worst ratio {worst:.2f}x: {verdict} the {TARGET:.0f}x target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
