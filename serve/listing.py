"""What ``tools/list`` says of each compiled tool: its MCP definition, built from ``dist/`` alone.

Nothing here imports a tool's code.  Each definition is read once, when the server starts:
the name and description from the manifest, ``inputSchema`` from ``input.schema.json``
(equal to pydantic's schema of the input model), ``outputSchema`` from
``output.schema.json`` where the tool has an output model, and ``annotations`` from the
annotation rows of the settings table (``contracts.settings.ANNOTATIONS``).

An annotation the author left unset (``None``) is not sent, so each host applies the
protocol's default.  A ``needs_approval`` tool is always sent with ``destructiveHint: true``:
hosts decide whether to ask a person from the annotations, and this is how such a tool
gets asked about.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_types import Tool, ToolAnnotations

from ..contracts.errors import UserError
from ..contracts.manifest import ToolEntry
from ..contracts.settings import DESTRUCTIVE, IDEMPOTENT, NEEDS_APPROVAL, OPEN_WORLD, READ_ONLY, TITLE
from ..runtime.distfiles import read_dist_file

__all__ = ["ToolListing", "annotations_of", "read_listings"]


@dataclass(frozen=True)
class ToolListing:
    """One tool as ``tools/list`` sends it, and whether its results carry ``structuredContent``."""

    tool: Tool
    #: The tool has an output model whose schema is an object: a successful result is sent
    #: as ``structuredContent`` too (hosts check it against ``outputSchema``).
    structured: bool


def annotations_of(entry: ToolEntry) -> ToolAnnotations | None:
    """The MCP annotations of a tool, from its settings; ``None`` when it says nothing."""
    settings = entry.settings
    destructive = settings[DESTRUCTIVE]
    if settings[NEEDS_APPROVAL] is not False:
        destructive = True  # a person must be asked: the host learns it from this hint
    annotations = ToolAnnotations(
        title=settings[TITLE],
        read_only_hint=settings[READ_ONLY],
        destructive_hint=destructive,
        idempotent_hint=settings[IDEMPOTENT],
        open_world_hint=settings[OPEN_WORLD],
    )
    return annotations if annotations.model_dump(exclude_none=True) else None


def _schema(dist: Path, relative: str, name: str) -> dict[str, Any]:
    """A JSON Schema file of ``dist/``, read and checked to be an object; a ``UserError`` otherwise."""
    try:
        document = json.loads(read_dist_file(dist, relative))
    except (OSError, ValueError) as error:
        raise UserError(
            f"cannot read {relative} of tool {name!r} ({error})", hint="recompile with `skill compile`"
        ) from None
    if not isinstance(document, dict):
        raise UserError(f"{relative} of tool {name!r} holds no JSON object", hint="recompile with `skill compile`")
    return document


def read_listings(dist: Path, entries: Mapping[str, ToolEntry]) -> dict[str, ToolListing]:
    """Every tool's MCP definition, by name, in manifest order, read from ``dist/`` once."""
    listings: dict[str, ToolListing] = {}
    for name, entry in entries.items():
        output = _schema(dist, entry.schemas.output, name) if entry.schemas.output else None
        # Through 2025-11-25 an outputSchema must be an object at its root; a model always is.
        structured = output is not None and output.get("type") == "object"
        title = entry.settings[TITLE]
        tool = Tool(
            name=name,
            title=title,
            description=entry.description or None,
            input_schema=_schema(dist, entry.schemas.input, name),
            output_schema=output if structured else None,
            annotations=annotations_of(entry),
        )
        listings[name] = ToolListing(tool, structured)
    return listings
