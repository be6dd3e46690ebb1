"""Which arguments may skip the test for what JSON readers disagree on (``runtime.json_edges``).

``takes_floats(model)`` is ``False`` only for input models that refuse ``NaN``,
``Infinity`` and ``1e999`` by themselves; the call path then skips looking for them.
The property that makes that safe is checked against pydantic itself: for every model
said to take no float, every such token put in place of any value of valid arguments is
refused by ``model_validate_json``.  And through a real runtime, such text is refused
for both kinds of model, with the same message.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import uuid
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from runtime_support import compile_case, run
from skillc.runtime.context import ToolContext
from skillc.runtime.json_edges import suspect, takes_floats
from skillc.runtime.loader import load_dist
from typing_extensions import TypedDict


class Color(str, enum.Enum):
    RED = "red"


class Ratio(float, enum.Enum):
    HALF = 0.5


class Order(BaseModel):
    order_id: str = Field(pattern=r"^A\d{4}$")
    quantity: Annotated[int, Field(ge=1, le=100)] = 1
    express: bool = False
    tags: list[str] = Field(default_factory=list)


class Node(BaseModel):
    name: str
    children: list[Node] = []


class Address(TypedDict):
    street: str
    number: int


@dataclasses.dataclass
class Parcel:
    weight_grams: int


class Everything(BaseModel):
    order: Order
    tree: Node
    address: Address
    parcel: Parcel
    counts: dict[str, int]
    pair: tuple[int, str]
    many: tuple[int, ...]
    when: datetime.datetime
    day: datetime.date
    id: uuid.UUID
    color: Color
    kind: Literal["a", "b", 3]
    note: str | None = None
    either: int | str = 0


class Checked(BaseModel):
    count: int

    @field_validator("count")
    @classmethod
    def positive(cls, value: int) -> int:
        return abs(value)


class Price(BaseModel):
    amount: float


class Loose(BaseModel):
    value: Any


class Mixed(BaseModel):
    value: int | float


class Scaled(BaseModel):
    ratio: Ratio


class Recursive(BaseModel):
    weight: float
    parts: list[Recursive] = []


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    count: int


class RawFirst(BaseModel):
    count: int

    @field_validator("count", mode="before")
    @classmethod
    def raw(cls, value: object) -> object:
        return value


class WholeFirst(BaseModel):
    count: int

    @model_validator(mode="before")
    @classmethod
    def raw(cls, value: object) -> object:
        return value


class AnyDict(BaseModel):
    data: dict  # type: ignore[type-arg]


#: Valid arguments of each model said to take no float.
NO_FLOATS: dict[type[BaseModel], dict[str, Any]] = {
    Order: {"order_id": "A1001", "quantity": 3, "express": True, "tags": ["gift"]},
    Node: {"name": "root", "children": [{"name": "leaf", "children": []}]},
    Everything: {
        "order": {"order_id": "A1001"},
        "tree": {"name": "t"},
        "address": {"street": "Main", "number": 4},
        "parcel": {"weight_grams": 120},
        "counts": {"a": 1},
        "pair": [1, "x"],
        "many": [1, 2],
        "when": "2026-12-01T10:00:00Z",
        "day": "2026-12-01",
        "id": "12345678-1234-5678-1234-567812345678",
        "color": "red",
        "kind": 3,
        "note": "n",
        "either": 5,
    },
    Checked: {"count": -3},
}
TAKES_FLOATS = [Price, Loose, Mixed, Scaled, Recursive, Open, RawFirst, WholeFirst, AnyDict]
TOKENS = ["NaN", "Infinity", "-Infinity", "1e999", "-1E+999"]


@pytest.mark.parametrize("model", list(NO_FLOATS), ids=lambda model: model.__name__)
def test_models_of_strings_integers_and_containers_take_no_float(model: type[BaseModel]) -> None:
    assert takes_floats(model) is False
    model.model_validate_json(json.dumps(NO_FLOATS[model]))  # the sample is valid


@pytest.mark.parametrize("model", TAKES_FLOATS, ids=lambda model: model.__name__)
def test_a_float_any_raw_validator_or_extra_fields_may_take_one(model: type[BaseModel]) -> None:
    assert takes_floats(model) is True


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``value`` (the value itself included)."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _places(item, (*path, index))
    return found


_MARK = "\u0000mark\u0000"


def _with_token(document: Any, path: tuple[Any, ...], token: str) -> str:
    """``document`` as JSON text with the value at ``path`` replaced by the bare ``token``."""
    if not path:
        return token
    copy = json.loads(json.dumps(document))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = _MARK
    return json.dumps(copy).replace(json.dumps(_MARK), token)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_a_model_said_to_take_no_float_refuses_every_non_finite_token(data: st.DataObject) -> None:
    model = data.draw(st.sampled_from(list(NO_FLOATS)), label="model")
    document = NO_FLOATS[model]
    path = data.draw(st.sampled_from(_places(document)), label="path")
    token = data.draw(st.sampled_from(TOKENS), label="token")
    text = _with_token(document, path, token)
    with pytest.raises(ValidationError):
        model.model_validate_json(text)


@pytest.mark.parametrize(
    ("text", "floats", "expected"),
    [
        ('{"order_id": "A1001", "quantity": 3}', True, False),
        ('{"amount": NaN}', True, True),
        ('{"amount": -Infinity}', True, True),
        ('{"amount": 1e999}', True, True),
        ('{"amount": 1E-400}', True, True),
        ('{"note": "NaN"}', True, True),  # looks suspect: takes the long way, which accepts it
        ('{"amount": 1e99}', True, False),
        ('{"amount": NaN}', False, False),  # such a model refuses it by itself
        ('{"count": ' + "9" * 300 + "}", False, True),
        ('{"count": ' + "9" * 299 + "}", False, False),
    ],
)
def test_suspect_text(text: str, floats: bool, expected: bool) -> None:
    assert suspect(text, floats=floats) is expected


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_case("calls", tmp_path_factory.mktemp("json-edges"))


@pytest.mark.parametrize(
    ("tool", "arguments", "error_type"),
    [
        ("add", '{"a": NaN, "b": 1}', "invalid_json"),
        ("add", '{"a": 1e999, "b": 1}', "invalid_json"),
        ("add", '{"a": ' + "9" * 5000 + ', "b": 1}', "invalid_json"),
        ("slow_async", '{"seconds": NaN}', "invalid_json"),
        ("slow_async", '{"seconds": 1e999}', "invalid_json"),
    ],
)
def test_non_finite_arguments_are_refused_through_the_runtime(
    dist: Path, tool: str, arguments: str, error_type: str
) -> None:
    with load_dist(dist) as runtime:
        result = run(runtime.call(tool, arguments, "c1", ToolContext()))
    assert (result.is_error, result.error_type) == (True, error_type), result.output
