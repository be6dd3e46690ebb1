"""Files of the project's folder outside ``src`` that path literals name: looked up, and looked up again.

The snapshot lists ``src`` only (the project's folder may hold a virtual environment), so
``working_folder_check`` asks about each such path once, through ``RootFiles``; the link and
the report record the answers, and ``same_root_files`` tells whether they still hold before
either is reused (and before a watch waits on).  A leaf: the start-up path of every command
imports it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["RootFiles", "same_root_files"]


class RootFiles:
    """Whether paths relative to the project's folder name files, each looked up once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        #: Each path looked up (relative to ``root``, normalized) -> whether it was a file.
        self.seen: dict[str, bool] = {}

    def is_file(self, relative: str) -> bool:
        """Whether ``relative`` names a file (through symlinks) in the project's folder now."""
        found = self.seen.get(relative)
        if found is None:
            # os.path.isfile: False (not an exception) for a name too long or otherwise unusable.
            found = self.seen[relative] = os.path.isfile(self.root / relative)
        return found


def same_root_files(root: Path, seen: Iterable[tuple[str, bool]]) -> bool:
    """Whether each path ``RootFiles.seen`` recorded still is (or is not) a file, as it was."""
    return all(os.path.isfile(root / relative) == was for relative, was in seen)
