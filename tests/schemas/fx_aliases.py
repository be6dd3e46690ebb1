"""The same types spelled through aliases, module attributes and re-exports."""

from __future__ import annotations

import datetime as dt
import typing as t
from datetime import datetime as Stamp
from typing import ClassVar, TypeAlias

import pydantic as pd
import typing_extensions as te

import fx_pkg
from fx_pkg import Reexported
from fx_pkg.inner import Reexported as Direct

Ids: TypeAlias = list[int]
MaybeText = t.Optional[str]
Limit = te.Annotated[int, pd.Field(ge=0, le=10)]
Text = str


class Spelled(pd.BaseModel):
    model_config = pd.ConfigDict(extra="forbid")
    registry: ClassVar[dict[str, int]] = {}

    ids: Ids = []
    maybe: MaybeText = None
    limit: Limit = 5
    text: Text = "x"
    when: Stamp
    day: dt.date
    union: t.Union[int, str] = 1
    literal: te.Literal["a", "b"] = "a"
    items: t.List[t.Dict[str, int]] = []
    first: Reexported
    second: fx_pkg.Reexported
    third: Direct
    described: te.Annotated[str, pd.Field(description="Through typing_extensions.")] = ""
