"""Turn what linking found into what ``dist/`` holds: schemas, bundles, definitions.

Each tool gets its input schema (the one pydantic would produce), the strict variant
when the tool is strict, its output schema, and its bundle.  Whatever cannot be done
is a finding, never an exception; with ``[tool.skill] schema = "import"``, a schema
the static translator does not support is produced by importing the tool's bundle in
an isolated process instead.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.util
import io
import sys
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..contracts.settings import CLIENT, STRICT
from .bundle import (
    DEPENDENCY_NOT_INSTALLED,
    UNDECLARED_DEPENDENCY,
    closure,
    condition_module_name,
    condition_source,
    finding_order,
    plan_bundle,
    plan_files,
    third_party,
    write_archive,
)
from .cache import ARTIFACT_SHARDS, artifacts_file, load_cache, write_cache
from .closure import closure_modules
from .data_files import bundle_data, data_key
from .dist_files import EmittedSkill, EmittedTool, ToolFiles, tool_files
from .import_failures import import_failure_hint
from .link_cache import LinkResult
from .manifest_reuse import entry_inputs, retargeted
from .manifest_text import tool_entry_json
from .requirements import Dependencies
from .resolve import Linker
from .schema import function_schema, model_schema
from .schema_models import UNSUPPORTED, SchemaResult
from .schema_versions import PYDANTIC_VERSION
from .source_tree import DataSet
from .strict import strict_schema
from .types import Finding, ModelRef, Pos, ToolInfo

if TYPE_CHECKING:
    from hashlib import _Hash as Hash  # the type of a digest object: typeshed's name only

__all__ = [
    "CACHE_TYPES",
    "Artifacts",
    "CachedTool",
    "EMPTY_INPUT",
    "artifact_key",
    "artifact_shard",
    "build_artifacts",
    "load_artifact_cache",
    "shared_key",
    "write_artifact_cache",
]

#: The input schema of a tool that declares none: any object.
EMPTY_INPUT: Mapping[str, Any] = {"properties": {}, "type": "object"}


@dataclass(frozen=True)
class Artifacts:
    """Everything to write, and the findings met on the way."""

    tools: tuple[EmittedTool, ...]
    skills: tuple[EmittedSkill, ...]
    findings: tuple[Finding, ...]
    #: The tools whose schemas were built by importing their bundles in this compile.
    imported: tuple[str, ...] = ()


def _tool_pos(tool: ToolInfo) -> Pos:
    return Pos(tool.source.line, tool.source.col)


def _input_schema(linker: Linker, tool: ToolInfo) -> SchemaResult | None:
    if tool.form == "function" and tool.input_model is None:
        named = tool.function or tool.qualname
        function = next((item for item in linker.modules[tool.module].functions if item.name == named), None)
        return function_schema(linker, tool.module, function) if function is not None else None
    return _model(linker, tool.input_model)


def _model(linker: Linker, model: ModelRef | None) -> SchemaResult | None:
    if model is None:
        return None
    return model_schema(linker, model.module, model.qualname)


@functools.cache
def _distributions() -> Mapping[str, list[str]]:
    from importlib.metadata import packages_distributions  # slow to import; only an undeclared import needs it

    return packages_distributions()


def _installed(top: str) -> bool:
    """Whether this environment can import the top-level module ``top``: its finders are asked, nothing is imported."""
    if top in sys.modules:
        return sys.modules[top] is not None  # None: imports of it are refused
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False
    except Exception:  # noqa: BLE001 - a finder of the environment's that fails says nothing about the module
        return True  # not known to be missing: nothing is reported


@functools.cache
def _requires(distribution: str) -> tuple[str, ...] | None:
    """An installed distribution's requirements, as its metadata lists them; ``None`` when not installed."""
    from importlib import metadata  # slow to import; only an undeclared import needs it

    try:
        return tuple(metadata.requires(distribution) or ())
    except metadata.PackageNotFoundError:
        return None


class CachedTool(NamedTuple):
    """A tool's artifacts as cached: what they were built from (``artifact_key``), its files,
    and the findings met while building them (a tuple: hundreds are loaded per compile)."""

    key: str
    files: ToolFiles
    findings: tuple[Finding, ...]
    #: What its manifest entry was rendered from but its archive (``manifest_reuse.entry_inputs``).
    entry_inputs: str = ""


#: What the artifacts cache may hold (``cache.load_cache`` loads nothing else).
CACHE_TYPES: tuple[type, ...] = (CachedTool, Finding, Pos, ToolFiles)


@functools.lru_cache(maxsize=8192)  # asked for each slot three times a compile
def artifact_shard(slot: str) -> str:
    """The shard of a cache slot: by the tool's name, so a tool's compile and check slots share one."""
    return ARTIFACT_SHARDS[zlib.crc32(slot.split("#")[0].encode()) % len(ARTIFACT_SHARDS)]


def load_artifact_cache(folder: Path) -> dict[str, Any]:
    """Every slot of the artifacts cache in ``folder`` (each tool's bundle and schemas, keyed by everything
    they depend on), from its shards (``cache.artifacts_file``)."""
    entries: dict[str, Any] = {}
    for shard in ARTIFACT_SHARDS:
        entries.update(
            (slot, value)
            for slot, value in load_cache(folder / artifacts_file(shard), CACHE_TYPES).items()
            if artifact_shard(slot) == shard
        )
    return entries


def _by_shard(entries: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    grouped: dict[str, dict[str, Any]] = {shard: {} for shard in ARTIFACT_SHARDS}
    for slot, value in entries.items():
        grouped[artifact_shard(slot)][slot] = value
    return grouped


def write_artifact_cache(folder: Path, entries: Mapping[str, Any], before: Mapping[str, Any]) -> None:
    """Write the shards whose slots differ from ``before`` (what was loaded)."""
    if entries == before:
        return
    old = _by_shard(before)
    for shard, wanted in _by_shard(entries).items():
        if wanted != old[shard]:
            write_cache(folder / artifacts_file(shard), wanted)


def shared_key(linker: Linker, import_schemas: bool, environment: str) -> Hash:
    """The part of every tool's ``artifact_key`` that is the same for all of them, as a digest
    to copy: the config, and the ``environment`` (``requirements.environment_key``: installed
    distributions, skillc and Python) with the pydantic the schemas are written for."""
    return hashlib.sha256(repr((import_schemas, linker.config.dependencies, PYDANTIC_VERSION, environment)).encode())


def artifact_key(
    linker: Linker,
    tool: ToolInfo,
    keys: Mapping[str, str],
    shared: Hash,
    data: DataSet | None = None,
    data_keys: dict[frozenset[str], str] | None = None,
) -> str:
    """What a tool's artifacts depend on: ``shared`` (``shared_key``), its definition, and
    every module it imports.  ``data_keys`` is the memo of ``data_files.data_key`` for this ``data``.

    The modules are the bundle's closure, a superset of what its schemas are read from
    (a model is always reached through the tool module's imports).
    """
    names = closure_modules(linker, tool.module)
    digest = shared.copy()
    digest.update(tool_digest(linker, tool).encode())
    for name in names:
        digest.update(keys.get(linker.path_of(name), "?").encode())
    if data is not None:  # the data files bundled with those modules, and the paths they name
        digest.update(data_key(linker, names, data, data_keys).encode())
    return digest.hexdigest()


def tool_digest(linker: Linker, tool: ToolInfo) -> str:
    """A digest of everything ``tool`` says, made once per tool object (``Linker.tool_digests``)."""
    slot = (tool.name, tool.module, tool.qualname)
    known = linker.tool_digests.get(slot)
    if known is not None and known[0] is tool:
        return known[1]
    digest = hashlib.sha256(repr(tool).encode()).hexdigest()
    linker.tool_digests[slot] = (tool, digest)
    return digest


def build_artifacts(
    linked: LinkResult,
    sources: Mapping[str, bytes],
    data: DataSet,
    *,
    import_schemas: bool,
    import_wanted: bool = False,
    environment: str,
    keys: Mapping[str, str] | None = None,
    cache: dict[str, CachedTool] | None = None,
    archives: bool = True,
    notify: Callable[[str], None] | None = None,
) -> Artifacts:
    """Build every tool's and skill's artifacts in memory.

    With ``keys`` (each source path's content key) and a ``cache`` (tool name -> its
    artifacts), a tool none of whose inputs changed is not built again; the cache is
    updated in place.  ``import_schemas`` is the user's consent to import bundles for
    the schemas the static translator cannot build; ``import_wanted`` says the project
    asks for it (``schema = "import"``) without that consent, so the findings say how
    to give it; ``notify`` is told before each import.  ``data`` is the project's data
    files, as the snapshot read them (``source_tree.read_sources``).  ``environment`` is
    ``requirements.environment_key()`` as the compile took it.
    """
    linker = linked.linker
    assert linker is not None
    dependencies = Dependencies(linker.config.dependencies, _distributions, _requires, _installed)
    findings: list[Finding] = []
    tools: list[EmittedTool] = []
    imported: list[str] = []
    shared = shared_key(linker, import_schemas, environment)
    data_keys: dict[frozenset[str], str] = {}
    # Where each tool built now sits in ``tools``, its cache slot, key and findings, and what
    # the cache held for it (built from other inputs).
    fresh: list[tuple[int, str, str | None, tuple[Finding, ...], CachedTool | None]] = []
    for tool in linked.tools:
        key = (
            artifact_key(linker, tool, keys, shared, data, data_keys)
            if keys is not None and cache is not None
            else None
        )
        # A check keeps its results (without archives) apart from a compile's.
        slot = tool.name if archives else f"{tool.name}#check"
        known = cache.get(slot) if cache is not None and key is not None else None
        if isinstance(known, CachedTool) and known.key == key:
            findings.extend(known.findings)
            tools.append(EmittedTool(tool, known.files))
            continue
        before, resolved = len(findings), len(linker.findings)
        built = _build_tool(
            linker, tool, sources, data, dependencies, import_schemas, findings, archives, imported, notify
        )
        # What resolving the tool's models found (a conditional definition, say) is the
        # tool's finding too, cached with it, so a warm compile reports it as a cold one does.
        findings.extend(linker.findings[resolved:])
        del linker.findings[resolved:]
        if import_wanted and not import_schemas:
            findings[before:] = [_needs_consent(item) for item in findings[before:]]
        if built is not None:
            fresh.append(
                (len(tools), slot, key, tuple(findings[before:]), known if isinstance(known, CachedTool) else None)
            )
            tools.append(built)
    inputs = {
        position: entry_inputs(
            tool_digest(linker, tools[position].info),
            tools[position].files.entry_module,
            tools[position].files.requirements,
            tools[position].files.output_schema is not None,
            environment,
        )
        for position, *_ in (fresh if archives else ())  # a check renders no manifest entry
    }
    if archives and fresh:  # their manifest entries, rendered once and cached with the rest
        _with_manifest_entries(tools, [(position, inputs[position], known) for position, *_, known in fresh])
    for position, slot, key, met, _ in fresh:
        if cache is not None and key is not None:
            cache[slot] = CachedTool(key, tools[position].files, met, inputs.get(position, ""))
    for tool in linked.misnamed:  # refused for its name only: its schemas are still checked, in this run
        resolved = len(linker.findings)
        for result in (_input_schema(linker, tool), _model(linker, tool.output_model)):
            findings.extend(result.findings if result is not None else ())
        findings.extend(linker.findings[resolved:])
        del linker.findings[resolved:]
    skills: list[EmittedSkill] = []
    for skill in linked.skills:
        if not skill.has_condition:
            skills.append(EmittedSkill(skill, None, None))
            continue
        entry = condition_module_name(skill.name)
        extra, found = bundle_data(linker, closure(linker, skill.module)[0], sources, data)
        findings.extend(found)
        # What the condition's third-party imports lack, where no tool's bundle said it at the same place.
        said = {(finding.code, finding.path, finding.pos) for finding in findings}
        runner = f"the condition() of skill {skill.name!r}"
        _, lacking = third_party(linker, skill.module, dependencies, runner)
        findings.extend(item for item in lacking if (item.code, item.path, item.pos) not in said)
        files = [
            *plan_files(linker, skill.module, sources),
            *extra,
            (f"{entry}.py", condition_source(skill.name, skill.module).encode()),
        ]
        skills.append(EmittedSkill(skill, write_archive(sorted(files)) if archives else b"", entry))
    return Artifacts(tuple(tools), tuple(skills), tuple(_once_per_project(findings)), tuple(imported))


#: The findings about a dependency: one per project, not one per tool that imports it.
_ONCE_PER_PROJECT = frozenset({UNDECLARED_DEPENDENCY, DEPENDENCY_NOT_INSTALLED})


def _once_per_project(findings: list[Finding]) -> list[Finding]:
    """The findings with each undeclared or missing dependency once, at its first place, however many tools import it."""
    first: dict[tuple[str, str], Finding] = {}
    for finding in findings:
        if finding.code in _ONCE_PER_PROJECT:
            known = first.get((finding.code, finding.message))
            if known is None or finding_order(finding) < finding_order(known):
                first[finding.code, finding.message] = finding
    return [
        finding
        for finding in findings
        if finding.code not in _ONCE_PER_PROJECT or first[finding.code, finding.message] is finding
    ]


def _needs_consent(finding: Finding) -> Finding:
    if finding.code != UNSUPPORTED:
        return finding
    return dataclasses.replace(
        finding,
        hint='[tool.skill] schema = "import" asks to build this schema by importing the tool\'s code, which '
        "needs your consent: run `skill compile --allow-import` (a project's own files cannot give it)",
    )


def _build_tool(
    linker: Linker,
    tool: ToolInfo,
    sources: Mapping[str, bytes],
    data: DataSet,
    dependencies: Dependencies,
    import_schemas: bool,
    findings: list[Finding],
    archives: bool = True,
    imported: list[str] | None = None,
    notify: Callable[[str], None] | None = None,
) -> EmittedTool | None:
    """One tool's bundle, schemas and definition; ``None`` after a finding says why not.

    A client-side tool ships no code: its bundle is built only to import it for its
    schemas (``--allow-import``), and never written.
    """
    client = tool.settings[CLIENT]
    bundle = plan_bundle(linker, tool, sources, dependencies)
    if not client:
        findings.extend(bundle.findings)
        extra, found = bundle_data(linker, closure(linker, tool.module)[0], sources, data)
        findings.extend(found)
    else:
        extra = []
    archive = write_archive(sorted((*bundle.files, *extra))) if (archives and not client) or import_schemas else b""
    schemas: list[Mapping[str, Any] | None] = []
    unsupported: list[Finding] = []
    for result in (_input_schema(linker, tool), _model(linker, tool.output_model)):
        if result is None:
            schemas.append(None)
            continue
        schemas.append(result.schema)
        unsupported.extend(result.findings)
    input_schema, output_schema = schemas
    if unsupported and import_schemas:
        if notify is not None:
            notify(f"importing the bundle of tool {tool.name!r} to build its schema (--allow-import)")
        probed = _import_schemas(archive, bundle.entry_module, tool, linker)
        if imported is not None:
            imported.append(tool.name)
        if isinstance(probed, Finding):
            findings.append(probed)
            return None
        input_schema, output_schema = probed
    elif unsupported:
        findings.extend(unsupported)
        return None
    if input_schema is None:
        input_schema = EMPTY_INPUT
    parameters = input_schema
    if tool.settings[STRICT]:
        strict = strict_schema(dict(input_schema))
        if isinstance(strict, str):
            findings.append(
                Finding(
                    "skill/strict-incompatible",
                    f"tool {tool.name!r} is strict, but {strict}",
                    tool.source.path,
                    _tool_pos(tool),
                    hint="make the input model fit OpenAI's strict mode, or set strict = False on the tool "
                    '(under [tool.skill.chat] strict = "all", set it to "per-tool" first)',
                )
            )
            return None
        parameters = strict
    if client:
        return EmittedTool(tool, tool_files(tool, b"", "", (), input_schema, parameters, output_schema))
    return EmittedTool(
        tool,
        tool_files(tool, archive, bundle.entry_module, bundle.requirements, input_schema, parameters, output_schema),
    )


def _with_manifest_entries(tools: list[EmittedTool], built: list[tuple[int, str, CachedTool | None]]) -> None:
    """Give the tools built now their manifest entries: for each, its position in ``tools``,
    ``manifest_reuse.entry_inputs`` of it, and what the cache held for it.

    An entry rendered from the same inputs but another archive is reused with the new
    archive's digest (``manifest_reuse.retargeted``); the others are rendered by the
    manifest's models, one after the other once every bundle is built: in between, each
    takes about twice as long (a cold compile renders hundreds).
    """
    missing = []
    for position, inputs, known in built:
        tool, files = tools[position].info, tools[position].files
        entry = None
        if known is not None and known.entry_inputs == inputs and known.files.manifest_json:
            entry = retargeted(known.files.manifest_json, known.files.archive, files.archive)
        if entry is None:
            missing.append(position)
        else:
            tools[position] = EmittedTool(tool, files._replace(manifest_json=entry))
    for position in missing:
        tool, files = tools[position].info, tools[position].files
        entry = tool_entry_json(
            tool, files.archive, files.entry_module, files.requirements, files.output_schema is not None
        )
        tools[position] = EmittedTool(tool, files._replace(manifest_json=entry))


def _import_schemas(
    archive: bytes, entry: str, tool: ToolInfo, linker: Linker
) -> tuple[Mapping[str, Any] | None, Mapping[str, Any] | None] | Finding:
    """Ask pydantic itself, in an isolated process that imports only the bundle."""
    from .probe import probe_bundle  # processes and threads: only a compile given --allow-import starts them

    with tempfile.TemporaryDirectory(prefix="skillc-schema-") as work:
        # Extracted (the archive was written just now), as the runtime does: modules that
        # read their data files through __file__ need a folder, not a zip.
        path = Path(work) / "bundle"
        with zipfile.ZipFile(io.BytesIO(archive)) as bundle:
            bundle.extractall(path)
        probe = probe_bundle(path, entry, "tool")
    if not probe.ok:
        return Finding(
            "skill/bundle-not-self-contained",
            f"tool {tool.name!r}: importing its bundle for its schema failed: {probe.error}",
            tool.source.path,
            _tool_pos(tool),
            hint=import_failure_hint(probe.error_type),
        )
    return probe.input_schema, probe.output_schema
