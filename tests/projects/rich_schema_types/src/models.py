"""A booking whose input uses many of the types real tools reach for."""

import dataclasses
import enum
import ipaddress
from pathlib import Path
from typing import Annotated, Literal, NamedTuple, Optional, Union

from annotated_types import Gt, Len, MaxLen
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    HttpUrl,
    Json,
    PositiveInt,
    SecretStr,
    StringConstraints,
    conint,
    conlist,
    constr,
)
from typing_extensions import NotRequired, TypedDict


class Cabin(enum.IntEnum):
    ECONOMY = enum.auto()
    BUSINESS = enum.auto()


class Meal(enum.StrEnum):
    VEGAN = enum.auto()
    REGULAR = enum.auto()


class Train(BaseModel):
    mode: Literal["train"]
    coach: conint(ge=1, le=20) = 1  # type: ignore[valid-type]


class Flight(BaseModel):
    mode: Literal["flight"]
    cabin: Cabin = Cabin.ECONOMY
    meal: Optional[Meal] = None


class Contact(TypedDict):
    """How to reach the traveller."""

    phone: Annotated[str, StringConstraints(pattern=r"^\+?\d{6,15}$")]
    email: NotRequired[str]


class Seat(NamedTuple):
    row: int
    letter: str = "A"


@dataclasses.dataclass
class Luggage:
    """Bags checked in."""

    bags: int = 0
    weights: list[float] = dataclasses.field(default_factory=list)


class BookingInput(BaseModel):
    """What to book."""

    model_config = ConfigDict(use_attribute_docstrings=True, title="Booking")

    traveller: Annotated[str, Len(1, 80)]
    """The traveller's full name."""
    trip: Union[Train, Flight] = Field(discriminator="mode")
    nights: PositiveInt = 1
    guests: Annotated[int, Gt(0), Field(le=9)] = 1
    code: constr(pattern=r"^[A-Z]{3}$")  # type: ignore[valid-type]
    """The destination's airport code."""
    tags: conlist(str, max_length=5) = Field(default_factory=list)  # type: ignore[valid-type]
    notes: Annotated[list[str], MaxLen(3)] = Field(default_factory=lambda: ["window"])
    homepage: Optional[HttpUrl] = None
    voucher: Optional[SecretStr] = None
    receipt_folder: Path = "/tmp"  # type: ignore[assignment]
    client_ip: Optional[ipaddress.IPv4Address] = None
    contact: Contact
    seat: Optional[Seat] = None
    luggage: Luggage = Field(default_factory=Luggage)
    prices: dict[int, float] = {}
    extras: Json[dict[str, int]] = Field(default="{}", json_schema_extra={"x-note": "JSON text"})
    legacy: bool = Field(default=False, deprecated=True, frozen=True)
