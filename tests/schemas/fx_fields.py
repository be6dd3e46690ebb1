"""Field() and Annotated in every position the subset allows."""

from decimal import Decimal
from typing import Annotated, ClassVar, Optional

from pydantic import BaseModel, Field, PrivateAttr

LIMIT = 10
TAGS = ["a", "b"]
GREETING = "hi"
Positive = Annotated[int, Field(gt=0, description="A positive number.")]
ShortText = Annotated[str, Field(max_length=5)]


def new_list() -> list[str]:
    return []


class Sub(BaseModel):
    x: int = 0


class Described(BaseModel):
    plain: int = Field(description="Plain.")
    titled: int = Field(title="Custom title")
    both: str = Field("d", title="T", description="D")
    aliased: int = Field(alias="aliasName")
    snake_alias: int = Field(default=1, alias="snake_case_alias")
    validation: int = Field(validation_alias="validated", alias="ignored")
    examples: int = Field(examples=[1, 2])
    example_dicts: dict[str, int] = Field(examples=[{"a": 1}], default={})
    extra: int = Field(json_schema_extra={"x-unit": "cm", "x-list": (1, 2)})
    extra_title: int = Field(json_schema_extra={"title": "From extra"})
    extra_default: int = Field(default=3, json_schema_extra={"default": 4})
    deprecated: int = Field(default=0, deprecated=True)
    deprecated_message: int = Field(default=0, deprecated="use plain")
    not_deprecated: int = Field(default=0, deprecated=False)
    excluded: int = Field(default=0, exclude=True, repr=False)
    required_ellipsis: int = Field(...)
    none_default: Optional[int] = Field(None)
    constant_default: int = LIMIT
    constant_list: list[str] = TAGS
    constant_in_field: str = Field(default=GREETING)


class Factories(BaseModel):
    tags: list[str] = Field(default_factory=list)
    meta: dict[str, int] = Field(default_factory=dict)
    seen: set[int] = Field(default_factory=set)
    made: list[str] = Field(default_factory=new_list)
    lam: list[int] = Field(default_factory=lambda: [1, 2])
    sub: Sub = Field(default_factory=Sub)


class AnnotatedFields(BaseModel):
    a: Annotated[int, Field(ge=0)]
    b: Annotated[int, Field(ge=0)] = 5
    c: Annotated[int, Field(description="inner")] = Field(default=1, description="outer")
    d: Annotated[int, Field(ge=0)] = Field(ge=1, le=9)
    e: Annotated[Annotated[int, Field(ge=0)], Field(le=5)]
    f: Positive
    g: Positive = Field(default=3, description="Overridden.")
    h: Optional[Positive] = None
    i: list[Positive] = []
    j: list[Annotated[str, Field(min_length=1, description="An item.", title="Item")]]
    k: Annotated[Optional[int], Field(ge=0, description="Maybe.")] = None
    m: Optional[Annotated[int, Field(le=3)]] = None
    n: Annotated[int, "just a note", 42]
    o: dict[str, Annotated[int, Field(title="Dropped", description="Kept")]] = {}
    p: list[Annotated[Sub, Field(description="A sub.")]] = []
    q: Annotated[Sub, Field(description="Described sub.")] = Field(default={"x": 2})
    r: Annotated[int, Field(json_schema_extra={"a": 1})] = Field(json_schema_extra={"b": 2})
    s: ShortText = "abc"
    t: Annotated[str, Field(alias="tee")] = "t"
    u: Annotated[list[int], Field(min_length=1)] = Field(default_factory=lambda: [1])


class Special(BaseModel):
    limit: ClassVar[int] = 3
    other: ClassVar = "x"
    _secret: int = 0
    _hidden: str = PrivateAttr(default="h")
    default: Annotated[int, Field(ge=1, description="Named default.")] = 5
    properties: int = 2
    title: str = Field("x", pattern="^x")
    required: list[str] = []


class Repeats(BaseModel):
    """A field's title equal to its model's is dropped beside the $ref, as pydantic does."""

    sub: Sub = Field(title="Sub", description="Kept.")
    extra: Annotated[Sub, Field(json_schema_extra={"title": "Sub"})] = Field(default_factory=Sub)


class SplitDefault(BaseModel):
    """The annotation and the value of a field may be written apart."""

    count: int
    count = 5  # type: ignore[misc]


class Validating(BaseModel):
    """Constraints that change validation but not the schema."""

    price: Decimal = Field(max_digits=8, decimal_places=2, ge=0)
    count: int = Field(strict=True, le=5)
    ratio: Optional[float] = Field(default=None, allow_inf_nan=False)
    items: list[int] = Field(default_factory=list, fail_fast=True, strict=True)
    tagged: Annotated[str, Field(strict=True, alias_priority=1, alias="Tagged")] = ""
