"""Keys of a ``dict[str, X]`` are the caller's text: a validation error names declared fields, never such keys."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from skillc.runtime.serialize import describe_validation_error


class Cat(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["cat"] = "cat"
    name: str


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    name: str


class Booking(BaseModel):
    scores: dict[str, int] = {}
    maybe: dict[str, int] | None = None
    pets: dict[str, list[Cat]] = {}
    pet: Annotated[Cat | Dog, Field(discriminator="kind")] | None = None
    either: dict[str, int] | list[int] = []
    pair: tuple[int, dict[str, int]] | None = None
    order_id: str = Field("A1", alias="orderId")


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"scores": {"bob": "x"}}, "scores.<key>: Input should be a valid integer"),
        ({"scores": {"sk-live-0123456789abcdef": "x"}}, "scores.<key>: Input should be a valid integer"),
        ({"maybe": {"alice_smith": "x"}}, "maybe.<key>: Input should be a valid integer"),
        ({"pets": {"rex": [{"name": 1}]}}, "pets.<key>[0].name: Input should be a valid string"),
        ({"pets": {"rex": [{"name": "a", "colour": 1}]}}, "pets.<key>[0]: 1 unexpected property, not in the schema"),
        ({"pet": {"kind": "dog", "name": 2}}, "pet.dog.name: Input should be a valid string"),
        ({"either": {"carol": "x"}}, "either.dict[str,int].<key>: Input should be a valid integer"),
        ({"pair": [1, {"dave": "x"}]}, "pair[1].<key>: Input should be a valid integer"),
        ({"orderId": 5}, "orderId: Input should be a valid string"),
    ],
)
def test_declared_fields_are_named_and_dict_keys_are_not(arguments: dict[str, object], expected: str) -> None:
    with pytest.raises(ValidationError) as raised:
        Booking.model_validate(arguments)
    lines = describe_validation_error(raised.value, Booking)
    assert any(line.startswith(expected) for line in lines), lines
    for key in ("bob", "sk-live", "alice", "rex", "carol", "dave"):
        assert all(key not in line for line in lines), lines


def test_without_the_model_only_keys_that_look_like_field_names_are_shown() -> None:
    with pytest.raises(ValidationError) as raised:
        Booking.model_validate({"scores": {"bob": "x", "alice@example.com": "y"}})
    assert [line.split(":")[0] for line in describe_validation_error(raised.value)] == ["scores.bob", "scores.<key>"]
