"""Models of the same name from different modules: pydantic's $defs names for them."""

from pydantic import BaseModel

from . import a, b, c
from .a import Item


class Different(BaseModel):
    first: a.Item
    second: b.Item


class Identical(BaseModel):
    first: Item
    second: c.Item


class Item2(BaseModel):
    own: a.Item
    items: list[b.Item] = []


class Outer(BaseModel):
    item: Item
    different: Different
