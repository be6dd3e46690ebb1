"""The hints are not evaluated when the def runs: Node is defined further down."""

from __future__ import annotations

from pydantic import BaseModel

from skillc import ToolContext, tool


@tool
def depth(tree: Node, *, ctx: ToolContext) -> int:
    """How deep a tree goes."""
    return tree.depth()


class Node(BaseModel):
    value: int
    children: list[Node] = []

    def depth(self) -> int:
        return 1 + max((child.depth() for child in self.children), default=0)
