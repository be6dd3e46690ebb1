"""The document store's semantics: one suite, run against SQLite and a real PostgreSQL server."""

from __future__ import annotations

import asyncio
import datetime
import threading
from pathlib import Path
from typing import Any

import pytest
from datastore.stores import make_store
from pydantic import BaseModel, ConfigDict, Field
from skillc.runtime.data import DataError, DataStore, DuplicateId, InvalidData, NotFound

ORDERS = [
    {"_id": "A1", "status": "shipped", "total": 42.5, "items": ["kettle", "tea"], "customer": {"city": "Oslo"}},
    {"_id": "A2", "status": "processing", "total": 18, "items": ["notebook"], "customer": {"city": "Bergen"}},
    {"_id": "A3", "status": "cancelled", "total": 7.25, "note": None, "customer": {"city": "Oslo", "vip": True}},
    {"_id": "A4", "status": "processing", "total": 99, "customer": {}},
]


def seeded(store: DataStore) -> Any:
    orders = store["orders"]
    assert orders.insert_many(ORDERS) == 4
    return orders


def ids(page: Any) -> list[str]:
    return [document["_id"] for document in page]


# --- writing and reading one document -------------------------------------------------


def test_create_and_get_keep_the_document_as_written(store: DataStore) -> None:
    orders = store["orders"]
    created = orders.create({"zeta": 1, "alpha": {"b": [1, 2.5, "x", None, True]}, "text": "ünïcode ✓"}, id="A9")
    assert created == {"_id": "A9", "zeta": 1, "alpha": {"b": [1, 2.5, "x", None, True]}, "text": "ünïcode ✓"}
    read = orders.get("A9")
    assert read == created and list(read or {}) == ["_id", "zeta", "alpha", "text"]  # key order kept
    assert isinstance((read or {})["zeta"], int) and isinstance((read or {})["alpha"]["b"][1], float)
    assert orders.get("missing") is None


def test_create_without_an_id_makes_one_and_an_id_in_the_document_is_used(store: DataStore) -> None:
    orders = store["orders"]
    made = orders.create({"status": "new"})
    assert len(made["_id"]) == 32 and orders.get(made["_id"]) == made
    assert orders.create({"_id": "B7", "status": "new"})["_id"] == "B7"
    with pytest.raises(InvalidData, match="is not the id it is stored under"):
        orders.create({"_id": "B8"}, id="B9")


def test_a_taken_id_is_refused_and_the_stored_document_stays(store: DataStore) -> None:
    orders = store["orders"]
    orders.create({"v": 1}, id="A1")
    with pytest.raises(DuplicateId, match="'orders' already holds a document with the id 'A1'"):
        orders.create({"v": 2}, id="A1")
    assert orders.get("A1") == {"_id": "A1", "v": 1}
    assert store["other"].create({"v": 3}, id="A1")["v"] == 3  # ids are per collection


def test_put_replaces_or_creates_and_replace_needs_an_existing_document(store: DataStore) -> None:
    orders = store["orders"]
    assert orders.put("A1", {"v": 1}) == {"_id": "A1", "v": 1}
    assert orders.put("A1", {"w": 2}) == {"_id": "A1", "w": 2}
    assert orders.replace("A1", {"x": 3}) == {"_id": "A1", "x": 3}
    with pytest.raises(NotFound, match="there is no document 'A2' in 'orders'"):
        orders.replace("A2", {"x": 3})
    assert orders.get("A2") is None


def test_patch_merges_fields_and_none_removes_one(store: DataStore) -> None:
    orders = store["orders"]
    orders.create({"status": "new", "address": {"city": "Oslo", "zip": "0150"}, "tags": ["a"]}, id="A1")
    patched = orders.patch("A1", {"status": "paid", "address": {"zip": None, "street": "Main"}, "tags": ["b"]})
    assert patched == {"_id": "A1", "status": "paid", "address": {"city": "Oslo", "street": "Main"}, "tags": ["b"]}
    assert orders.get("A1") == patched
    with pytest.raises(NotFound):
        orders.patch("A2", {"status": "paid"})
    with pytest.raises(InvalidData, match="cannot change a document's _id"):
        orders.patch("A1", {"_id": "A3"})


def test_delete_says_whether_there_was_a_document(store: DataStore) -> None:
    orders = seeded(store)
    assert orders.delete("A1") is True
    assert orders.delete("A1") is False
    assert orders.get("A1") is None and orders.count() == 3


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"when": datetime.date(2026, 1, 1)}, "field 'when': a value of type date is not JSON"),
        ({"n": float("nan")}, "field 'n': NaN and infinite numbers are not JSON"),
        ({"deep": {"n": 2**64}}, "field 'deep.n': integers must fit in 64 bits"),
        ({"a.b": 1}, "key 'a.b' is not allowed"),
        ({"x": {"$set": 1}}, "key '$set' is not allowed"),
        ({"t": "nul\x00"}, "field 't': text must not contain NUL characters"),
        ({"l": [1, {2}]}, "field 'l[1]': a value of type set is not JSON"),
        ({1: "a"}, "keys must be strings, not int"),
    ],
)
def test_what_is_not_json_is_refused_naming_the_field(store: DataStore, document: Any, message: str) -> None:
    with pytest.raises(InvalidData, match=message.replace("$", r"\$").replace("[", r"\[").replace("]", r"\]")):
        store["orders"].create(document, id="A1")
    assert store["orders"].get("A1") is None


@pytest.mark.parametrize(
    ("bad", "message"), [("", "1 to 256 characters"), ("a\nb", "control characters"), (7, "must be a string")]
)
def test_bad_ids_and_collection_names_are_refused(store: DataStore, bad: Any, message: str) -> None:
    with pytest.raises(InvalidData, match=message):
        store["orders"].get(bad)
    with pytest.raises(InvalidData, match="collection name '../x' is not allowed"):
        store.collection("../x")


def test_insert_many_fails_whole_skips_or_replaces(store: DataStore) -> None:
    orders = seeded(store)
    with pytest.raises(DuplicateId):
        orders.insert_many([{"_id": "B1"}, {"_id": "A1", "v": 1}])
    assert orders.get("B1") is None  # nothing of the batch was written
    assert orders.insert_many([{"_id": "B1"}, {"_id": "A1", "v": 1}], if_exists="skip") == 1
    assert orders.get("A1") == ORDERS[0]
    assert orders.insert_many([{"_id": "A1", "v": 1}], if_exists="replace") == 1
    assert orders.get("A1") == {"_id": "A1", "v": 1}
    with pytest.raises(InvalidData, match="document 2: field 'x'"):
        orders.insert_many([{"_id": "C1"}, {"x": object()}])
    with pytest.raises(InvalidData, match="same _id"):
        orders.insert_many([{"_id": "C1"}, {"_id": "C1"}])


# --- finding --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ({"status": "processing"}, ["A2", "A4"]),
        ({"status": {"$eq": "processing"}, "total": {"$gt": 50}}, ["A4"]),
        ({"status": {"$ne": "processing"}}, ["A1", "A3"]),
        ({"total": {"$gte": 18, "$lt": 99}}, ["A1", "A2"]),
        ({"total": {"$lte": 18}}, ["A2", "A3"]),
        ({"total": 18.0}, ["A2"]),  # numbers compare by value
        ({"status": {"$in": ["shipped", "cancelled"]}}, ["A1", "A3"]),
        ({"status": {"$nin": ["shipped", "cancelled"]}}, ["A2", "A4"]),
        ({"note": {"$exists": True}}, ["A3"]),
        ({"note": None}, ["A1", "A2", "A3", "A4"]),  # null matches a missing field too
        ({"note": {"$ne": None}}, []),
        ({"customer.city": "Oslo"}, ["A1", "A3"]),
        ({"customer.vip": True}, ["A3"]),
        ({"customer.vip": 1}, []),  # true is not 1
        ({"customer.city": {"$exists": False}}, ["A4"]),
        ({"items": ["notebook"]}, ["A2"]),  # arrays compare as a whole
        ({"customer": {"city": "Bergen"}}, ["A2"]),
        ({"customer": {}}, ["A4"]),
        ({"$or": [{"total": {"$gt": 90}}, {"customer.city": "Bergen"}]}, ["A2", "A4"]),
        ({"$and": [{"customer.city": "Oslo"}, {"status": {"$ne": "shipped"}}]}, ["A3"]),
        ({"status": {"$gt": "p"}}, ["A1", "A2", "A4"]),
        ({"total": {"$gt": "a"}}, []),  # a string bound never matches a number
        ({"_id": {"$in": ["A2", "A9"]}}, ["A2"]),
        ({"_id": {"$gte": "A3"}}, ["A3", "A4"]),
    ],
)
def test_find_matches_what_the_filter_says(store: DataStore, where: dict[str, Any], expected: list[str]) -> None:
    orders = seeded(store)
    page = orders.find(where)
    assert ids(page) == expected and page.total == len(expected)
    assert orders.count(where) == len(expected)


def test_sort_orders_kinds_then_values_and_ties_by_id(store: DataStore) -> None:
    orders = store["mixed"]
    orders.insert_many(
        [
            {"_id": "m", "v": "b"},
            {"_id": "n", "v": 2},
            {"_id": "o", "v": True},
            {"_id": "p"},
            {"_id": "q", "v": None},
            {"_id": "r", "v": "B"},
            {"_id": "s", "v": 1.5},
            {"_id": "t", "v": [1]},
            {"_id": "u", "v": False},
            {"_id": "a", "v": 2},
        ]
    )
    assert ids(orders.find(sort="v")) == ["p", "q", "u", "o", "s", "a", "n", "r", "m", "t"]
    assert ids(orders.find(sort="-v")) == ["t", "m", "r", "a", "n", "s", "o", "u", "q", "p"]
    assert ids(orders.find(sort=["-_id"]))[:2] == ["u", "t"]


def test_pages_come_with_the_total(store: DataStore) -> None:
    orders = seeded(store)
    page = orders.find({"total": {"$gt": 0}}, sort="-total", limit=2, offset=1)
    assert ids(page) == ["A1", "A2"] and page.total == 4 and (page.offset, page.limit) == (1, 2)
    assert page.ids == ["A1", "A2"] and len(page) == 2
    beyond = orders.find(sort="total", limit=2, offset=10)
    assert ids(beyond) == [] and beyond.total == 4
    assert orders.find(limit=0).total == 4
    assert orders.find_one({"status": "processing"}, sort="-total") == ORDERS[3]
    assert orders.find_one({"status": "lost"}) is None


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ({"status": {"$regex": "x"}}, r"unknown operator '\$regex'"),
        ({"$nor": []}, r"unknown operator '\$nor'"),
        ({"status": {"$in": "shipped"}}, r"\$in takes a list"),
        ({"total": {"$gt": True}}, r"\$gt compares with a number or a string"),
        ({"total": {"$gt": None}}, r"\$gt compares with a number or a string"),
        ({"note": {"$exists": 1}}, r"\$exists takes true or false"),
        ({"a": {"$eq": 1, "b": 2}}, "mixes operators and fields"),
        ({"$or": []}, "non-empty list of filters"),
        ({"a..b": 1}, "is not a field path"),
        ({"_id": 7}, "_id is compared with a string"),
    ],
)
def test_bad_filters_are_refused_with_what_is_wrong(store: DataStore, where: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidData, match=message):
        store["orders"].find(where)


def test_bad_sorts_and_pages_are_refused(store: DataStore) -> None:
    with pytest.raises(InvalidData, match="sort"):
        store["orders"].find(sort=[3])  # type: ignore[list-item]
    with pytest.raises(InvalidData, match="limit"):
        store["orders"].find(limit=-1)
    with pytest.raises(InvalidData, match="offset"):
        store["orders"].find(offset=-1)


# --- text search ----------------------------------------------------------------------


def test_search_ranks_documents_by_the_words_they_hold(store: DataStore) -> None:
    notes = store["notes"]
    notes.insert_many(
        [
            {"_id": "n1", "title": "Kettle", "body": "A kettle for tea; the best kettle."},
            {"_id": "n2", "title": "Teapot", "body": "Brews tea."},
            {"_id": "n3", "title": "Notebook", "tags": ["paper", "KETTLE-proof"]},
            {"_id": "n4", "title": "Mug", "count": 3},
        ]
    )
    hits = notes.search("kettle")
    assert [hit.id for hit in hits][0] == "n1" and {hit.id for hit in hits} == {"n1", "n3"}
    assert hits[0].score >= hits[1].score and hits[0].item["title"] == "Kettle"
    assert {hit.id for hit in notes.search("tea paper")} == {"n1", "n2", "n3"}
    assert len(notes.search("tea paper", limit=2)) == 2
    assert [hit.id for hit in notes.search("kettle", filter={"title": "Notebook"})] == ["n3"]
    assert notes.search("nothing here") == [] and notes.search("?!") == []
    notes.patch("n4", {"title": "Kettle mug"})
    assert "n4" in {hit.id for hit in notes.search("kettle")}  # the index follows the patch
    notes.delete("n1")
    assert "n1" not in {hit.id for hit in notes.search("kettle")}


# --- collections, clearing, environments ----------------------------------------------


def test_collections_count_their_documents_and_clear_empties_them(store: DataStore) -> None:
    seeded(store)
    store["notes"].create({"t": "x"})
    assert store.collections() == {"notes": 1, "orders": 4}
    assert store["orders"].clear() == 4
    assert store.collections() == {"notes": 1}
    assert store.clear() == 1 and store.collections() == {}


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_sandbox_and_production_never_share_documents(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    sandbox = make_store(kind, tmp_path, request, "sandbox")
    production = make_store(kind, tmp_path, request, "production")
    try:
        sandbox["orders"].create({"where": "sandbox"}, id="A1")
        assert production["orders"].get("A1") is None and production.collections() == {}
        production["orders"].create({"where": "production"}, id="A1")
        assert sandbox["orders"].get("A1") == {"_id": "A1", "where": "sandbox"}
    finally:
        sandbox.close()
        production.close()


def test_a_closed_store_says_so(store: DataStore) -> None:
    orders = store["orders"]
    store.close()
    with pytest.raises(DataError, match="is closed"):
        orders.get("A1")


# --- models and async -----------------------------------------------------------------


class Order(BaseModel):
    id: str = ""
    status: str
    total: float = Field(ge=0)


class StrictOrder(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ref: str = Field(alias="_id")
    status: str


def test_a_pydantic_model_is_stored_and_read_back_as_one(store: DataStore) -> None:
    orders = store.collection("orders", Order)
    created = orders.create(Order(id="A1", status="new", total=3))
    assert created == Order(id="A1", status="new", total=3.0)
    assert store["orders"].get("A1") == {"_id": "A1", "status": "new", "total": 3.0}  # the id is not in the body
    assert orders.find({"status": "new"}).items == [created]
    unnamed = orders.create(Order(status="paid", total=1))  # an unset id: the store makes one
    assert len(unnamed.id) == 32 and orders.get(unnamed.id) == unnamed
    strict = store.collection("orders", StrictOrder)
    strict.put("B1", StrictOrder(_id="B1", status="paid"))
    assert strict.get("B1") == StrictOrder(_id="B1", status="paid")


def test_the_async_methods_run_off_the_event_loop(store: DataStore) -> None:
    orders = store["orders"]
    loop_threads: set[int] = set()

    async def main() -> list[Any]:
        loop_threads.add(threading.get_ident())
        await orders.ainsert_many(ORDERS)
        results = await asyncio.gather(
            orders.aget("A1"),
            orders.afind({"status": "processing"}),
            orders.acount(),
            orders.asearch("kettle"),
            orders.apatch("A3", {"status": "refunded"}),  # a document no other call here reads
            orders.afind_one(sort="-total"),
            store.acollections(),
        )
        loop_threads.add(await store.in_thread(threading.get_ident))
        await orders.acreate({"v": 1}, id="Z1")
        await orders.aput("Z1", {"v": 2})
        await orders.areplace("Z1", {"v": 3})
        assert await orders.adelete("Z1") is True
        return results

    got, page, count, hits, patched, top, collections = asyncio.run(main())
    assert got == ORDERS[0] and ids(page) == ["A2", "A4"] and count == 4 and hits[0].id == "A1"
    assert patched["status"] == "refunded" and top["_id"] == "A4" and collections == {"orders": 4}
    assert len(loop_threads) == 2  # the store's work ran on a thread other than the loop's
    assert asyncio.run(orders.aclear()) == 4
