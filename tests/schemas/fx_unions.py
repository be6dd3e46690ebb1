"""Optional, unions and Literal."""

from enum import Enum
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, Field


class Pet(BaseModel):
    name: str


class Car(BaseModel):
    wheels: int = 4


class Mood(str, Enum):
    HAPPY = "happy"
    SAD = "sad"


MaybeInt = Optional[int]
Number = Union[int, float]


class Optionals(BaseModel):
    a: Optional[int]
    b: Optional[int] = None
    c: int | None = None
    d: None | str = "x"
    e: Union[None, int] = 3
    f: Optional[Any] = None
    g: Optional[Pet] = None
    h: Pet | None
    i: MaybeInt = None
    j: Optional[MaybeInt] = None
    k: Optional[Optional[str]] = None
    m: Optional[None] = None


class Unions(BaseModel):
    a: Union[int, str]
    b: Union[int, str, None] = None
    c: int | str | bool
    d: Union[Pet, Car]
    e: Union[Pet, Car, None] = None
    f: Union[int, Union[str, bytes]]
    g: Union[int, int]
    h: Union[Pet, Pet]
    i: Number = 1
    j: Union[Number, None] = None
    k: Union[list[int], dict[str, int]]
    m: Union[Annotated[Pet, Field(description="one")], Annotated[Pet, Field(description="one")]]
    n: Union[int, Any]
    o: Union[int, float] = 1.5


class Literals(BaseModel):
    a: Literal["x"]
    b: Literal["x", "y"] = "y"
    c: Literal[1, 2, 3]
    d: Literal[True]
    e: Literal[1, "a", None]
    f: Literal[None] = None
    g: Optional[Literal["on", "off"]] = None
    h: Literal[Mood.HAPPY] = Mood.HAPPY
    i: Literal[Mood.HAPPY, Mood.SAD]
    j: Literal[1, True]
    k: Literal[-1, 0]
    m: Union[Literal["a"], Literal["b"]]
    n: Literal[b"raw"]
    o: Literal[False, True] = False
    p: Literal["happy", Mood.HAPPY]


class Equalish(BaseModel):
    """1 == True, but Literal[1] and Literal[True] are distinct union members."""

    a: Union[Literal[1], Literal[True]]
    b: Optional[Union[Literal[0], Literal[False], Literal[0]]] = None
