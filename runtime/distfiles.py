"""Read the files of ``dist/``: the manifest into checked values (or a clear reason it cannot be used), any other file without following a link.

The manifest is the only file read when a ``dist/`` is loaded: every bundle and schema
it names is opened later, when it is first needed.  Its shape is
``contracts.manifest``'s models, the ones the compiler wrote it with.  Every file of ``dist/`` is read through
``read_dist_file``, which refuses a symbolic link: skillc never writes one, so a link
there leads to bytes nobody compiled.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

from pydantic import ValidationError

from ..contracts.errors import UserError
from ..contracts.manifest import Manifest, consistency_problems
from ..contracts.spec import MANIFEST, MANIFEST_FORMAT
from .serialize import describe_validation_error

__all__ = [
    "LinkedDistFile",
    "read_dist_file",
    "read_manifest",
]

_RECOMPILE = "run `skill compile` to rebuild dist/"


class LinkedDistFile(OSError):
    """A file of ``dist/`` that is a symbolic link, or inside a linked folder: skillc writes neither."""


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0))


def read_dist_file(dist: Path, relative: str) -> bytes:
    """The bytes of ``dist/relative``, refusing a symbolic link anywhere below ``dist``.

    A link could lead anywhere, so what it points to is never read: ``LinkedDistFile``
    says so.  Any other failure is the ``OSError`` that reading raised.
    """
    path = dist / relative
    try:
        linked = path.resolve() != dist.resolve() / relative
    except RuntimeError:  # a loop of links (Python before 3.13)
        linked = True
    if linked:
        raise LinkedDistFile(errno.ELOOP, "it is a symbolic link, or inside a linked folder", str(path))
    try:
        with open(path, "rb", opener=_no_follow) as file:
            return file.read()
    except OSError as error:
        if error.errno == errno.ELOOP:  # made a link after the check above
            raise LinkedDistFile(errno.ELOOP, "it is a symbolic link", str(path)) from None
        raise


def read_manifest(dist: Path) -> Manifest:
    """Read and check ``dist/manifest.json``; a ``UserError`` says what is wrong with it."""
    path = dist / MANIFEST
    try:
        data = read_dist_file(dist, MANIFEST)
    except LinkedDistFile as error:
        raise UserError(f"{path} is not the manifest skillc wrote: {error.strerror}", hint=_RECOMPILE) from None
    except FileNotFoundError:
        hint = _RECOMPILE if dist.is_dir() else "compile the project first with `skill compile`"
        raise UserError(f"{path} does not exist: {dist} is not a compiled dist/ folder", hint=hint) from None
    except OSError as error:
        raise UserError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as error:
        raise UserError(f"{path} is not valid JSON ({error})", hint=_RECOMPILE) from None
    if not isinstance(document, dict):
        raise UserError(f"{path} is not a manifest: it holds no JSON object", hint=_RECOMPILE)
    found = document.get("format")
    if found != MANIFEST_FORMAT:
        raise UserError(
            f"{path} has manifest format {found!r}; this runtime reads format {MANIFEST_FORMAT}",
            hint="compile the project with the same skillc version that runs it",
        )
    try:
        manifest = Manifest.model_validate(document)
    except ValidationError as error:
        details = "\n".join(f"  {line}" for line in describe_validation_error(error))
        raise UserError(f"{path} is malformed:\n{details}", hint=_RECOMPILE) from None
    problems = consistency_problems(manifest)
    if problems:
        details = "\n".join(f"  {line}" for line in problems)
        raise UserError(f"{path} is inconsistent:\n{details}", hint=_RECOMPILE)
    return manifest
