"""Exact positions of nodes inside statements, found only when a diagnostic needs them.

The indexer records exact positions for statements and, for nodes inside them, the
path from the module's root.  Here the file is parsed again and LibCST's
``PositionProvider`` resolved, once per file and only for files that have such a
diagnostic, which is rare in a healthy project.

The file is read again, so it may have changed since it was indexed: it goes through
the same size limit and the same ``check_syntax`` before LibCST sees it, and where
anything is wrong the statement's own position is kept.
"""

from __future__ import annotations

import stat
from collections.abc import Mapping
from pathlib import Path

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from .syntax_check import check_syntax
from .types import Config, Pos

__all__ = ["Locator"]


class Locator:
    """Turns a ``Pos`` into an exact (line, column); caches one parse per file."""

    def __init__(self, root: Path, max_file_bytes: int = Config.max_file_bytes) -> None:
        self.root = root
        self.max_file_bytes = max_file_bytes
        self._files: dict[str, tuple[cst.Module, Mapping[cst.CSTNode, CodeRange]] | None] = {}

    def _load(self, path: str) -> tuple[cst.Module, Mapping[cst.CSTNode, CodeRange]] | None:
        if path not in self._files:
            self._files[path] = self._parse(path)
        return self._files[path]

    def _parse(self, path: str) -> tuple[cst.Module, Mapping[cst.CSTNode, CodeRange]] | None:
        """The file's tree and positions, or ``None`` where it is no longer what was indexed."""
        file = self.root / path
        try:
            if not stat.S_ISREG(file.stat().st_mode):
                return None
            with file.open("rb") as stream:
                source = stream.read(self.max_file_bytes + 1)
        except OSError:
            return None
        if len(source) > self.max_file_bytes or check_syntax(source, path)[0] is None:
            return None  # never hand LibCST what could take all memory or crash the process
        try:
            module = cst.parse_module(source)
            wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
            return module, wrapper.resolve(PositionProvider)
        except (cst.ParserSyntaxError, RecursionError, MemoryError):
            return None

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
