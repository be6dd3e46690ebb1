"""Annotations as strings: what a static reader sees is the same."""

from __future__ import annotations

from typing import Optional, Union

from pydantic import BaseModel, Field


class Tree(BaseModel):
    name: str
    branches: list[Tree] = []
    best: Optional[Leaf] = None
    either: Union[Leaf, Tree, None] = None
    count: int | None = Field(default=None, ge=0)


class Leaf(BaseModel):
    colour: str = "green"
    tree: "Tree | None" = None
