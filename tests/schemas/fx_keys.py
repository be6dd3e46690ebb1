"""dict keys other than plain str: int, enums, literals and constrained strings."""

import enum
import uuid
from typing import Annotated, Dict, Literal

from pydantic import BaseModel, Field, StringConstraints, constr


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Color(str, enum.Enum):
    RED = "red"


class Keys(BaseModel):
    by_int: dict[int, str]
    by_level: dict[Level, int] = {}
    by_color: Dict[Color, list[int]]
    by_literal: dict[Literal["a", "b"], int]
    by_pattern: dict[constr(pattern="^a"), int]  # type: ignore[valid-type]
    by_length: dict[Annotated[str, StringConstraints(min_length=1)], int]
    by_uuid: dict[uuid.UUID, str]
    by_float: dict[float, str]
    by_int_any: dict[int, Annotated[int, Field(ge=0)]] = {}
