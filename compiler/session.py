"""What a process that compiles one project again and again keeps between compiles.

``skill compile --watch`` compiles, waits for a change, and compiles again.  Its
``CompileSession`` holds what the last compile read and found: the configuration, the
snapshot of the sources (with the identity of every folder walked and file read), the
last link's record, and how it left ``dist/`` and the folder it retired.  So the watch
finds a change by a stat of each of those paths, and the next compile reads again only
the files that changed (``source_tree``), relinks only when a summary changed
(``link_cache``), compares what it writes with what it wrote rather than reading
``dist/`` back (``dist_record``, ``spare_survey``), and takes everything else from
memory.  The caches on disk are still kept up to date: what a compile after the watch
finds there is what it would have found after a compile of its own.

Nothing here decides a result: every stage gives what it gives from scratch.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .root_files import same_root_files
from .source_tree import Identity, Snapshot, identity
from .types import Config

if TYPE_CHECKING:
    from .dist_record import DistRecord
    from .link_cache import LinkRecord
    from .tool_outputs import ToolOutputs

__all__ = ["CompileSession"]


@dataclass
class CompileSession:
    """The state one watching process carries from one compile to the next."""

    #: The configuration the last compile read, and the identity of its pyproject.toml then.
    config: Config | None = None
    pyproject: Identity | None = None
    #: The sources the last compile read (``None`` until one did).
    snapshot: Snapshot | None = None
    link: LinkRecord | None = None
    #: What the last compile wrote into dist/ and how it left it (``dist_record``); ``None``
    #: once anything may have changed it, a fill of the next one included.
    dist: DistRecord | None = None
    #: How the last compile left the dist/ it retired, now parked in .skill/spare/ (``spare_survey``).
    spare: DistRecord | None = None
    #: What each tool put into dist/ (``tool_outputs``), made again only for a tool that changed.
    outputs: ToolOutputs | None = None
    #: The pyproject.toml the last compile found, and its identity before it was read
    #: (``None`` when it found none): what a compile that failed on it had read.
    attempted: tuple[Path, Identity | None] | None = None

    def previous_snapshot(self, config: Config) -> Snapshot | None:
        """The last snapshot, if it was read under this very configuration."""
        return self.snapshot if self.config == config else None

    def remember(self, config: Config, pyproject: Identity | None, snapshot: Snapshot) -> None:
        self.config, self.pyproject, self.snapshot = config, pyproject, snapshot

    def changed(self) -> bool:
        """Whether anything the last compile read may have changed: its pyproject.toml, a folder
        it walked (a file added, removed or renamed), a file it read, or whether a path outside
        ``src`` that a path literal names is a file (``LinkRecord.root_files``).  True before any compile."""
        if self.config is None or self.snapshot is None:
            return True
        if identity(self.config.pyproject) != self.pyproject or self.snapshot.changed_since():
            return True
        return self.link is not None and not same_root_files(self.config.root, self.link.root_files)

    def prepare(self) -> None:
        """Make now, while the watch waits, what the next compile makes first of what this one
        left: the statuses by name of the dist/ it wrote (``DistRecord.statuses``)."""
        if self.dist is not None:
            self.dist.statuses(self.dist.fingerprint())

    def inputs(self) -> frozenset[str]:
        """Every path the last compile read: its pyproject.toml, each folder walked and each file read."""
        if self.config is None or self.snapshot is None:
            return frozenset()
        return frozenset({str(self.config.pyproject), *self.snapshot.identities})

    def folders(self) -> list[Path]:
        """The folders a change of what ``changed`` looks at shows in: the project's, and each one walked."""
        if self.config is None or self.snapshot is None:
            return []
        walked = self.snapshot.tree.folders if self.snapshot.tree is not None else {}
        return [self.config.pyproject.parent, *map(Path, walked)]
