"""What a storage backend does for the store: a few blocking operations on stored rows.

``Collection`` (in ``api``) checks every argument, encodes documents and decodes rows, and
runs these methods in a thread for its async twins; a backend only moves checked text in
and out of its database, each method in one transaction.  Rows are ``(id, body_text)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from .filters import Filter, SortKey

__all__ = ["Backend", "Conflict", "Query", "Row", "Stored"]

#: One stored document: its id and the text of its body.
Row = tuple[str, str]
#: What to do with a document whose id is already taken: refuse, leave the stored one, or replace it.
Conflict = Literal["fail", "skip", "replace"]


@dataclass(frozen=True)
class Stored:
    """A checked document ready to write: its id, its body's text and the words search finds it by."""

    id: str
    text: str
    words: str


@dataclass(frozen=True)
class Query:
    """Which documents of a collection, in which order, which page of them."""

    where: Filter | None = None
    sort: tuple[SortKey, ...] = ()
    limit: int | None = None
    offset: int = 0


class Backend(Protocol):
    """One database holding the collections of one environment."""

    #: ``sqlite`` or ``postgresql``.
    kind: str

    def describe(self) -> str:
        """Where the data is, fit to show (a file, or a URL without its password)."""
        ...

    def insert(self, collection: str, documents: Sequence[Stored], conflict: Conflict) -> int:
        """Write new documents in one transaction; how many were written.

        ``conflict="fail"`` raises ``DuplicateId`` (and writes none) when an id is taken.
        """
        ...

    def get(self, collection: str, identifier: str) -> str | None:
        """The body's text of one document, or ``None``."""
        ...

    def replace(self, collection: str, document: Stored) -> bool:
        """Replace an existing document; whether there was one."""
        ...

    def update(self, collection: str, identifier: str, change: Callable[[str], Stored]) -> Stored | None:
        """Read one document, ``change`` it and write the result, atomically; ``None`` if it does not exist."""
        ...

    def delete(self, collection: str, identifier: str) -> bool:
        """Delete one document; whether there was one."""
        ...

    def find(self, collection: str, query: Query) -> tuple[list[Row], int]:
        """The page of documents ``query`` selects, and how many it selects in all."""
        ...

    def count(self, collection: str, where: Filter | None) -> int:
        """How many documents match ``where``."""
        ...

    def search(
        self, collection: str, words: Sequence[str], where: Filter | None, limit: int
    ) -> list[tuple[str, str, float]]:
        """Documents holding any of ``words``, best first: ``(id, text, score)``, higher scores better."""
        ...

    def collections(self) -> list[tuple[str, int]]:
        """Every collection that holds documents, with how many, by name."""
        ...

    def clear(self, collection: str | None) -> int:
        """Delete every document of ``collection`` (of all of them with ``None``); how many."""
        ...

    def close(self) -> None:
        """Close the connections; the backend is not used again."""
        ...
