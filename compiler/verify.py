"""Prove a finished ``dist/`` self-contained: import each bundle as a deployed runtime would.

Each bundle is imported in its own isolated process by the runtime's own loader (see
``probe``), so a module that the static closure missed (one loaded by
``importlib.import_module``, say) fails to import, and what passes is what the runtime
will load (data files read at import time included); the schemas pydantic then gives
must equal the static ones.
"""

from __future__ import annotations

from pathlib import Path

from ..contracts.settings import CLIENT
from .artifacts import Artifacts
from .import_failures import import_failure_hint
from .probe import probe_bundles
from .types import Finding, Pos

__all__ = ["check_dist"]


def check_dist(folder: Path, artifacts: Artifacts) -> list[Finding]:
    """Probe every bundle of a finished ``dist/`` folder; what does not import is a finding."""
    bundled = [tool for tool in artifacts.tools if not tool.info.settings[CLIENT]]  # a client tool ships no code
    jobs = [(folder / "tools" / tool.info.name / "bundle.zip", tool.files.entry_module, "tool") for tool in bundled]
    conditions = [skill for skill in artifacts.skills if skill.archive is not None and skill.entry_module]
    jobs += [
        (folder / "skills" / skill.info.name / "condition.zip", skill.entry_module or "", "condition")
        for skill in conditions
    ]
    probes = probe_bundles(jobs)
    found: list[Finding] = []
    for tool, probe in zip(bundled, probes, strict=False):
        source = tool.info.source
        if not probe.ok:
            found.append(
                Finding(
                    "skill/bundle-not-self-contained",
                    f"tool {tool.info.name!r}: its bundle does not import on its own: {probe.error}",
                    source.path,
                    Pos(source.line, source.col),
                    import_failure_hint(probe.error_type),
                )
            )
            continue
        pairs = (
            (
                "input",
                tool.files.input_schema if tool.info.input_model or tool.info.form == "function" else None,
                probe.input_schema,
            ),
            ("output", tool.files.output_schema, probe.output_schema),
        )
        for which, static, imported in pairs:
            if static is not None and imported is not None and dict(static) != imported:
                found.append(
                    Finding(
                        "skill/schema-mismatch",
                        f"tool {tool.info.name!r}: the static {which} schema differs from pydantic's",
                        source.path,
                        Pos(source.line, source.col),
                        'this is a bug in skillc\'s schema translation; set [tool.skill] schema = "import" meanwhile',
                    )
                )
    for skill, probe in zip(conditions, probes[len(artifacts.tools) :], strict=True):
        if not probe.ok:
            source = skill.info.source
            found.append(
                Finding(
                    "skill/bundle-not-self-contained",
                    f"skill {skill.info.name!r}: its condition's bundle does not import on its own: {probe.error}",
                    source.path,
                    Pos(source.line, source.col),
                    import_failure_hint(probe.error_type),
                )
            )
    return found
