"""A quoted hint names a model defined further down."""

from pydantic import BaseModel

from skillc import tool


@tool
def total(leaves: "list[Leaf]") -> int:
    """The sum of the leaves."""
    return sum(leaf.value for leaf in leaves)


class Leaf(BaseModel):
    value: int
