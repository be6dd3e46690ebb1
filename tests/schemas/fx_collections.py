"""Collections of every spelling, their constraints and defaults."""

from collections.abc import Sequence as AbcSequence
from typing import Any, Dict, FrozenSet, List, Sequence, Set, Tuple

from pydantic import BaseModel, Field


class Item(BaseModel):
    sku: str


class Lists(BaseModel):
    a: list[int]
    b: List[str]
    c: Sequence[float]
    d: AbcSequence[bool]
    e: list
    f: List
    g: list[Item] = []
    h: list[list[int]] = [[1, 2], [3]]
    i: list[Any] = []
    j: list[int] = Field(default=(1, 2), min_length=1, max_length=5)
    k: Sequence[int] = Field(default_factory=list, min_length=0)


class Sets(BaseModel):
    a: set[int]
    b: Set[str] = {"b", "a", "c"}
    c: frozenset[int] = frozenset()
    d: FrozenSet[str]
    e: set
    f: set[int] = {3, 1, 2}
    g: set[str] = Field(default_factory=set, min_length=1, max_length=3)
    h: set[bool] = {True}


class Tuples(BaseModel):
    a: tuple[int, ...]
    b: Tuple[str, ...] = ()
    c: tuple[int, str]
    d: Tuple[int, str, bool] = (1, "a", True)
    e: tuple[()] = ()
    f: Tuple[()]
    g: tuple
    h: tuple[Item, ...] = ()
    i: tuple[int, ...] = Field(default=(1,), min_length=1)
    j: tuple[int, int] = Field(max_length=5)
    k: tuple[tuple[int, int], ...] = ((1, 2),)


class Dicts(BaseModel):
    a: dict[str, int]
    b: Dict[str, List[int]]
    c: dict[str, Any] = {}
    d: dict
    e: Dict = {"k": [1, {"n": None}]}
    f: dict[str, Item] = {}
    g: dict[str, dict[str, float]] = Field(default_factory=dict, min_length=1, max_length=4)
    h: dict[str, list[Item]] = {"x": []}
