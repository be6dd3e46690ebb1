"""Fields and config along the inheritance chain, in pydantic's order."""

from typing import Optional

from pydantic import BaseModel, ConfigDict, Field


class Base(BaseModel):
    """The base."""

    model_config = ConfigDict(title="BaseTitle", extra="forbid")

    id: int
    name: str = "base"
    note: Optional[str] = None


class Child(Base):
    age: int = 0
    name: str = "child"


class Grandchild(Child):
    """A grandchild, with its own docstring."""

    extra_field: bool = True


class Redeclared(Base):
    name: str
    id: int = Field(default=1, ge=0)


class X(BaseModel):
    x: int = 0
    shared: str = "x"


class Y(BaseModel):
    y: int = 0
    shared: int = 1


class XY(X, Y):
    z: int = 0


class YX(Y, X):
    pass


class Open(BaseModel, extra="allow"):
    a: int


class StillOpen(Open):
    b: int = 2


class Closed(Open):
    model_config = ConfigDict(extra="forbid", title="Closed!")


class KeywordTitle(BaseModel, title="Titled by keyword"):
    a: int = 1
