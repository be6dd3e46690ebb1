"""Models whose field types are classes defined in a model's own body (``ShrimpTank.Shrimp``)."""

import enum

from pydantic import BaseModel, Field


class ShrimpTank(BaseModel):
    class Shrimp(BaseModel):
        name: str = Field(max_length=10)

    shrimp: list[Shrimp]
    best: Shrimp | None = None


class Order(BaseModel):
    class Status(str, enum.Enum):
        OPEN = "open"
        DONE = "done"

    status: Status = Status.OPEN
    history: list[Status] = []


class Outer(BaseModel):
    class Inner(BaseModel):
        """An inner model, reached from outside its class as Outer.Inner."""

        value: int

    inner: "Outer.Inner"


class UsesDotted(BaseModel):
    first: Outer.Inner
    outers: list[Outer]


class First(BaseModel):
    class Item(BaseModel):
        a: int

    items: list[Item]


class Second(BaseModel):
    class Item(BaseModel):
        b: str

    items: list[Item]


class SameShortNames(BaseModel):
    first: First
    second: Second


class Item(BaseModel):
    module_level: int


class Shadowed(BaseModel):
    class Item(BaseModel):
        in_the_class: str

    item: Item


class BothItems(BaseModel):
    shadowed: Shadowed
    item: Item


class Deep(BaseModel):
    class Middle(BaseModel):
        class Leaf(BaseModel):
            leaf: int

        leaves: list[Leaf]

    middle: Middle


class Helper(BaseModel):
    class Unused:
        """A class of the body that no field uses: pydantic ignores it."""

    value: int = 0


class Family(BaseModel):
    class Parent(BaseModel):
        surname: str

    class Child(Parent):
        name: str

    children: list[Child]


class Base(BaseModel):
    module_level: int


class BaseBelow(BaseModel):
    class Child(Base):
        """Its base is read where the class statement runs: the module's Base, defined above."""

        own: int

    class Base(BaseModel):
        in_the_class: int

    child: Child
