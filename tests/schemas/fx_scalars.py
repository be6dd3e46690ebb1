"""Scalar types, their JSON forms and defaults."""

import datetime as dt
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any
from uuid import UUID

from pydantic import BaseModel, Field


class Scalars(BaseModel):
    text: str
    count: int
    ratio: float
    flag: bool
    nothing: None
    blob: bytes
    stamp: datetime
    day: date
    clock: time
    span: timedelta
    ident: UUID
    money: Decimal
    anything: Any


class ScalarDefaults(BaseModel):
    text: str = "hello"
    empty: str = ""
    count: int = -3
    big: int = 12345678901234567890
    ratio: float = 0.25
    whole: float = 2
    flag: bool = False
    nothing: None = None
    blob: bytes = b"raw"
    anything: Any = None
    stamp: dt.datetime = "2024-01-01T00:00:00"
    unicode: str = "caf\u00e9 \u2603"


class Constrained(BaseModel):
    count: int = Field(ge=0, le=10)
    strictly: int = Field(gt=-1, lt=100, multiple_of=5)
    ratio: float = Field(gt=0, le=1.5, multiple_of=0.25)
    name: str = Field(min_length=1, max_length=20, pattern=r"^[a-z]+$")
    blob: bytes = Field(min_length=2, max_length=8)
    money: Decimal = Field(ge=1, lt=1000, multiple_of=0.5)
    whole_money: Decimal = Field(gt=0)
