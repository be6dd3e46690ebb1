"""``ctx.data``: the document store a tool sees, the same whichever backend holds the data.

    orders = ctx.data["orders"]                       # a collection of JSON documents
    orders.create({"status": "new", "total": 18.0}, id="A1003")
    order = orders.get("A1003")                       # {"_id": "A1003", "status": "new", ...}
    orders.patch("A1003", {"status": "cancelled"})    # an atomic merge of fields
    page = orders.find({"status": {"$in": ["new", "paid"]}}, sort="-total", limit=10)
    hits = orders.search("kettle", limit=5)           # ranked text search
    order = await orders.aget("A1003")                # every method has an async twin: a, then its name

Documents are JSON objects; the id travels as ``_id`` and is stored apart from the rest.
``ctx.data.collection("orders", Order)`` reads documents back as the pydantic model
``Order`` (its ``_id`` given to a field with that alias, or to one called ``id``).
Every argument is checked before anything is written: a bad document, filter or id is an
``InvalidData`` (a ``ValueError``) naming the field.  The async methods run the blocking
database work in the store's own threads, so an event loop is never blocked.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar, overload

from pydantic import BaseModel

from ..ownjson import read_json
from .backend import Backend, Conflict, Query, Stored
from .documents import (
    ID_KEY,
    check_collection_name,
    check_id,
    check_value,
    encode_document,
    merge_patch,
    search_words,
    split_document,
)
from .errors import DataError, InvalidData, NotFound
from .filters import parse_filter, parse_sort

__all__ = ["Collection", "DataStore", "Document", "Hit", "Page"]

#: A document as the store returns it: its fields, and its id under ``_id``.
Document = dict[str, Any]
T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
R = TypeVar("R")
#: How many threads run the blocking work of the async methods.
ASYNC_THREADS = 8


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of what ``find`` matched: the documents, their ids, and how many matched in all."""

    items: list[T]
    ids: list[str]
    total: int
    offset: int
    limit: int | None

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


@dataclass(frozen=True)
class Hit(Generic[T]):
    """One result of a text search: the document, its id and its score (higher is better)."""

    id: str
    score: float
    item: T


def _model_reader(model: type[M]) -> Callable[[str, dict[str, Any]], M]:
    fields = model.model_fields
    takes_id = any(field.alias == ID_KEY for field in fields.values()) or "id" in fields
    forbids = model.model_config.get("extra") == "forbid"

    def read(identifier: str, body: dict[str, Any]) -> M:
        if takes_id:
            key = ID_KEY if any(field.alias == ID_KEY for field in fields.values()) else "id"
            body = {key: identifier, **body}
        elif not forbids:
            body = {ID_KEY: identifier, **body}
        return model.model_validate(body)

    return read


def _plain(value: Any) -> Mapping[str, Any]:
    if isinstance(value, BaseModel):
        dumped: dict[str, Any] = value.model_dump(mode="json", by_alias=True)
        fields = type(value).model_fields
        if "id" in fields and fields["id"].alias in (None, "id") and ID_KEY not in dumped:
            given = dumped.pop("id")
            if given not in (None, ""):  # an unset id: the store makes one
                dumped[ID_KEY] = given
        return dumped
    if not isinstance(value, Mapping):
        raise InvalidData(f"a document must be a JSON object or a pydantic model, not {type(value).__name__}")
    return value


class Collection(Generic[T]):
    """The documents of one collection; build it with ``DataStore.collection`` (or ``store[name]``)."""

    def __init__(self, store: DataStore, name: str, read: Callable[[str, dict[str, Any]], T]) -> None:
        self.store = store
        self.name = check_collection_name(name)
        self._read = read

    def __repr__(self) -> str:
        return f"<Collection {self.name!r} of {self.store!r}>"

    # --- what each method checks and encodes --------------------------------------------

    def _stored(self, document: Any, identifier: str | None = None) -> Stored:
        given, body = split_document(_plain(document))
        if identifier is not None and given is not None and given != identifier:
            raise InvalidData(f"the document's _id {given!r} is not the id it is stored under, {identifier!r}")
        chosen = identifier or given or uuid.uuid4().hex
        return Stored(chosen, encode_document(body), " ".join(search_words(body)))

    def _item(self, identifier: str, text: str) -> T:
        return self._read(identifier, read_json(text))

    # --- writing ------------------------------------------------------------------------

    def create(self, document: T | Mapping[str, Any], *, id: str | None = None) -> T:
        """Store a new document under ``id`` (its ``_id``, or a new random id); ``DuplicateId`` if it is taken."""
        stored = self._stored(document, None if id is None else check_id(id))
        self.store.backend.insert(self.name, [stored], "fail")
        return self._item(stored.id, stored.text)

    def insert_many(self, documents: Iterable[T | Mapping[str, Any]], *, if_exists: Conflict = "fail") -> int:
        """Store many documents in one transaction; how many were written.

        ``if_exists`` says what a taken id gets: ``"fail"`` (``DuplicateId``, nothing written),
        ``"skip"`` (the stored one stays) or ``"replace"``.
        """
        if if_exists not in ("fail", "skip", "replace"):
            raise InvalidData('if_exists must be "fail", "skip" or "replace"')
        batch = []
        for index, document in enumerate(documents):
            try:
                batch.append(self._stored(document))
            except InvalidData as error:
                raise InvalidData(f"document {index + 1}: {error.message}") from None
        if len({stored.id for stored in batch}) != len(batch):
            raise InvalidData("two of the documents have the same _id")
        return self.store.backend.insert(self.name, batch, if_exists)

    def put(self, id: str, document: T | Mapping[str, Any]) -> T:
        """Store ``document`` under ``id``, replacing the document stored there if there is one."""
        stored = self._stored(document, check_id(id))
        self.store.backend.insert(self.name, [stored], "replace")
        return self._item(stored.id, stored.text)

    def replace(self, id: str, document: T | Mapping[str, Any]) -> T:
        """Replace the document ``id`` as a whole; ``NotFound`` if there is none."""
        stored = self._stored(document, check_id(id))
        if not self.store.backend.replace(self.name, stored):
            raise NotFound(f"there is no document {id!r} in {self.name!r}")
        return self._item(stored.id, stored.text)

    def patch(self, id: str, fields: Mapping[str, Any]) -> T:
        """Merge ``fields`` into the document ``id`` atomically (RFC 7396: objects merge, ``None`` removes a field).

        Two patches of one document that run at once are applied one after the other, so
        neither is lost.  ``NotFound`` if there is no such document.
        """
        identifier = check_id(id)
        given, changes = split_document(_plain(fields))
        if given is not None and given != identifier:
            raise InvalidData("a patch cannot change a document's _id")

        def change(text: str) -> Stored:
            merged = merge_patch(read_json(text), changes)
            return Stored(identifier, encode_document(merged), " ".join(search_words(merged)))

        stored = self.store.backend.update(self.name, identifier, change)
        if stored is None:
            raise NotFound(f"there is no document {id!r} in {self.name!r}")
        return self._item(stored.id, stored.text)

    def delete(self, id: str) -> bool:
        """Delete the document ``id``; whether there was one."""
        return self.store.backend.delete(self.name, check_id(id))

    def clear(self) -> int:
        """Delete every document of the collection; how many there were."""
        return self.store.backend.clear(self.name)

    # --- reading ------------------------------------------------------------------------

    def get(self, id: str) -> T | None:
        """The document ``id``, or ``None``."""
        text = self.store.backend.get(self.name, check_id(id))
        return None if text is None else self._item(id, text)

    def find(
        self,
        filter: Mapping[str, Any] | None = None,
        *,
        sort: str | Sequence[str] | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> Page[T]:
        """The documents that match ``filter`` (see ``skillc.runtime.data.filters``), sorted, one page of them.

        ``sort`` is a field or a list of fields, ``-field`` for descending (the id breaks ties);
        ``limit`` (``None``: all) and ``offset`` pick the page; ``Page.total`` counts every match.
        """
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise InvalidData("limit must be a whole number, 0 or more")
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise InvalidData("offset must be a whole number, 0 or more")
        query = Query(parse_filter(filter), parse_sort(sort), limit, offset)
        rows, total = self.store.backend.find(self.name, query)
        return Page([self._item(*row) for row in rows], [row[0] for row in rows], total, offset, limit)

    def find_one(self, filter: Mapping[str, Any] | None = None, *, sort: str | Sequence[str] | None = None) -> T | None:
        """The first document that matches ``filter`` (in ``sort`` order), or ``None``."""
        page = self.find(filter, sort=sort, limit=1)
        return page.items[0] if page.items else None

    def count(self, filter: Mapping[str, Any] | None = None) -> int:
        """How many documents match ``filter``."""
        return self.store.backend.count(self.name, parse_filter(filter))

    def search(self, text: str, *, limit: int = 10, filter: Mapping[str, Any] | None = None) -> list[Hit[T]]:
        """Documents whose text values hold any word of ``text``, best first, at most ``limit``."""
        if not isinstance(text, str):
            raise InvalidData(f"search text must be a string, not {type(text).__name__}")
        check_value(text, "search text")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidData("limit must be a whole number, 1 or more")
        words = list(dict.fromkeys(search_words(text)))[:64]
        if not words:
            return []
        rows = self.store.backend.search(self.name, words, parse_filter(filter), limit)
        return [Hit(identifier, score, self._item(identifier, body)) for identifier, body, score in rows]

    # --- the same, for async tools ------------------------------------------------------

    async def acreate(self, document: T | Mapping[str, Any], *, id: str | None = None) -> T:
        """``create``, without blocking the event loop."""
        return await self.store.in_thread(partial(self.create, document, id=id))

    async def ainsert_many(self, documents: Iterable[T | Mapping[str, Any]], *, if_exists: Conflict = "fail") -> int:
        """``insert_many``, without blocking the event loop."""
        return await self.store.in_thread(partial(self.insert_many, list(documents), if_exists=if_exists))

    async def aput(self, id: str, document: T | Mapping[str, Any]) -> T:
        """``put``, without blocking the event loop."""
        return await self.store.in_thread(partial(self.put, id, document))

    async def areplace(self, id: str, document: T | Mapping[str, Any]) -> T:
        """``replace``, without blocking the event loop."""
        return await self.store.in_thread(partial(self.replace, id, document))

    async def apatch(self, id: str, fields: Mapping[str, Any]) -> T:
        """``patch``, without blocking the event loop."""
        return await self.store.in_thread(partial(self.patch, id, fields))

    async def adelete(self, id: str) -> bool:
        """``delete``, without blocking the event loop."""
        return await self.store.in_thread(partial(self.delete, id))

    async def aclear(self) -> int:
        """``clear``, without blocking the event loop."""
        return await self.store.in_thread(self.clear)

    async def aget(self, id: str) -> T | None:
        """``get``, without blocking the event loop."""
        return await self.store.in_thread(partial(self.get, id))

    async def afind(
        self,
        filter: Mapping[str, Any] | None = None,
        *,
        sort: str | Sequence[str] | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> Page[T]:
        """``find``, without blocking the event loop."""
        return await self.store.in_thread(partial(self.find, filter, sort=sort, limit=limit, offset=offset))

    async def afind_one(
        self, filter: Mapping[str, Any] | None = None, *, sort: str | Sequence[str] | None = None
    ) -> T | None:
        """``find_one``, without blocking the event loop."""
        return await self.store.in_thread(partial(self.find_one, filter, sort=sort))

    async def acount(self, filter: Mapping[str, Any] | None = None) -> int:
        """``count``, without blocking the event loop."""
        return await self.store.in_thread(partial(self.count, filter))

    async def asearch(self, text: str, *, limit: int = 10, filter: Mapping[str, Any] | None = None) -> list[Hit[T]]:
        """``search``, without blocking the event loop."""
        return await self.store.in_thread(partial(self.search, text, limit=limit, filter=filter))


class DataStore:
    """The collections of one environment's database, opened on first use and shared by every call.

    Build it with ``skillc.runtime.data.open_store`` (the project does, once per
    environment); ``close`` ends its connections and threads.
    """

    def __init__(
        self, connect: Callable[[], Backend], description: str, *, on_close: Callable[[], None] | None = None
    ) -> None:
        self._connect = connect
        self._description = description
        self._on_close = on_close
        self._backend: Backend | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False

    def __repr__(self) -> str:
        return f"<DataStore {self._description}>"

    @property
    def description(self) -> str:
        """Where the data is, fit to show: a file, or a URL without its password."""
        return self._description

    @property
    def backend(self) -> Backend:
        """The database, connected on first use."""
        backend = self._backend
        if backend is not None:
            return backend
        with self._lock:
            if self._closed:
                raise DataError(f"the data store {self._description} is closed")
            if self._backend is None:
                self._backend = self._connect()
            return self._backend

    @property
    def kind(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.backend.kind

    @overload
    def collection(self, name: str) -> Collection[Document]: ...
    @overload
    def collection(self, name: str, model: type[M]) -> Collection[M]: ...
    def collection(self, name: str, model: type[M] | None = None) -> Collection[Document] | Collection[M]:
        """The collection ``name``; with ``model``, its documents are read back as that pydantic model."""
        if model is None:
            return Collection(self, name, _document)
        return Collection(self, name, _model_reader(model))

    def __getitem__(self, name: str) -> Collection[Document]:
        return self.collection(name)

    def collections(self) -> dict[str, int]:
        """Every collection that holds documents, with how many it holds, by name."""
        return dict(self.backend.collections())

    async def acollections(self) -> dict[str, int]:
        """``collections``, without blocking the event loop."""
        return await self.in_thread(self.collections)

    def clear(self) -> int:
        """Delete every document of every collection; how many there were."""
        return self.backend.clear(None)

    async def in_thread(self, work: Callable[[], R]) -> R:
        """Run blocking ``work`` in the store's threads and wait for it without blocking the event loop."""
        with self._lock:
            if self._closed:
                raise DataError(f"the data store {self._description} is closed")
            if self._executor is None:
                self._executor = ThreadPoolExecutor(ASYNC_THREADS, thread_name_prefix="skillc-data")
            executor = self._executor
        return await asyncio.get_running_loop().run_in_executor(executor, work)

    def close(self) -> None:
        """Close the database connections and let the threads end; the store cannot be used again."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            backend, self._backend = self._backend, None
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)
        if backend is not None:
            backend.close()
        if self._on_close is not None:
            self._on_close()

    def __enter__(self) -> DataStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _document(identifier: str, body: dict[str, Any]) -> Document:
    return {ID_KEY: identifier, **body}
