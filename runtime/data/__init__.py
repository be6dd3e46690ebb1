"""``ctx.data``: named collections of JSON documents, in SQLite by default or in PostgreSQL.

``api`` is what tools see (``DataStore``, ``Collection``), ``filters`` the MongoDB-style
filters and sorts, ``documents`` what a document may hold, ``sqlite`` and ``postgres`` the
two backends, and ``open`` the choice between them.
"""

from __future__ import annotations

from .api import Collection, DataStore, Document, Hit, Page
from .errors import DataError, DuplicateId, InvalidData, NotFound, StoreUnavailable
from .open import URL_VARIABLE, open_store, scratch_store
from .urls import redact_url

__all__ = [
    "URL_VARIABLE",
    "Collection",
    "DataError",
    "DataStore",
    "Document",
    "DuplicateId",
    "Hit",
    "InvalidData",
    "NotFound",
    "Page",
    "StoreUnavailable",
    "open_store",
    "redact_url",
    "scratch_store",
]
