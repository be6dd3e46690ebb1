"""The strict variant of a schema follows OpenAI's strict-mode rules, or says why it cannot.

Every model of the schema fixtures (tests/schemas) and the models below go through
``strict_schema``: a result must be a valid JSON Schema 2020-12 document in which every
object is closed and requires all its properties, every ``$ref`` stands alone and
points at a closed definition, and only the keywords strict mode accepts appear.
"""

from __future__ import annotations

import copy
import enum
import importlib
import inspect
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import jsonschema
import pytest
from pydantic import BaseModel, ConfigDict, Field
from skillc.compiler.strict import STRICT_FORMATS, strict_schema

FIXTURES = Path(__file__).parent / "schemas"
FIXTURE_MODULES = [
    "fx_scalars",
    "fx_unions",
    "fx_enums",
    "fx_nested",
    "fx_inheritance",
    "fx_collections",
    "fx_fields",
    "fx_config",
    "fx_future",
    "fx_validators",
    "fx_collide.top",
    "fx_aliases",
]
KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "enum",
        "description",
        "$ref",
        "$defs",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
    }
)


def check_strict(schema: dict[str, Any]) -> None:
    """Assert the rules of OpenAI's strict mode on a whole document."""
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema.get("type") == "object", "the root is an object"
    definitions = schema.get("$defs", {})

    def visit(node: Any, is_root: bool = False) -> None:
        assert isinstance(node, dict) and node, f"an untyped schema: {node!r}"
        assert set(node) <= KEYWORDS, set(node) - KEYWORDS
        assert "$defs" not in node or is_root
        assert any(key in node for key in ("type", "$ref", "anyOf", "enum")), node
        if "$ref" in node:
            assert set(node) == {"$ref"}, "a $ref stands alone"
            assert node["$ref"].removeprefix("#/$defs/") in definitions
        if node.get("type") == "object":
            assert node["additionalProperties"] is False
            assert node["required"] == list(node["properties"])
        if node.get("type") == "array":
            visit(node["items"])
        if "format" in node:
            assert node["format"] in STRICT_FORMATS
        for value in node.get("properties", {}).values():
            visit(value)
        for member in node.get("anyOf", ()):
            visit(member)

    visit(schema, is_root=True)
    for definition in definitions.values():
        visit(definition)


# --- Every fixture model -------------------------------------------------------------


@pytest.fixture(scope="module")
def fixtures() -> Iterator[None]:
    sys.path.insert(0, str(FIXTURES))
    try:
        yield
    finally:
        sys.path.remove(str(FIXTURES))
        for name in [name for name in sys.modules if name.startswith("fx_")]:
            del sys.modules[name]


def _strict_free(schema: dict[str, Any]) -> bool:
    """Whether a pydantic schema holds something strict mode cannot express."""
    if not any(key in schema for key in ("type", "$ref", "anyOf", "enum", "const")):
        return True  # Any
    if schema.get("additionalProperties") not in (None, False):
        return True  # a dict, or extra="allow"
    prefix = schema.get("prefixItems", [])
    if any(item != prefix[0] for item in prefix):
        return True  # a tuple of mixed types
    if schema.get("type") == "array" and "items" not in schema and not prefix:
        return True  # tuple[()]
    children = [
        *schema.get("properties", {}).values(),
        *schema.get("anyOf", ()),
        *prefix,
        *schema.get("$defs", {}).values(),
        *([schema["items"]] if "items" in schema else []),
    ]
    return any(_strict_free(child) for child in children)


@pytest.mark.parametrize("module_name", FIXTURE_MODULES)
def test_every_fixture_model_is_strict_or_refused_for_a_reason(fixtures: None, module_name: str) -> None:
    module = importlib.import_module(module_name)
    models = [
        value
        for value in vars(module).values()
        if inspect.isclass(value) and issubclass(value, BaseModel) and value.__module__ == module_name
    ]
    assert models
    for model in models:
        schema = model.model_json_schema()
        original = copy.deepcopy(schema)
        strict = strict_schema(schema)
        assert schema == original, "the input is left alone"
        if isinstance(strict, str):
            assert _strict_free(schema), (model.__name__, strict)
        else:
            assert not _strict_free(schema), model.__name__
            check_strict(strict)


# --- What each rule does ---------------------------------------------------------------


class Size(str, enum.Enum):
    SMALL = "s"
    LARGE = "l"


class Line(BaseModel):
    """One line of an order."""

    sku: str = Field(min_length=1, max_length=12, pattern=r"^[A-Z]\d+$", title="SKU")
    quantity: int = Field(default=1, ge=1, le=99)
    size: Size = Size.SMALL


class Order(BaseModel):
    order_id: str
    lines: list[Line] = Field(min_length=1, max_length=50)
    note: str | None = None
    gift: bool = False
    tags: set[str] = set()
    express: Literal[True] = True
    placed: str = Field(default="", json_schema_extra={"format": "date-time", "x-internal": 1})
    size: Size = Field(Size.LARGE, description="The default size.")
    main: Line = Field(description="The first line.")


class Node(BaseModel):
    name: str
    children: list[Node] = []


def test_objects_are_closed_and_require_every_property() -> None:
    strict = strict_schema(Order.model_json_schema())
    assert isinstance(strict, dict)
    check_strict(strict)
    assert strict["required"] == list(Order.model_fields)
    assert strict["$defs"]["Line"]["required"] == ["sku", "quantity", "size"]


def test_a_field_with_a_default_becomes_nullable_and_an_optional_one_stays_as_it_is() -> None:
    strict = strict_schema(Order.model_json_schema())
    assert isinstance(strict, dict)
    properties = strict["properties"]
    assert properties["gift"] == {"anyOf": [{"type": "boolean"}, {"type": "null"}]}
    assert properties["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert properties["order_id"] == {"type": "string"}
    assert properties["size"] == {
        "anyOf": [{"$ref": "#/$defs/Size"}, {"type": "null"}],
        "description": "The default size.",
    }


def test_only_the_keywords_strict_mode_accepts_are_kept() -> None:
    strict = strict_schema(Order.model_json_schema())
    assert isinstance(strict, dict)
    line = strict["$defs"]["Line"]
    assert line["properties"]["sku"] == {"type": "string", "pattern": r"^[A-Z]\d+$"}  # no title, no lengths
    assert line["properties"]["quantity"] == {
        "anyOf": [{"type": "integer", "minimum": 1, "maximum": 99}, {"type": "null"}]
    }
    assert line["description"] == "One line of an order."
    properties = strict["properties"]
    assert properties["lines"] == {"type": "array", "items": {"$ref": "#/$defs/Line"}, "minItems": 1, "maxItems": 50}
    assert properties["tags"] == {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]}
    assert properties["express"] == {"anyOf": [{"enum": [True], "type": "boolean"}, {"type": "null"}]}
    assert properties["placed"] == {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]}


def test_a_ref_with_a_description_is_wrapped_so_that_it_stands_alone() -> None:
    strict = strict_schema(Order.model_json_schema())
    assert isinstance(strict, dict)
    assert strict["properties"]["main"] == {"anyOf": [{"$ref": "#/$defs/Line"}], "description": "The first line."}


def test_a_recursive_model_becomes_the_root_object_and_stays_a_definition() -> None:
    schema = Node.model_json_schema()
    assert "$ref" in schema
    strict = strict_schema(schema)
    assert isinstance(strict, dict)
    check_strict(strict)
    assert strict["properties"]["children"]["anyOf"][0]["items"] == {"$ref": "#/$defs/Node"}
    assert strict["$defs"]["Node"]["additionalProperties"] is False


@pytest.mark.parametrize(
    ("annotation", "default", "reason"),
    [
        (dict[str, int], {}, "tags is a dict with free-form keys, which strict mode cannot close"),
        (Any, None, "tags accepts a value of any type"),
        (list, [], "tags[] accepts a value of any type"),
        (tuple[int, str], (1, "a"), "tags is a tuple of mixed types"),
        (tuple[()], (), "tags is an array with no item type"),
        (list[dict[str, Any]], [], "tags[] is a dict with free-form keys"),
    ],
)
def test_what_strict_mode_cannot_express_is_refused_with_the_reason(annotation: Any, default: Any, reason: str) -> None:
    model = type("Refused", (BaseModel,), {"__annotations__": {"tags": annotation}, "tags": default})
    result = strict_schema(model.model_json_schema())
    assert isinstance(result, str)
    assert result.startswith(reason)


def test_extra_fields_allowed_are_refused() -> None:
    class Open(BaseModel):
        model_config = ConfigDict(extra="allow")
        a: int

    class Outer(BaseModel):
        inner: Open

    result = strict_schema(Outer.model_json_schema())
    assert result == "Open allows extra fields (extra='allow'), which strict mode cannot close"


def test_a_tuple_of_one_type_becomes_a_list_of_that_length() -> None:
    class Point(BaseModel):
        xy: tuple[float, float]

    strict = strict_schema(Point.model_json_schema())
    assert isinstance(strict, dict)
    assert strict["properties"]["xy"] == {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}


def test_unsupported_formats_and_look_around_patterns_are_dropped() -> None:
    # pydantic's own engine refuses look-around, but a schema from elsewhere may hold one.
    schema = {
        "type": "object",
        "properties": {
            "blob": {"type": "string", "format": "binary"},
            "code": {"type": "string", "pattern": "^(?!x)\\w+$"},
            "mail": {"type": "string", "format": "email", "pattern": "@"},
        },
        "required": ["blob", "code", "mail"],
    }
    strict = strict_schema(schema)
    assert isinstance(strict, dict)
    assert strict["properties"] == {
        "blob": {"type": "string"},
        "code": {"type": "string"},
        "mail": {"type": "string", "pattern": "@", "format": "email"},
    }


def test_an_empty_input_is_an_empty_closed_object() -> None:
    strict = strict_schema({"properties": {}, "type": "object"})
    assert strict == {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    assert isinstance(strict, dict)
    check_strict(strict)


def test_an_input_that_is_not_an_object_is_refused() -> None:
    assert strict_schema({"type": "string"}) == (
        "the input is not an object, and strict mode takes only objects as arguments"
    )


def test_arguments_valid_for_the_strict_schema_are_valid_for_the_model_once_nulls_are_dropped() -> None:
    strict = strict_schema(Order.model_json_schema())
    assert isinstance(strict, dict)
    arguments = {
        "order_id": "A1",
        "lines": [{"sku": "A1", "quantity": None, "size": None}],
        "note": None,
        "gift": None,
        "tags": None,
        "express": None,
        "placed": None,
        "size": "l",
        "main": {"sku": "B2", "quantity": 2, "size": "s"},
    }
    jsonschema.validate(arguments, strict)

    def without_nulls(value: Any) -> Any:
        """What the runtime does with a null for a widened property: leave the property out."""
        if isinstance(value, dict):
            return {key: without_nulls(item) for key, item in value.items() if item is not None}
        if isinstance(value, list):
            return [without_nulls(item) for item in value]
        return value

    Order.model_validate(without_nulls(arguments))
