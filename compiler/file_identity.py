"""What a file is, short of its content: its identity, and when it cannot be trusted.

A process that compiles again and again (``skill compile --watch``) takes a file whose
identity is the one it had when it was read to hold what was read then; ``RACY_NS`` says
when a file changed too recently for that.  A leaf: no other compiler module.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["RACY_NS", "Identity", "identity", "identity_of"]


#: A file's identity: inode, size, and modification and change times in nanoseconds.  No
#: write, rename or copy keeps all four, except within one tick of the file system's clock.
Identity = tuple[int, int, int, int]
#: A file changed less than this long before it was read may change again within the same
#: tick of the file system's clock (two seconds on FAT) and keep its identity: such a file
#: is read again by the next compile rather than trusted by its identity.
RACY_NS = 3_000_000_000


def identity(path: str | Path) -> Identity | None:
    """The identity of the file or folder at ``path`` (through symbolic links), or ``None``."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return identity_of(info)


def identity_of(info: os.stat_result) -> Identity:
    """The identity a ``stat`` (through symbolic links) found."""
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
