"""What each tool puts into ``dist/``: its folder's files and its manifest entry, made from its artifacts.

A watch keeps one ``ToolOutputs`` for all its compiles (``CompileSession.outputs``): after
one change, only the tools whose definition or artifacts are new objects have theirs
made again; the others' are the very objects the last compile wrote.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from ..contracts.settings import CLIENT
from .dist_files import EmittedTool, ToolFiles
from .manifest_reuse import manifest_entry
from .manifest_text import tool_entry_json
from .types import ToolInfo

__all__ = ["ToolOutput", "ToolOutputs"]


def _tool_entry(tool: EmittedTool) -> str:
    """The tool's manifest entry: as its artifacts were made with it, else rendered now."""
    files = tool.files
    if files.manifest_json:
        return files.manifest_json
    return tool_entry_json(
        tool.info, files.archive, files.entry_module, files.requirements, files.output_schema is not None
    )


def _tool_folder(tool: EmittedTool) -> dict[str, bytes]:
    """The files of the tool's folder in ``dist/``, by name."""
    schemas = tool.files
    files: dict[str, bytes] = {}
    if not tool.info.settings[CLIENT]:
        files["bundle.zip"] = schemas.archive
    files["input.schema.json"] = (schemas.input_json + "\n").encode()
    if schemas.output_json is not None:
        files["output.schema.json"] = (schemas.output_json + "\n").encode()
    files["tool.json"] = schemas.definition
    return files


class ToolOutput(NamedTuple):
    """What one tool puts into ``dist/``, as made from its definition ``info`` and artifacts ``files``."""

    info: ToolInfo
    files: ToolFiles
    #: Its folder in ``dist/``, and the files there by name (read only: a watch's compiles share them).
    folder: str
    contents: Mapping[str, bytes]
    #: Its manifest entry, placed (``manifest_reuse.manifest_entry``).
    entry: str


class ToolOutputs:
    """Makes each tool's ``ToolOutput``, keeping it for as long as the tool's definition and
    artifacts are the very same objects (and forgetting the tools a call no longer has)."""

    def __init__(self) -> None:
        self._kept: dict[str, ToolOutput] = {}

    def __call__(self, tools: Sequence[EmittedTool]) -> list[ToolOutput]:
        known, self._kept = self._kept, {}
        made = []
        for tool in tools:
            output = known.get(tool.info.name)
            if output is None or output.info is not tool.info or output.files is not tool.files:
                output = ToolOutput(
                    tool.info,
                    tool.files,
                    f"tools/{tool.info.name}",
                    _tool_folder(tool),
                    manifest_entry(_tool_entry(tool)),
                )
            self._kept[tool.info.name] = output
            made.append(output)
        return made
