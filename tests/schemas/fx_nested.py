"""Nested, shared and recursive models, with quoted forward references."""

from typing import Optional

from pydantic import BaseModel, Field


class Address(BaseModel):
    """A postal address."""

    street: str
    city: str = "Paris"


class Person(BaseModel):
    name: str
    home: Address
    work: Optional[Address] = None
    others: list[Address] = []


class Company(BaseModel):
    boss: Person
    staff: list[Person]
    office: Address = {"street": "Main St", "city": "Lyon"}
    by_name: dict[str, Person] = {}


class Node(BaseModel):
    value: int = 0
    children: list["Node"] = []
    parent: Optional["Node"] = None


class Tree(BaseModel):
    root: Node
    size: int = 1


class Ping(BaseModel):
    pong: Optional["Pong"] = None


class Pong(BaseModel):
    ping: Optional[Ping] = None
    count: int = 0


class Game(BaseModel):
    first: Ping
    second: "Pong"


class Described(BaseModel):
    home: Address = Field(description="Where they live.")
    spare: Optional[Address] = Field(default=None, title="Spare address")
    nodes: list[Node] = Field(default_factory=list, description="All nodes.")


class Wrapper(BaseModel):
    inner: "Inner"


class Inner(BaseModel):
    text: str = "x"
