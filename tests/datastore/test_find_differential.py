"""``find`` with random filters and sorts, against the same filter evaluated in plain Python.

The evaluator below is written from the filter language's documentation
(``skillc.runtime.data.filters``), not from the SQL: each backend must select the same
documents, in the same order, with the same total.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skillc.runtime.data import DataStore

MISSING = object()
FIELDS = ["a", "b", "c", "c.x", "c.y", "_id"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([-1.5, 0.0, 0.5, 2.0, 3.0, 1e20]),
    st.sampled_from(["", "a", "b", "B", "ab", "ä", "\u4e2d", "a b"]),
)
values = st.one_of(
    scalars,
    st.lists(scalars, max_size=2),
    st.dictionaries(st.sampled_from(["x", "y"]), scalars, max_size=2),
)
documents = st.lists(st.dictionaries(st.sampled_from(["a", "b", "c"]), values, max_size=3), min_size=1, max_size=10)
operands = st.one_of(
    scalars, st.lists(scalars, max_size=2), st.dictionaries(st.sampled_from(["x", "y"]), scalars, max_size=1)
)
bounds = st.one_of(st.integers(-3, 3), st.sampled_from([0.5, 2.0, -1.5]), st.sampled_from(["", "a", "ab", "b", "ä"]))
ids = st.sampled_from(["d0", "d3", "d5", "d9", "zz"])


def condition(field: str) -> st.SearchStrategy[Any]:
    equal = ids if field == "_id" else operands
    lists = st.lists(ids if field == "_id" else scalars, max_size=3)
    return st.one_of(
        equal,
        st.fixed_dictionaries({"$eq": equal}),
        st.fixed_dictionaries({"$ne": equal}),
        st.fixed_dictionaries({"$in": lists}),
        st.fixed_dictionaries({"$nin": lists}),
        st.fixed_dictionaries({"$exists": st.booleans()}),
        st.dictionaries(
            st.sampled_from(["$gt", "$gte", "$lt", "$lte"]), ids if field == "_id" else bounds, min_size=1, max_size=2
        ),
    )


plain_filters = st.sampled_from(FIELDS).flatmap(lambda field: condition(field).map(lambda value: {field: value}))
filters = st.recursive(
    plain_filters,
    lambda inner: st.one_of(
        st.fixed_dictionaries({"$or": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"$and": st.lists(inner, min_size=1, max_size=3)}),
        st.tuples(inner, inner).map(lambda pair: {**pair[0], **pair[1]}),
    ),
    max_leaves=5,
)
sorts = st.lists(st.sampled_from(FIELDS).flatmap(lambda field: st.sampled_from([field, f"-{field}"])), max_size=2)


# --- the reference: the documented semantics, in Python ------------------------------------


def lookup(document: dict[str, Any], field: str) -> Any:
    if field == "_id":
        return document["_id"]
    value: Any = document
    for part in field.split("."):
        if not isinstance(value, dict) or part not in value:
            return MISSING
        value = value[part]
    return value


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def same(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if is_number(left) and is_number(right):
        return bool(left == right)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same(left[key], right[key]) for key in left)
    return type(left) is type(right) and left == right


def holds(value: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return value is MISSING or value is None if operand is None else value is not MISSING and same(value, operand)
    if operator == "$ne":
        return not holds(value, "$eq", operand)
    if operator == "$in":
        return any(holds(value, "$eq", item) for item in operand)
    if operator == "$nin":
        return not holds(value, "$in", operand)
    if operator == "$exists":
        return (value is not MISSING) == operand
    if is_number(operand) and not is_number(value) or isinstance(operand, str) and not isinstance(value, str):
        return False
    return {"$gt": value > operand, "$gte": value >= operand, "$lt": value < operand, "$lte": value <= operand}[
        operator
    ]


def matches(document: dict[str, Any], where: dict[str, Any]) -> bool:
    for key, value in where.items():
        if key == "$and":
            ok = all(matches(document, part) for part in value)
        elif key == "$or":
            ok = any(matches(document, part) for part in value)
        elif isinstance(value, dict) and value and all(name.startswith("$") for name in value):
            ok = all(holds(lookup(document, key), operator, operand) for operator, operand in value.items())
        else:
            ok = holds(lookup(document, key), "$eq", value)
        if not ok:
            return False
    return True


def sort_key(value: Any) -> tuple[int, Any]:
    if value is MISSING:
        return (0, 0)
    if value is None:
        return (1, 0)
    if isinstance(value, bool):
        return (2, int(value))
    if is_number(value):
        return (3, value)
    if isinstance(value, str):
        return (4, value)
    return (5, 0)


def expected_order(selected: list[dict[str, Any]], keys: list[str]) -> list[str]:
    ordered = sorted(selected, key=lambda document: document["_id"])
    for key in reversed(keys):
        field = key.removeprefix("-")
        ordered.sort(key=lambda document, field=field: sort_key(lookup(document, field)), reverse=key.startswith("-"))
    return [document["_id"] for document in ordered]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bodies=documents, queries=st.lists(st.tuples(filters, sorts), min_size=1, max_size=4), limit=st.integers(1, 4))
def test_find_selects_and_orders_as_the_documented_semantics_say(
    store: DataStore, bodies: list[dict[str, Any]], queries: list[tuple[dict[str, Any], list[str]]], limit: int
) -> None:
    collection = store["random"]
    collection.clear()
    stored = [{"_id": f"d{index}", **body} for index, body in enumerate(bodies)]
    collection.insert_many(stored)
    for where, keys in queries:
        want = expected_order([document for document in stored if matches(document, where)], keys)
        page = collection.find(where, sort=keys or None)
        assert (page.ids, page.total) == (want, len(want)), (where, keys)
        assert collection.count(where) == len(want)
        first = collection.find(where, sort=keys or None, limit=limit, offset=1)
        assert (first.ids, first.total) == (want[1 : 1 + limit], len(want))
        assert page.items == [next(document for document in stored if document["_id"] == name) for name in want]
