"""The shape of ``dist/manifest.json``: the runtime reads it with these models.

Each model is frozen.  Reading ignores keys it does not know (a newer compiler may add
some) and checks the ones it does, including that every path stays inside ``dist/``; the
tool settings are checked by their rows of ``contracts.settings``.  ``Manifest.document``
gives the JSON the compiler writes.  The compiler makes that JSON without these models
(``compiler.manifest_text``: pydantic would cost every compile a tenth of a second), and
the test suite proves, for every shape of entry, that what it writes is exactly what they
read and render again.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from .settings import CLIENT, DEFAULTS, SETTINGS, SettingValues
from .spec import MAX_NAME_LENGTH

__all__ = [
    "AgentEntry",
    "CompilerEntry",
    "ConditionEntry",
    "Definition",
    "EntryPoint",
    "Manifest",
    "SchemaPaths",
    "SkillEntry",
    "SourceEntry",
    "ToolEntry",
    "WarningEntry",
    "consistency_problems",
]


def _inside(path: str) -> str:
    """Refuse a path that could point outside ``dist/``."""
    pure = PurePosixPath(path)
    if not path or "\\" in path or pure.is_absolute() or ".." in pure.parts:
        raise ValueError("must be a relative path inside dist/")
    return path


DistPath = Annotated[str, AfterValidator(_inside)]
Name = Annotated[str, Field(pattern=r"^[a-zA-Z0-9_-]+$", max_length=MAX_NAME_LENGTH)]
ModuleName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")]
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class _Entry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)


class EntryPoint(_Entry):
    """Where, inside a bundle, the tool object (or condition) is bound."""

    module: ModuleName
    qualname: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


class Definition(_Entry):
    """Where the tool is defined in the project: its module and qualified name."""

    module: ModuleName
    qualname: str


class SourceEntry(_Entry):
    """A place in the project's sources: the path relative to the project, and the line."""

    path: str
    line: Annotated[int, Field(ge=1)]


class SchemaPaths(_Entry):
    """The schema files of a tool, relative to ``dist/``."""

    tool: DistPath
    input: DistPath
    output: DistPath | None = None


class ToolEntry(_Entry):
    """One tool of the manifest.  Its settings are keys of the entry itself, one per row of ``SETTINGS``.

    A client-side tool (``client: true``) ships no code: its ``entry``, ``bundle`` and
    ``sha256`` are ``null``; every other tool has all three.  A manifest written before
    client tools existed has no ``client`` key, so each of its tools runs its bundle.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: Name
    skill: Name
    description: str = ""
    form: Literal["class", "function", "object"]
    source: SourceEntry | None = None
    definition: Definition | None = None
    entry: EntryPoint | None = None
    bundle: DistPath | None = None
    sha256: Sha256 | None = None
    schemas: SchemaPaths = Field(alias="schema")
    settings: SettingValues = Field(default=DEFAULTS, exclude=True)
    has_condition: bool = False
    is_async: bool = False
    requirements: tuple[str, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _gather_settings(cls, data: Any) -> Any:
        """Collect the settings' keys into ``settings``, each checked by its row (``InvalidSetting`` is a ``ValueError``)."""
        if not isinstance(data, Mapping) or isinstance(data.get("settings"), SettingValues):
            return data
        names = {setting.name for setting in SETTINGS}
        gathered = {key: value for key, value in data.items() if key not in names}
        gathered["settings"] = SettingValues.read({key: value for key, value in data.items() if key in names})
        return gathered

    @model_validator(mode="after")
    def _code_unless_client(self) -> ToolEntry:
        """A client tool has no bundle; any other tool has its bundle, sha256 and entry."""
        parts = (self.entry, self.bundle, self.sha256)
        if self.settings[CLIENT] and any(part is not None for part in parts):
            raise ValueError(f"tool {self.name!r} is client-side, so it has no entry, bundle or sha256")
        if not self.settings[CLIENT] and any(part is None for part in parts):
            raise ValueError(f"tool {self.name!r} needs its entry, bundle and sha256")
        return self

    @model_serializer(mode="wrap")
    def _spread_settings(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        document: dict[str, Any] = handler(self)
        document.update(self.settings.to_json())
        return document


class ConditionEntry(_Entry):
    """The archive a skill's ``condition()`` is imported from."""

    bundle: DistPath
    sha256: Sha256
    entry: EntryPoint


class SkillEntry(_Entry):
    """One skill of the manifest."""

    name: Name
    description: str = ""
    context: str = ""
    tools: tuple[Name, ...] = ()
    source: SourceEntry | None = None
    condition: ConditionEntry | None = None


class AgentEntry(_Entry):
    """The agent: its persona and its skills in order."""

    name: Name
    persona: str = ""
    skills: tuple[Name, ...] = ()


class CompilerEntry(_Entry):
    """Which compiler wrote the manifest."""

    name: str
    version: str


class WarningEntry(_Entry):
    """A warning of the compile that wrote ``dist/`` (errors never reach a manifest)."""

    code: str
    message: str
    path: str
    line: int
    column: int


class Manifest(_Entry):
    """What ``dist/manifest.json`` says, checked."""

    format: int
    compiler: CompilerEntry | None = None
    source_digest: str = ""
    agent: AgentEntry
    skills: tuple[SkillEntry, ...]
    tools: tuple[ToolEntry, ...]
    warnings: tuple[WarningEntry, ...] = ()

    def tool_map(self) -> Mapping[str, ToolEntry]:
        return {tool.name: tool for tool in self.tools}

    def document(self) -> dict[str, Any]:
        """The JSON document of this manifest, as the compiler writes it."""
        return self.model_dump(mode="json", by_alias=True)


def consistency_problems(manifest: Manifest) -> list[str]:
    """What the models cannot say: unique names, and tools and skills that refer to each other."""
    problems: list[str] = []
    skills = {skill.name: skill for skill in manifest.skills}
    if len(skills) != len(manifest.skills):
        problems.append("skills: two skills have the same name")
    tools = manifest.tool_map()
    if len(tools) != len(manifest.tools):
        problems.append("tools: two tools have the same name")
    for tool in manifest.tools:
        if tool.skill not in skills:
            problems.append(f"tools: {tool.name!r} belongs to skill {tool.skill!r}, which is not listed")
    for skill in manifest.skills:
        for name in skill.tools:
            if name not in tools:
                problems.append(f"skills: {skill.name!r} lists tool {name!r}, which is not listed")
    return problems
