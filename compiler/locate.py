"""Exact positions of nodes inside statements, found only when a diagnostic needs them.

The indexer records exact positions for statements and, for nodes inside them, the
path from the module's root.  Here the file is parsed again and LibCST's
``PositionProvider`` resolved, once per file and only for files that have such a
diagnostic, which is rare in a healthy project.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from .types import Pos

__all__ = ["Locator"]


class Locator:
    """Turns a ``Pos`` into an exact (line, column); caches one parse per file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: dict[str, tuple[cst.Module, Mapping[cst.CSTNode, CodeRange]] | None] = {}

    def _load(self, path: str) -> tuple[cst.Module, Mapping[cst.CSTNode, CodeRange]] | None:
        if path not in self._files:
            try:
                module = cst.parse_module((self.root / path).read_bytes())
                wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
                self._files[path] = (module, wrapper.resolve(PositionProvider))
            except (OSError, cst.ParserSyntaxError, RecursionError):
                self._files[path] = None  # the file changed under us: keep the statement's position
        return self._files[path]

    def position(self, path: str, pos: Pos) -> tuple[int, int]:
        """The exact (line, column) of the node ``pos`` points at."""
        if pos.exact or not pos.path:
            return pos.line, pos.col
        loaded = self._load(path)
        if loaded is None:
            return pos.line, pos.col
        module, positions = loaded
        node: object = module
        for step in pos.steps():
            try:
                node = node[step] if isinstance(step, int) else getattr(node, step)  # type: ignore[index]
            except (AttributeError, IndexError, TypeError):
                return pos.line, pos.col
        found = positions.get(node) if isinstance(node, cst.CSTNode) else None
        if found is None:
            return pos.line, pos.col
        return found.start.line, found.start.column
