"""Write ``dist/``: every tool's bundle, schemas and definition, and the manifest.

Everything is written into a folder beside ``dist/`` (``staging``: a new one, or the
``dist/`` the last compile replaced, recycled) and swapped in only when all of it
succeeded (``swap``), so a compile that fails or is killed leaves the previous ``dist/``
as it was; tools that disappeared from the project disappear from ``dist/`` with it.
The output depends only on the sources: JSON in a fixed key order, archives with fixed
dates, no timestamps anywhere.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..contracts.spec import MANIFEST, MANIFEST_FORMAT
from .dist_files import EmittedSkill, EmittedTool
from .dist_record import current_status
from .json_text import indented_json
from .manifest_reuse import Skeleton, manifest_bytes, reused_skeleton, skeleton_key
from .manifest_text import manifest_skeleton
from .output import Fingerprint, check_output_folder, fingerprint, remove_leftovers
from .staging import DistFiles, spare_folder, stage_dist
from .swap import TRASH_DIR, discard_staging, swap_in
from .tool_outputs import ToolOutputs
from .types import AgentInfo, Config, Diagnostic, Severity

if TYPE_CHECKING:
    from .session import CompileSession

__all__ = [
    "MANIFEST",
    "MANIFEST_FORMAT",
    "Emitted",
    "emit_dist",
    "json_bytes",
]


def json_bytes(document: object, *, sort_keys: bool = True) -> bytes:
    """The one JSON form of everything in ``dist/``: two-space indent, keys sorted unless
    ``sort_keys`` is false (schemas and tool.json keep pydantic's order, as it wrote them).

    Byte for byte what ``json.dumps(document, indent=2, sort_keys=sort_keys,
    ensure_ascii=False)`` writes, made without its pure-Python indenting encoder (a
    thousand documents per compile); anything but plain JSON data goes to ``json.dumps``.
    """
    return (indented_json(document, sort_keys=sort_keys) + "\n").encode()


def dist_files(
    agent: AgentInfo,
    skills: Sequence[EmittedSkill],
    tools: Sequence[EmittedTool],
    warnings: Sequence[Diagnostic],
    digest: str,
    environment: str,
    known: Skeleton | None = None,
    outputs: ToolOutputs | None = None,
) -> tuple[DistFiles, Skeleton]:
    """Every file of ``dist/``, by folder (``staging.DistFiles``), and the manifest's ``Skeleton``.

    ``known`` is the skeleton of the last manifest written: reused when only the sources'
    digest changed (``manifest_reuse``), else made again (``manifest_text``); ``environment``
    is ``requirements.environment_key()`` as the compile took it.  ``outputs`` makes each
    tool's part (a new one without).
    """
    made = (outputs if outputs is not None else ToolOutputs())(tools)
    files: dict[str, Mapping[str, bytes]] = {output.folder: output.contents for output in made}
    for skill in skills:
        if skill.archive is not None:
            files[f"skills/{skill.info.name}"] = {"condition.zip": skill.archive}
    conditions = [(skill.info, skill.archive, skill.entry_module) for skill in skills]
    key = skeleton_key(agent, conditions, warnings, environment)
    document = reused_skeleton(known, key, digest, [skill.archive for skill in skills])
    if document is None:  # more than a digest changed
        document = manifest_skeleton(agent, conditions, warnings, digest)
    files[""] = {MANIFEST: manifest_bytes(document, [output.entry for output in made])}
    for folder in list(files):
        if folder:
            files.setdefault(folder.partition("/")[0], {})
    return dict(sorted(files.items())), Skeleton(key, document)


class Emitted(NamedTuple):
    """What ``emit_dist`` did: what ``check`` said, the fingerprint of the ``dist/`` written (if
    one was), and the ``Skeleton`` of its manifest (for the next compile's ``known``)."""

    diagnostics: list[Diagnostic]
    written: Fingerprint | None
    skeleton: Skeleton | None = None


def emit_dist(
    config: Config,
    agent: AgentInfo,
    skills: Sequence[EmittedSkill],
    tools: Sequence[EmittedTool],
    warnings: Sequence[Diagnostic],
    digest: str,
    environment: str,
    check: Callable[[Path], list[Diagnostic]] | None = None,
    recorded: Fingerprint | None = None,
    session: CompileSession | None = None,
    known: Skeleton | None = None,
) -> Emitted:
    """Write the whole of ``dist/`` beside it, then swap it in; call it holding ``output_lock``.

    The folder it replaces is proven to be skillc's output first (``UsageError``
    otherwise, with nothing touched; ``recorded`` is the fingerprint of the last
    ``dist/`` written, see ``check_output_folder``).  ``check`` looks at the finished folder before
    the swap; if it reports an error, the folder is thrown away and the previous
    ``dist/`` stays.  A ``session`` keeps what this compile wrote (``dist_record``), so the
    next one compares what it writes with that instead of reading ``dist/`` back.
    ``environment`` and ``known`` (the ``Skeleton`` of the last manifest written) are ``dist_files``'s.
    Returns what ``check`` said and the fingerprint of the new ``dist/``, taken as it was
    written (``None`` if none was), with the new manifest's skeleton.
    """
    out = config.out
    record, spared = (session.dist, session.spare) if session is not None else (None, None)
    # One look at dist/: the proof that it is skillc's, and what the fill compares the record with
    # (guided by the record of how this process left it, if it has one).
    if record is not None and record.path == out:
        now = record.fingerprint_now()
        statuses = record.statuses(now)  # no work when dist/ is just as this process left it
    else:
        now = fingerprint(out) if recorded is not None else None
        statuses = current_status(now)
    check_output_folder(out, recorded, now)
    remove_leftovers(out)
    if session is not None and session.outputs is None:
        session.outputs = ToolOutputs()
    outputs = session.outputs if session is not None else None
    files, skeleton = dist_files(agent, skills, tools, warnings, digest, environment, known, outputs)
    spare = spare_folder(config.root, out)
    if session is not None:
        session.dist = session.spare = None  # whatever happens next, the fill changes what they say
    staged = stage_dist(out, spare, files, record, statuses, spared)
    try:
        found = check(staged.path) if check is not None else []
    except BaseException:
        discard_staging(staged, spare)
        raise
    if any(item.severity is Severity.ERROR for item in found):
        discard_staging(staged, spare)
        return Emitted(found, None)
    try:
        swapped = swap_in(staged, out, spare, config.root / TRASH_DIR)
    except BaseException:
        if staged.path.exists():  # the swap did not happen, or the retired folder is still beside dist/
            discard_staging(staged, spare)
        raise
    written = dataclasses.replace(staged.record, path=out) if swapped.untouched else None
    if session is not None and written is not None:
        session.dist = written
        if swapped.parked and record is not None and record.path == out:  # the dist/ it retired, as left
            session.spare = dataclasses.replace(record, path=spare)
    return Emitted(found, written.fingerprint() if written is not None else fingerprint(out), skeleton)
