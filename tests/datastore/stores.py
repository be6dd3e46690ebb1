"""Stores of each backend for the tests (the PostgreSQL one on the session's server, see conftest)."""

from __future__ import annotations

from pathlib import Path

import pytest
from skillc.runtime.data import DataStore, open_store

BACKENDS = ("sqlite", "postgres")


def make_store(kind: str, folder: Path, request: pytest.FixtureRequest, environment: str = "sandbox") -> DataStore:
    """An empty store of ``kind`` (``sqlite`` in ``folder``, or the session's PostgreSQL database)."""
    if kind == "sqlite":
        return open_store(folder, environment, folder=folder)
    url = request.getfixturevalue("postgres_url")
    store = open_store(folder, environment, url=url)
    store.clear()
    return store
