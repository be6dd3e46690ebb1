"""The text a model sees: results as JSON, validation errors by field path without values."""

from __future__ import annotations

import json
import math
from typing import Annotated, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from skillc.runtime.serialize import (
    SerializationFailure,
    describe_exception,
    describe_validation_error,
    format_location,
    human_size,
    to_json_text,
)


class _A(BaseModel):
    kind: Literal["a"]


class _B(BaseModel):
    kind: Literal["b"]


class _Tagged(BaseModel):
    item: Annotated[_A | _B, Field(discriminator="kind")]
    numbers: list[int] = []
    code: str = Field(default="", pattern=r"^\d+$")


def _errors(document: object) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        _Tagged.model_validate(document)
    return describe_validation_error(caught.value)


def test_validation_errors_name_paths_and_expectations_never_values() -> None:
    lines = _errors({"item": {"kind": "SECRET-TAG"}, "numbers": [1, "SECRET-NUMBER"], "code": "SECRET-CODE"})
    assert lines == [
        "item: Input tag found using 'kind' does not match any of the expected tags: 'a', 'b'",
        "numbers[1]: Input should be a valid integer, unable to parse string as an integer",
        "code: String should match pattern '^\\d+$'",
    ]
    assert "SECRET" not in "".join(lines)


def test_long_error_lists_are_cut() -> None:
    lines = _errors({"item": {"kind": "a"}, "numbers": ["x"] * 30})
    assert len(lines) == 21 and lines[-1] == "... and 10 more"


@pytest.mark.parametrize(
    ("location", "text"),
    [((), "(arguments)"), (("a",), "a"), (("items", 0, "name"), "items[0].name"), ((2, "x"), "[2].x")],
)
def test_locations(location: tuple[int | str, ...], text: str) -> None:
    assert format_location(location) == text


def test_json_text() -> None:
    assert to_json_text("plain text") == "plain text"
    assert to_json_text({"n": float("nan"), "s": {1}}) == '{"n":null,"s":[1]}'
    assert to_json_text(None) == "null"


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (object(), "Unable to serialize unknown type"),
        (b"\xff", "invalid utf-8"),
        ("\ud800", "not valid Unicode"),
        ("é" * 6, "12 bytes of text, more than the limit of 10 bytes"),
    ],
)
def test_what_cannot_be_sent(value: object, fragment: str) -> None:
    with pytest.raises(SerializationFailure, match=fragment):
        to_json_text(value, limit=10)


def test_sizes_and_exceptions_as_people_read_them() -> None:
    assert [human_size(n) for n in (0, 1023, 1024, 1536, 1024 * 1024, 3 * 1024 * 1024)] == [
        "0 bytes",
        "1023 bytes",
        "1 KiB",
        "1.5 KiB",
        "1 MiB",
        "3 MiB",
    ]
    assert describe_exception(ValueError("bad order")) == "ValueError: bad order"
    assert describe_exception(KeyError()) == "KeyError"
    assert describe_exception(SystemExit(2)) == "sys.exit(2)"
    assert describe_exception(RuntimeError("x" * 5000)).endswith("x ...")


class _Constants(BaseModel):
    """A model that asks for NaN and infinities spelt as JavaScript does, which is not JSON."""

    model_config = ConfigDict(ser_json_inf_nan="constants")
    number: float
    numbers: list[float] = []
    text: str = ""


def _refuse_constant(name: str) -> object:
    raise AssertionError(f"{name} is not JSON")


@settings(max_examples=200, deadline=None)
@given(
    number=st.floats(),
    numbers=st.lists(st.floats(), max_size=4),
    text=st.text(max_size=12) | st.sampled_from(["NaN", "-Infinity", '"NaN"', "Infinity]"]),
    nested=st.booleans(),
)
def test_a_result_is_json_whatever_its_models_ask_for_nan_and_infinities(
    number: float, numbers: list[float], text: str, nested: bool
) -> None:
    """What is not finite is sent as null, as JSON.stringify sends it; the same letters in text stay text."""
    model = _Constants(number=number, numbers=numbers, text=text)
    sent = json.loads(to_json_text({"result": model} if nested else model), parse_constant=_refuse_constant)
    document = sent["result"] if nested else sent
    finite = [item if math.isfinite(item) else None for item in [number, *numbers]]
    assert document == {"number": finite[0], "numbers": finite[1:], "text": text}
