"""Discriminated unions of models, by Literal fields."""

import enum
from typing import Annotated, Literal, Optional, Union

from pydantic import BaseModel, Discriminator, Field


class Kind(str, enum.Enum):
    BIRD = "bird"
    FISH = "fish"


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = 9


class Dog(BaseModel):
    kind: Literal["dog", "hound"] = "dog"
    barks: bool = True


class Bird(BaseModel):
    kind: Literal[Kind.BIRD]


class Fish(BaseModel):
    kind: Literal[Kind.FISH, "eel"]


class Numbered(BaseModel):
    code: Literal[1]


class Other(BaseModel):
    code: Literal[2, 3]


class Aliased(BaseModel):
    kind: Literal["a"] = Field(alias="Kind")


class AliasedToo(BaseModel):
    kind: Literal["b"] = Field(alias="Kind")


Pet = Annotated[Union[Cat, Dog], Field(discriminator="kind")]


class Owner(BaseModel):
    pet: Union[Cat, Dog] = Field(discriminator="kind")
    animal: Annotated[Union[Cat, Dog, Bird, Fish], Discriminator("kind")]
    maybe: Optional[Union[Cat, Dog]] = Field(default=None, discriminator="kind", description="Maybe.")
    pets: list[Pet] = []
    alias: Pet
    numbered: Union[Numbered, Other] = Field(discriminator="code")
    aliased: Union[Aliased, AliasedToo] = Field(discriminator="kind")
    cat_first: Union[Dog, Cat] = Field(discriminator="kind")
