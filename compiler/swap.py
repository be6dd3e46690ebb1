"""Swapping the staging folder in for ``dist/``, and what becomes of the ``dist/`` it replaces.

The swap is one atomic step (Linux ``renameat2``; elsewhere two renames, which
``output.remove_leftovers`` undoes if a compile dies between them).  The retired ``dist/``
is parked in ``.skill/spare/`` for the next compile to fill again (see ``staging``); where
it cannot be, it is deleted: at once if it shares files with the new ``dist/``, else by a
detached process after the command has answered.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from .output import retired_prefix
from .staging import RECYCLING, Staged, real_folder, throw_away

__all__ = ["TRASH_DIR", "Swapped", "discard_staging", "swap_in"]

#: Where a replaced ``dist/`` waits to be deleted, inside the project.
TRASH_DIR = Path(".skill") / "trash"


class Swapped(NamedTuple):
    """What became of the ``dist/`` a swap replaced."""

    #: It was parked as the spare folder.
    parked: bool
    #: The new ``dist/``'s files are still as the fill left them (``staged.record``): not if
    #: deleting the retired folder took links from them.
    untouched: bool


def swap_in(staged: Staged, out: Path, spare: Path, trash: Path) -> Swapped:
    """Put the staging folder in the place of ``out`` in one atomic step, and keep the one it replaces.

    The retired folder is parked as ``spare``; failing that it is deleted now if it shares
    files with the new ``dist/`` (deleting it later would change their times after the
    compile recorded them), else moved to ``trash`` and deleted after the command answered.
    """
    if not out.exists():
        staged.path.rename(out)
        return Swapped(parked=False, untouched=True)
    if _exchange(staged.path, out):
        retired = staged.path  # it now holds the previous dist/
    else:
        retired = Path(tempfile.mkdtemp(prefix=retired_prefix(out), dir=out.parent))
        retired.rmdir()
        out.rename(retired)
        staged.path.rename(out)
    if _park(retired, spare):
        return Swapped(parked=True, untouched=True)
    if staged.shared:
        shutil.rmtree(retired, ignore_errors=True)
        return Swapped(parked=False, untouched=False)
    _discard(retired, trash)
    return Swapped(parked=False, untouched=True)


def discard_staging(staged: Staged, spare: Path) -> None:
    """Give up a staging folder that will not be swapped in: park it for the next compile, or delete it."""
    if not _park(staged.path, spare):
        throw_away(staged.path)


def _park(folder: Path, spare: Path) -> bool:
    """Move ``folder`` to ``spare``, if ``.skill/`` is a real folder on its file system and the slot is free."""
    if not RECYCLING:
        return False
    try:
        for parent in (spare.parent.parent, spare.parent):  # .skill/ and .skill/spare/
            if not os.path.lexists(parent):
                os.mkdir(parent)
            if not real_folder(parent):
                return False  # a linked .skill/ is neither written nor emptied
        os.rename(folder, spare)  # fails if the slot holds anything, or is another file system
    except OSError:
        return False
    return True


_renameat2: Callable[..., int] | None = None


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths in one atomic step (Linux ``renameat2``); ``False`` if unavailable."""
    global _renameat2
    if _renameat2 is None:
        import ctypes  # a C call: only replacing an existing dist/ needs it

        try:
            _renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
        except (AttributeError, OSError):
            return False
    at_fdcwd, rename_exchange = -100, 2
    result = _renameat2(at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange)
    return bool(result == 0)


def _discard(folder: Path, trash: Path) -> None:
    """Delete a retired ``dist/`` without making the compile wait for it.

    Removing hundreds of folders costs as much as writing them; a detached process
    does it after the command has answered.  The folder first moves into ``trash`` (in
    ``.skill/``), so that nothing half-deleted is ever left beside ``dist/``.
    """
    try:
        if trash.is_symlink() or trash.parent.is_symlink():
            raise OSError("the trash folder is a symbolic link")  # never write or delete where a link points
        trash.mkdir(parents=True, exist_ok=True)
        target = Path(tempfile.mkdtemp(prefix="dist-", dir=trash))
        target.rmdir()
        folder.rename(target)
    except OSError:  # another file system, or no usable trash: delete it here and now
        shutil.rmtree(folder, ignore_errors=True)
        return
    deleter = subprocess.Popen(
        [sys.executable, "-c", "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)", str(target)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    # Reap it when it ends, should this process live that long (watch mode, a test run).
    threading.Thread(target=deleter.wait, daemon=True).start()
