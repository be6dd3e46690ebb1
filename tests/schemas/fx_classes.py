"""TypedDicts, NamedTuples and dataclasses as fields, and Json[...]."""

import dataclasses
from dataclasses import dataclass, field
from typing import Annotated, NamedTuple, Optional

import pydantic
from pydantic import BaseModel, ConfigDict, Field, Json
from typing_extensions import NotRequired, Required, TypedDict


class Point(TypedDict):
    """A point."""

    x: int
    y: Annotated[int, Field(description="Up.", ge=0)]


class Options(TypedDict, total=False):
    colour: str
    size: Required[int]


class MoreOptions(Options):
    extra: NotRequired[list[str]]
    label: str


class Pair(NamedTuple):
    """Docstrings are not shown for named tuples."""

    left: int
    right: str = "r"


@dataclass
class Stdlib:
    """A stdlib dataclass."""

    a: int
    b: list[int] = field(default_factory=list)
    c: str = "q"
    d: Optional[int] = dataclasses.field(default=None, repr=False)


@dataclass(frozen=True)
class NoDoc:
    a: int = Field(default=1, description="From Field.")


@pydantic.dataclasses.dataclass
class Validated:
    """A pydantic dataclass."""

    n: int = 0


class Holder(BaseModel):
    point: Point
    options: Optional[Options] = None
    more: MoreOptions
    pair: Pair
    pairs: list[Pair] = []
    stdlib: Stdlib
    no_doc: NoDoc = Field(description="Described.")
    validated: Validated
    raw: Json
    numbers: Json[list[int]]
    nested: Optional[Json[Point]] = None


class Documented(TypedDict):
    first: int
    """Read only when the model around it has use_attribute_docstrings."""


@dataclass
class DocumentedData:
    value: str = ""
    """Likewise for a stdlib dataclass."""


class Strict(BaseModel):
    """A TypedDict or a stdlib dataclass takes the configuration of the model around it."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    documented: Documented
    data: DocumentedData
    validated: Validated
    pair: Pair
