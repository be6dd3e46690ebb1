"""Named types, callable discriminators, dataclass inheritance and options (issue 11, item 2)."""

import dataclasses
import datetime
from typing import Annotated, Any, Literal, Optional, Union

import pydantic
from pydantic import BaseModel, ByteSize, ConfigDict, Discriminator, Field, ImportString, Secret, Tag, condate
from pydantic.types import PaymentCardNumber

LAUNCH = datetime.date(2020, 1, 2)


class Kitten(BaseModel):
    kind: Literal["kitten"] = "kitten"
    lives: int = 9


class Puppy(BaseModel):
    kind: Literal["puppy"] = "puppy"


def pick(value: Any) -> str:
    return value.get("kind", "kitten") if isinstance(value, dict) else getattr(value, "kind", "kitten")


class Sizes(BaseModel):
    size: ByteSize
    limit: ByteSize = 1024
    card: PaymentCardNumber
    plugin: ImportString
    typed_plugin: ImportString[Any] = "math"


class Secrets(BaseModel):
    pin: Secret[int]
    phrase: Secret[str] = "open"
    day: Optional[Secret[datetime.date]] = None


class Dates(BaseModel):
    after: condate(gt=LAUNCH, le=datetime.date(2030, 1, 1))  # type: ignore[valid-type]
    before: condate(lt=datetime.date.today()) = "2020-01-01"  # type: ignore[valid-type]


class Picked(BaseModel):
    pet: Annotated[Union[Annotated[Kitten, Tag("kitten")], Annotated[Puppy, Tag("puppy")]], Discriminator(pick)]
    mixed: Annotated[
        Union[Annotated[Kitten, Tag("k")], Annotated[int, Tag("n")], Annotated[str, Tag("s")]],
        Discriminator(lambda value: "n" if isinstance(value, int) else "k"),
    ] = 1
    many: list[Annotated[Union[Annotated[Kitten, Tag("k")], Annotated[Puppy, Tag("p")]], Discriminator(pick)]] = []


class Tagged(BaseModel):
    """A Tag without a callable discriminator changes nothing."""

    pet: Union[Annotated[Kitten, Tag("k")], Puppy]


@dataclasses.dataclass
class Base:
    """The base."""

    a: int
    b: str = "x"


@dataclasses.dataclass(kw_only=True)
class Child(Base):
    c: int
    b: str = "y"


@dataclasses.dataclass
class Marked:
    a: int
    _: dataclasses.KW_ONLY
    b: int = 3


@dataclasses.dataclass(frozen=True)
class Frozen:
    """Frozen."""

    a: int = 0


@pydantic.dataclasses.dataclass(config=ConfigDict(extra="forbid", title="Custom", json_schema_extra={"x-a": 1}))
class Configured:
    x: int = 1


@pydantic.dataclasses.dataclass
class InheritsConfig(Configured):
    """Takes its base's configuration."""

    y: int = 2


@pydantic.dataclasses.dataclass(config={"extra": "allow"}, kw_only=True)
class OwnConfig(Configured):
    z: int


@pydantic.dataclasses.dataclass
class FromStdlib(Base):
    d: int = 0


class Dataclasses(BaseModel):
    base: Base
    child: Child
    marked: Marked
    frozen: Frozen
    configured: Configured
    inherits: InheritsConfig
    own: OwnConfig
    from_stdlib: FromStdlib
