"""Manifest text rendered by an earlier compile, reused where only a digest changed.

The commonest edit changes a tool's code and nothing it declares; then its manifest entry
differs from the last one only in its archive's ``sha256``, and the manifest without its
tools only in ``source_digest`` and in the ``sha256`` of the skills' condition archives (a
condition's module often imports the tools).  Rendering hundreds of entries again would
be work proportional to the project for an edit of one file.  So:

- a tool's entry is kept (with its artifacts) beside ``entry_inputs``, a digest of all it
  was rendered from but the archive; when the digest is the same, ``retargeted`` gives the
  old text with the new archive's digest written in, which is the text ``manifest_text``
  renders for it (a ``sha256`` is 64 lowercase hex digits, valid for any archive, and
  appears in the entry once);
- the manifest without its tools is kept as a ``Skeleton``, with ``skeleton_key``, a
  digest of all it was made from but those digests; ``reused_skeleton`` gives its
  document with the new ones (the sources' digest is a string, kept as it is).

Both digests include ``requirements.environment_key``, so a text made by another skillc is
never reused.  Whatever does not match is rendered again (``manifest_text``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from json.encoder import encode_basestring
from typing import Any, NamedTuple

from .json_text import indented_json
from .types import AgentInfo, Diagnostic, SkillInfo

__all__ = [
    "Skeleton",
    "entry_inputs",
    "manifest_bytes",
    "manifest_entry",
    "retargeted",
    "reused_skeleton",
    "skeleton_key",
]

#: Where the tool entries sit in the manifest: inside its ``tools`` list, two levels deep.
_TOOL_DEPTH = "\n    "


class Skeleton(NamedTuple):
    """The manifest's document without its tools, and ``skeleton_key`` of what it was made from."""

    key: str
    document: Mapping[str, Any]


def _digest(parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def entry_inputs(
    tool_digest: str, entry_module: str, requirements: tuple[str, ...], has_output: bool, environment: str
) -> str:
    """A digest of everything a tool's manifest entry is rendered from except its archive.

    ``tool_digest`` is ``artifacts.tool_digest`` of the tool's ``ToolInfo``; the rest are the
    other arguments of ``manifest_text.tool_entry``, and the environment it ran in.
    """
    return _digest((tool_digest, entry_module, requirements, has_output, environment))


def _sha256_field(archive: bytes) -> str:
    return f'"sha256": "{hashlib.sha256(archive).hexdigest()}"'


def retargeted(entry_json: str, old_archive: bytes, new_archive: bytes) -> str | None:
    """The entry rendered for ``old_archive``, made the entry for ``new_archive``.

    A client-side tool's entry names no archive (``sha256`` is null): it is returned as it
    is.  ``None`` when the old digest is not found exactly once, so that the text could
    not be proven to be the models' (the caller renders it with them).
    """
    if not old_archive and not new_archive:
        return entry_json if '"sha256": null' in entry_json else None
    old = _sha256_field(old_archive)
    if not old_archive or not new_archive or entry_json.count(old) != 1:
        return None
    return entry_json.replace(old, _sha256_field(new_archive))


def skeleton_key(
    agent: AgentInfo,
    skills: Sequence[tuple[SkillInfo, bytes | None, str | None]],
    warnings: Sequence[Diagnostic],
    environment: str,
) -> str:
    """A digest of everything ``manifest_text.manifest_skeleton`` makes the manifest from, but
    the sources' digest and the bytes of the condition archives (whether each skill has one counts)."""
    conditions = [(skill, archive is not None, entry) for skill, archive, entry in skills]
    return _digest((agent, conditions, tuple(warnings), environment))


def reused_skeleton(
    known: Skeleton | None, key: str, digest: str, conditions: Sequence[bytes | None]
) -> dict[str, Any] | None:
    """``known``'s document for the sources of ``digest`` and these condition archives (one per
    skill, in order; ``None`` for a skill without one), if it was made from what ``key`` says."""
    if known is None or known.key != key:
        return None
    skills = known.document.get("skills")
    if not isinstance(skills, list) or len(skills) != len(conditions):
        return None
    retold = []
    for entry, archive in zip(skills, conditions, strict=True):
        condition = entry.get("condition") if isinstance(entry, Mapping) else None
        if archive is not None:
            if not isinstance(condition, Mapping) or "sha256" not in condition:
                return None
            entry = {**entry, "condition": {**condition, "sha256": hashlib.sha256(archive).hexdigest()}}
        elif condition is not None:
            return None
        retold.append(entry)
    return {**known.document, "source_digest": digest, "skills": retold}


def manifest_entry(text: str) -> str:
    """A tool's manifest entry (``manifest_text.tool_entry_json``) placed for ``manifest_bytes``:
    indented as it stands in the manifest, inside its ``tools`` list.

    Text nests by indenting each of its lines: JSON text has a line break only between
    its parts (one inside a string is written ``\\n``).
    """
    return text.replace("\n", _TOOL_DEPTH)


def manifest_bytes(skeleton: Mapping[str, object], tool_entries: Sequence[str]) -> bytes:
    """The manifest file: the ``skeleton`` document with ``tools`` given as each entry's text,
    placed (``manifest_entry``)."""
    parts = []
    for key in sorted(skeleton):
        if key == "tools" and tool_entries:
            text = "[" + _TOOL_DEPTH + ("," + _TOOL_DEPTH).join(tool_entries) + "\n  ]"
        else:
            text = indented_json(skeleton[key], sort_keys=True).replace("\n", "\n  ")
        parts.append(f"{encode_basestring(key)}: {text}")
    return ("{\n  " + ",\n  ".join(parts) + "\n}\n").encode()
