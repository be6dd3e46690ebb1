"""The one way the compiler makes a diagnostic: a ``Finding`` in, a ``Diagnostic`` out.

Stages report findings (code, message, where, hint); the reporter gives each the
severity its code has in the registry (``checks``) and its exact position: a position
the indexer could not make exact (``Pos.exact`` false) is found in the source by
``locate``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from .check_table import severity_of
from .types import Config, Diagnostic, Finding, Pos

__all__ = ["Reporter"]


class Reporter:
    """Turns findings into diagnostics: each severity from the registry, each position exact."""

    def __init__(self, root: Path, max_file_bytes: int = Config.max_file_bytes) -> None:
        self.root = root
        self.max_file_bytes = max_file_bytes
        self._locate: Callable[[str, Pos], tuple[int, int]] | None = None

    def position(self, path: str, pos: Pos) -> tuple[int, int]:
        """The exact line and column of ``pos`` in the file at ``path`` (relative to the root)."""
        if pos.exact:
            return pos.line, pos.col
        if self._locate is None:
            from .locate import Locator  # imports libcst: only when a position must be found in the source

            self._locate = Locator(self.root, self.max_file_bytes).position
        return self._locate(path, pos)

    def diagnostic(self, finding: Finding) -> Diagnostic:
        line, col = self.position(finding.path, finding.pos)
        related = tuple((path, *self.position(path, pos), note) for path, pos, note in finding.related)
        return Diagnostic(
            finding.code, severity_of(finding.code), finding.message, finding.path, line, col, finding.hint, related
        )

    def diagnostics(self, findings: Iterable[Finding]) -> list[Diagnostic]:
        return [self.diagnostic(finding) for finding in findings]
