"""Reuse the last link as a whole when nothing it read has changed.

Linking (``link.link_project``) is a function of four things only: the module summaries
(``ModuleIndex``), the modules that exist but did not index, the configuration (and the
names of the project's files), and whether the few paths outside ``src`` that path literals
name are files (``LinkResult.root_files``, looked up again); it never reads a source file.  So when each summary equals the one the last link read (an
edit inside a function body, of a comment, of anything the index does not keep), the
last link's result is this one's, exactly: the agent, skills and tools, every finding in
its order, the misnamed tools, the modules of each closure the bundles were planned with
and each tool's digest.

The record names the content key (``source_tree``) of each module's file.  A file with
the same key has the same summary; the summary of a changed file is compared with the one
the index cache holds for its recorded key (``index_cache.LazyModules.cached``), which the
index loaded to drop it: no summary is digested or kept twice.  Diagnostics are not cached
here: the reporter positions the findings again in every compile, in the files as they
are now.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from ..contracts.settings import SettingValues
from .cache import load_cache, write_cache
from .resolve import Linker
from .root_files import same_root_files
from .sources import ProjectIndex
from .types import (
    AgentInfo,
    Config,
    Finding,
    ModelRef,
    Pos,
    SkillInfo,
    Source,
    ToolInfo,
)

__all__ = [
    "LinkRecord",
    "LinkResult",
    "config_digest",
    "load_link",
    "record_link",
    "reused_link",
    "save_link",
]

_KEY = "last"


@dataclass
class LinkResult:
    """What linking found: the agent, its skills and tools, and the findings.

    Defined here, below ``link``, so that a compile that reuses the last link never
    imports the linking stages.
    """

    agent: AgentInfo | None
    skills: list[SkillInfo]
    tools: list[ToolInfo]
    findings: list[Finding]
    #: The linker that found them, for the stages that resolve more names (schemas).
    linker: Linker | None = None
    #: Tools refused only for their name (invalid, reserved, or another tool's): not
    #: compiled, but their schemas are checked, so one run reports both kinds of problem.
    misnamed: list[ToolInfo] = field(default_factory=list)
    #: The paths outside ``src`` that path literals named, each with whether it was a file
    #: (``working_folder_check.RootFiles``): the link holds only while each still is as it was.
    root_files: tuple[tuple[str, bool], ...] = ()


class LinkRecord(NamedTuple):
    """One link's result, and what it was computed from."""

    #: ``config_digest`` of the configuration it read.
    config: str
    failed: frozenset[str]
    #: Each module it read: name -> the content key of its file.
    modules: dict[str, str]
    agent: AgentInfo | None
    skills: tuple[SkillInfo, ...]
    tools: tuple[ToolInfo, ...]
    findings: tuple[Finding, ...]
    misnamed: tuple[ToolInfo, ...]
    #: The modules of the closure of each start module (``closure.closure_modules``).
    closures: dict[str, tuple[str, ...]]
    #: ``artifacts.tool_digest`` of each of ``tools``, in their order.
    tool_digests: tuple[str | None, ...]
    #: ``LinkResult.root_files``.
    root_files: tuple[tuple[str, bool], ...]


#: What the link cache may hold (``cache.load_cache`` loads nothing else).
_TYPES = (
    AgentInfo,
    Finding,
    LinkRecord,
    ModelRef,
    Pos,
    SettingValues,
    SkillInfo,
    Source,
    ToolInfo,
)


def config_digest(config: Config, pyproject: bytes, files: Collection[str] = ()) -> str:
    """A digest of everything the linker reads besides the summaries: the configuration, and the
    names of the project's files (``link_project``'s ``files``)."""
    names = "\0".join(sorted(files)).encode()
    return hashlib.sha256(pyproject + b"\0" + repr(config).encode() + b"\0" + names).hexdigest()


def _same_summaries(last: LinkRecord, index: ProjectIndex) -> bool:
    """Whether every module's summary is the one ``last`` was linked from."""
    if last.modules.keys() != index.keys.keys():
        return False
    for name, key in index.keys.items():
        recorded = last.modules[name]
        if recorded != key and index.modules.cached(recorded) != index.modules[name]:
            return False
    return True


def load_link(path: Path) -> LinkRecord | None:
    """The last link's record, if the cache holds one."""
    entry = load_cache(path, _TYPES).get(_KEY)
    return entry if isinstance(entry, LinkRecord) else None


def save_link(path: Path, record: LinkRecord) -> None:
    write_cache(path, {_KEY: record})


def reused_link(last: LinkRecord | None, index: ProjectIndex, config: Config, config_key: str) -> LinkResult | None:
    """The last link's result when it was computed from exactly these inputs, else ``None``.

    The result's linker is a fresh one over ``index.modules``, holding the recorded
    findings as already reported, as the linker that made them did.
    """
    if last is None or last.config != config_key or last.failed != index.failed or not _same_summaries(last, index):
        return None
    if not same_root_files(config.root, last.root_files):
        return None
    linker = Linker(index.modules, config, index.failed, index.paths)
    linker.adopt(last.findings)
    linker.closure_names.update(last.closures)
    for tool, digest in zip(last.tools, last.tool_digests, strict=True):
        if digest is not None:
            linker.tool_digests[(tool.name, tool.module, tool.qualname)] = (tool, digest)
    return LinkResult(
        last.agent, list(last.skills), list(last.tools), linker.findings, linker, list(last.misnamed), last.root_files
    )


def record_link(linked: LinkResult, index: ProjectIndex, config_key: str) -> LinkRecord:
    """The record of a link: its findings are its own, not what building the artifacts added;
    its closures all the artifacts asked for (so it is made after they were built)."""
    assert linked.linker is not None
    return LinkRecord(
        config_key,
        index.failed,
        dict(index.keys),
        linked.agent,
        tuple(linked.skills),
        tuple(linked.tools),
        tuple(linked.findings),
        tuple(linked.misnamed),
        dict(linked.linker.closure_names),
        tuple(_digest_of(linked.linker, tool) for tool in linked.tools),
        linked.root_files,
    )


def _digest_of(linker: Linker, tool: ToolInfo) -> str | None:
    known = linker.tool_digests.get((tool.name, tool.module, tool.qualname))
    return known[1] if known is not None and known[0] is tool else None
