"""Enums of every kind, as definitions and defaults."""

import enum
from enum import Enum, IntEnum, StrEnum
from typing import Optional

from pydantic import BaseModel, Field


class Color(str, Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Level(int, Enum):
    """How loud.

    Levels go from low to high.
        Indented lines keep their indent.
    """

    LOW = 1
    HIGH = 2


class Priority(IntEnum):
    """Priorities."""

    MINOR = 10
    MAJOR = 20
    ALSO_MINOR = 10


class Shape(StrEnum):
    CIRCLE = "circle"
    SQUARE = "square"


class Mixed(Enum):
    TEXT = "text"
    NUMBER = 7
    REAL = 1.5
    NOTHING = None


class Floats(float, enum.Enum):
    HALF = 0.5
    ONE = 1.0


class Flags(Enum):
    YES = True
    NO = False


@enum.unique
class Size(Enum):
    """A size."""

    SMALL = "s"
    LARGE = "l"

    def label(self) -> str:
        return self.value.upper()


class BaseKind(str, Enum):
    pass


class Kind(BaseKind):
    A = "a"


class Painted(BaseModel):
    """Uses every enum."""

    color: Color
    level: Level = Level.HIGH
    priority: Priority = Priority.ALSO_MINOR
    shape: Optional[Shape] = None
    mixed: Mixed = Mixed.NUMBER
    floats: Floats = Floats.HALF
    flags: Flags = Flags.NO
    size: Size = Field(default=Size.SMALL, description="How big.")
    sizes: list[Size] = []
    kind: Kind = Kind.A
    colors: dict[str, Color] = {"main": Color.RED}
    raw_default: Color = "green"
    another: Color = Color.BLUE


class Auto(enum.Enum):
    FIRST = enum.auto()
    SECOND = enum.auto()
    TEN = 10
    ELEVEN = enum.auto()


class AutoInt(enum.IntEnum):
    A = enum.auto()
    B = enum.auto()


class AutoStr(enum.StrEnum):
    """Values are the lowered names."""

    Alpha = enum.auto()
    BETA = enum.auto()
    gamma = "G"


class UsesAuto(BaseModel):
    auto: Auto = Auto.ELEVEN
    ints: list[AutoInt] = [AutoInt.B]
    strs: AutoStr
