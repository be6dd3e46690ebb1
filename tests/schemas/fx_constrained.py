"""Constrained types: pydantic's aliases and con* functions, annotated_types, StringConstraints."""

from decimal import Decimal
from typing import Annotated, Optional

import annotated_types
from annotated_types import Ge, Gt, Interval, Le, Len, Lt, MaxLen, MinLen, MultipleOf
from pydantic import (
    BaseModel,
    Field,
    FiniteFloat,
    NegativeFloat,
    NegativeInt,
    NonNegativeFloat,
    NonNegativeInt,
    NonPositiveFloat,
    NonPositiveInt,
    PositiveFloat,
    PositiveInt,
    Strict,
    StrictBool,
    StrictBytes,
    StrictFloat,
    StrictInt,
    StrictStr,
    StringConstraints,
    conbytes,
    condate,
    condecimal,
    confloat,
    confrozenset,
    conint,
    conlist,
    conset,
    constr,
)

Small = conint(ge=0, le=9)
Code = Annotated[str, StringConstraints(min_length=2, max_length=8, pattern=r"^[A-Z]+$", strip_whitespace=True)]


class Aliases(BaseModel):
    a: PositiveInt
    b: NegativeInt = -1
    c: NonNegativeInt
    d: NonPositiveInt
    e: PositiveFloat
    f: NegativeFloat
    g: NonNegativeFloat
    h: NonPositiveFloat
    i: FiniteFloat
    j: StrictStr
    k: StrictInt
    m: StrictFloat
    n: StrictBool
    o: StrictBytes
    p: Optional[PositiveInt] = None
    q: Annotated[PositiveInt, Field(lt=10)]
    r: list[NonNegativeInt] = []


class Functions(BaseModel):
    a: conint(gt=1, le=5, multiple_of=2)  # type: ignore[valid-type]
    b: confloat(ge=0, lt=1, allow_inf_nan=False)  # type: ignore[valid-type]
    c: constr(min_length=1, max_length=5, pattern="^a", to_lower=True)  # type: ignore[valid-type]
    d: constr(min_length=0)  # type: ignore[valid-type]
    e: conlist(int, min_length=1, max_length=3)  # type: ignore[valid-type]
    f: conlist(str)  # type: ignore[valid-type]
    g: conset(int, max_length=2)  # type: ignore[valid-type]
    h: confrozenset(str, min_length=1)  # type: ignore[valid-type]
    i: condecimal(gt=0, max_digits=5, decimal_places=2)  # type: ignore[valid-type]
    j: conbytes(max_length=3)  # type: ignore[valid-type]
    k: condate()  # type: ignore[valid-type]
    m: Small = 3
    n: Optional[Small] = None
    o: conlist(item_type=Small, min_length=0)  # type: ignore[valid-type]
    p: Annotated[Decimal, Field(ge=1)] = 1  # type: ignore[assignment]


class Metadata(BaseModel):
    a: Annotated[int, Gt(1), Le(3)]
    b: Annotated[int, Ge(0), Lt(10), MultipleOf(2)]
    c: Annotated[str, Len(1, 4)]
    d: Annotated[str, Len(0)]
    e: Annotated[list[int], MinLen(0)]
    f: Annotated[list[int], MaxLen(3)] = []
    g: Annotated[float, Interval(gt=0, le=1)]
    h: Annotated[int, annotated_types.Gt(0), Field(description="Both.")]
    i: Annotated[str, StringConstraints(to_upper=True, min_length=0)]
    j: Code
    k: Optional[Code] = None
    m: Annotated[int, Strict()]
    n: Annotated[int, Strict]
    o: Annotated[int, Gt(0)] = Field(default=1, lt=5)
    p: dict[str, Annotated[int, Ge(0)]] = {}


class Precedence(BaseModel):
    """A constrained type is an Annotated alias: the assigned Field's constraints lose to it."""

    a: PositiveInt = Field(gt=5)
    b: Annotated[PositiveInt, Field(gt=5)]
    c: Optional[PositiveInt] = Field(None, gt=5)
    d: conint(gt=1) = Field(gt=5, le=9)  # type: ignore[valid-type]
    e: Annotated[conint(gt=1), Field(gt=5)] = Field(gt=7)  # type: ignore[valid-type]
    f: Small = Field(default=1, le=5, multiple_of=1)
