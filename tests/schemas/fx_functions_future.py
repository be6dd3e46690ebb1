"""A function-form tool in a module with postponed annotations."""

from __future__ import annotations

from typing import Optional

from skillc import ToolContext, tool

from fx_nested import Node


@tool
def walk_tree(node: Node, depth: Optional[int] = None, ctx: ToolContext | None = None) -> int:
    """Walk a tree.

    Args:
        node: Where to start.
        depth: How deep.
    """
    return 0
