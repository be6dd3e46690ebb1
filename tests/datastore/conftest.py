"""Fixtures of the document store's tests: a real PostgreSQL server, and a store of each backend.

The server (``datastore.server``) is started once per test session; when it cannot be
(no binaries, no unprivileged account, a server that does not start), the PostgreSQL
tests are skipped with the reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from datastore.server import ServerUnavailable, running_postgres
from datastore.stores import make_store
from skillc.runtime.data import DataStore


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of a fresh PostgreSQL database on a server of the session's own."""
    try:
        server = running_postgres()
        url = server.__enter__()
    except ServerUnavailable as reason:
        pytest.skip(str(reason))
    try:
        yield url
    finally:
        server.__exit__(None, None, None)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[DataStore]:
    """An empty store of each backend: every test that takes it runs once for each."""
    opened = make_store(request.param, tmp_path, request)
    try:
        yield opened
    finally:
        opened.close()
