"""The table of tool settings: each setting's name, type, default, rule and one-line doc, written once.

Everything that knows about settings reads them from ``SETTINGS``:

- the SDK gives ``Tool`` one class attribute per row and accepts each as a keyword of
  ``Tool(...)`` and ``@tool(...)``, checked when a tool is built;
- the compiler reads each from the source (a literal, a module-level constant bound to one,
  or members of a flag enum combined with ``|``) and checks it with the same rule, so a
  value is refused before anything runs in the words the SDK would use;
- the manifest holds one key per row on each tool entry (``contracts.manifest``);
- ``skill test`` shows the rows whose value is not the default;
- ``skill serve`` sends the MCP annotation rows (``title``, ``read_only``, ``destructive``,
  ``idempotent``, ``open_world``) as each tool's ``annotations``.

A value has two forms: as written in Python (a ``ToolFlag``, a mapping, an ``int`` timeout)
and plain, what the manifest stores (JSON: a tuple of flag names, a dict, a ``float``).
``Setting.plain`` turns the first into the second and accepts the second unchanged.  An
``optional`` row also takes ``None``, its default, which means "not said": an MCP annotation
left unset is not sent, so each host applies its own default.  Adding
a setting means adding a row here (and its keyword to ``ToolSettings``) and writing the
code that acts on it; nothing else.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, Generic, TypedDict, TypeVar

__all__ = [
    "ANNOTATIONS",
    "CLIENT",
    "COMPACT",
    "COMPACT_THRESHOLD",
    "DEFAULTS",
    "DESTRUCTIVE",
    "IDEMPOTENT",
    "LAZY",
    "MAX_OUTPUT_CHARS",
    "METADATA",
    "NEEDS_APPROVAL",
    "OPEN_WORLD",
    "PER_CALL",
    "READ_ONLY",
    "REQUIRED",
    "RETRIES",
    "SETTINGS",
    "STRICT",
    "TIMEOUT",
    "TITLE",
    "VOICE",
    "InvalidSetting",
    "Setting",
    "SettingValues",
    "ToolFlag",
    "ToolSettings",
]

T = TypeVar("T")


class ToolFlag(enum.Flag):
    """How a voice agent treats the tool; combine with ``|``."""

    NONE = 0
    #: Do not run the tool when the agent enters the conversation.
    IGNORE_ON_ENTER = enum.auto()
    #: The user cannot interrupt the agent while the tool runs.
    DISALLOW_INTERRUPTION = enum.auto()


class InvalidSetting(ValueError):
    """A setting's value breaks its rule; the message says what is expected, e.g. ``timeout must be ...``."""


@dataclass(frozen=True, eq=False)
class Setting(Generic[T]):
    """One row of the table.  ``T`` is the type of the plain value."""

    name: str
    #: One line for users: what the setting does.
    doc: str
    #: The plain value a tool has when it does not set this.
    default: T
    #: What a valid value is, in the words of an error message: "must be <expected>".
    expected: str
    #: The plain value of a value as written in Python, or ``None`` when it breaks the rule.
    convert: Callable[[object], T | None]
    #: The flag enum whose members, combined with ``|``, are written for this setting.
    flags: type[enum.Flag] | None = None
    #: How ``skill test`` shows a value other than the default.
    label: Callable[[T], str] | None = None
    #: Whether a function may be given instead of a value, decided per call (plain value ``PER_CALL``);
    #: in the class form it is then a method of that name.
    per_call: bool = False
    #: Whether ``None`` ("not said") is a value of its own, the default; ``convert`` never sees it.
    optional: bool = False
    #: Whether ``[tool.skill.defaults]`` may set it for every tool of a project.
    project_default: bool = True

    def plain(self, value: object) -> T:
        """The plain form of ``value``; ``InvalidSetting`` when the rule refuses it."""
        if value is None and self.optional:
            return None  # type: ignore[return-value]  # T includes None for an optional row
        converted = self.convert(value)
        if converted is None:
            raise InvalidSetting(f"{self.name} must be {self.expected}")
        return converted

    def show(self, value: T) -> str:
        """How ``skill test`` names this setting's value."""
        return self.label(value) if self.label is not None else self.name.replace("_", " ")


def _seconds(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        return None
    return float(value)


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _flag(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _string_keys(value: object) -> dict[str, Any] | None:
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        return None
    return dict(value)


_VOICE_NAMES: Final = {flag.name.lower(): flag for flag in ToolFlag if flag.name and flag is not ToolFlag.NONE}


#: The plain value of a setting given as a function, which the runtime calls on each call.
PER_CALL: Final = "per_call"


def _approval(value: object) -> bool | str | None:
    if isinstance(value, bool):
        return value
    return PER_CALL if callable(value) or value == PER_CALL else None


def _voice(value: object) -> tuple[str, ...] | None:
    if isinstance(value, ToolFlag):
        return tuple(sorted(name for name, flag in _VOICE_NAMES.items() if flag in value))
    if isinstance(value, list | tuple) and all(isinstance(item, str) and item in _VOICE_NAMES for item in value):
        return tuple(sorted(set(value)))
    return None


TIMEOUT: Final = Setting[float](
    "timeout",
    "Seconds each run of the tool's code may take (validation, each attempt, serialization), enforced on code that blocks.",
    60.0,
    "a positive number of seconds",
    _seconds,
    label=lambda value: f"timeout {value:g}s",
)
RETRIES: Final = Setting[int](
    "retries",
    "Further attempts after one that raised; after a timeout only if idempotent=True; none if idempotent=False.",
    0,
    "a whole number >= 0",
    _count,
    label=lambda value: f"retries {value}",
)
STRICT: Final = Setting[bool](
    "strict", "Send the strict variant of the input schema (OpenAI strict mode).", False, "True or False", _flag
)
NEEDS_APPROVAL: Final = Setting[bool | str](
    "needs_approval",
    "Ask a person before each call; a function (input, ctx) -> bool decides per call, and asks when it fails.",
    False,
    "True, False or a function of the input and the context",
    _approval,
    label=lambda value: "needs approval" + (" (decided per call)" if value == PER_CALL else ""),
    per_call=True,
)
REQUIRED: Final = Setting[bool](
    "required", "The model must call this tool (tool_choice when it is offered).", False, "True or False", _flag
)
METADATA: Final = Setting[dict[str, Any]](
    "metadata",
    "Free-form data for the host; skillc does not read it.",
    {},
    "a mapping with string keys",
    _string_keys,
    label=lambda value: f"metadata {sorted(value)}",
)
VOICE: Final = Setting[tuple[str, ...]](
    "voice",
    "How a voice agent treats the tool (ToolFlag members combined with |).",
    (),
    "ToolFlag members combined with |",
    _voice,
    flags=ToolFlag,
    label=lambda value: "voice " + "|".join(value),
)


def _positive(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else None


#: A result of at least this many characters is compacted, unless ``compact`` names another threshold.
COMPACT_THRESHOLD: Final = 1500


def _compact(value: object) -> dict[str, Any] | bool | None:
    """``False`` (off), or ``{"threshold": N, "model": NAME or None}`` from True, a threshold or such a mapping."""
    if isinstance(value, bool):
        return {"threshold": COMPACT_THRESHOLD, "model": None} if value else False
    if isinstance(value, int):
        return {"threshold": value, "model": None} if value >= 1 else None
    if not isinstance(value, Mapping) or not set(value) <= {"threshold", "model"}:
        return None
    threshold = value.get("threshold", COMPACT_THRESHOLD)
    model = value.get("model")
    if _positive(threshold) is None or (model is not None and _text(model) is None):
        return None
    return {"threshold": threshold, "model": model}


def _compact_label(value: dict[str, Any] | bool) -> str:
    if not isinstance(value, dict):
        return "not compacted"
    by = f" by {value['model']}" if value["model"] else ""
    return f"compact{by} from {value['threshold']} characters"


MAX_OUTPUT_CHARS: Final = Setting[int | None](
    "max_output_chars",
    "Characters of a result the model sees at most (skill chat, skill serve): the head and tail of a longer one, "
    "with a notice of what was left out.",
    None,
    "a whole number of 1 or more, or None",
    _positive,
    label=lambda value: f"max output {value} characters",
    optional=True,
)
COMPACT: Final = Setting[dict[str, Any] | bool](
    "compact",
    "Have a model compress a result of at least 1500 characters before the model sees it (skill chat): True, "
    'a threshold, or {"threshold": N, "model": NAME}.',
    False,
    'True, False, a threshold of 1 or more characters, or {"threshold": N, "model": NAME}',
    _compact,
    label=_compact_label,
)
LAZY: Final = Setting[bool](
    "lazy",
    "Not sent to the model until it finds the tool through the built-in find_tools tool (skill chat).",
    False,
    "True or False",
    _flag,
)
CLIENT: Final = Setting[bool](
    "client",
    "The result comes from the caller (TanStack AI's client tools): no execute, no bundle; skill chat asks the user.",
    False,
    "True or False",
    _flag,
    label=lambda value: "client-side" if value else "runs its execute",
    # One tool's nature, not a default: a project-wide client = true would take every execute away.
    project_default=False,
)


def _hint(name: str, doc: str, yes: str, no: str) -> Setting[bool | None]:
    """An MCP annotation hint: True, False, or None (not sent)."""
    return Setting[bool | None](
        name, doc, None, "True, False or None", _flag, label=lambda value: yes if value else no, optional=True
    )


TITLE: Final = Setting[str | None](
    "title",
    "A human-readable name hosts show for the tool (MCP annotations.title); None sends none.",
    None,
    "a string that is not blank, or None",
    _text,
    label=lambda value: f"title {value!r}",
    optional=True,
)
READ_ONLY: Final = _hint(
    "read_only",
    "The tool does not change its environment (MCP readOnlyHint); None leaves it to the host.",
    "read only",
    "not read only",
)
DESTRUCTIVE: Final = _hint(
    "destructive",
    "The tool may delete or overwrite, not only add (MCP destructiveHint); None leaves it to the host.",
    "destructive",
    "not destructive",
)
IDEMPOTENT: Final = _hint(
    "idempotent",
    "Calling it again with the same input has no further effect (MCP idempotentHint); None: not said.",
    "idempotent",
    "not idempotent",
)
OPEN_WORLD: Final = _hint(
    "open_world",
    "The tool reaches entities outside a closed domain, such as the web (MCP openWorldHint); None: not said.",
    "open world",
    "closed world",
)

#: The rows skill serve sends as MCP tool annotations, in the protocol's order.
ANNOTATIONS: Final[tuple[Setting[Any], ...]] = (TITLE, READ_ONLY, DESTRUCTIVE, IDEMPOTENT, OPEN_WORLD)

#: Every setting, in the order ``skill test`` shows them.
SETTINGS: Final[tuple[Setting[Any], ...]] = (
    TIMEOUT,
    RETRIES,
    STRICT,
    NEEDS_APPROVAL,
    REQUIRED,
    METADATA,
    VOICE,
    MAX_OUTPUT_CHARS,
    COMPACT,
    LAZY,
    CLIENT,
    *ANNOTATIONS,
)


class ToolSettings(TypedDict, total=False):
    """The settings as keywords of ``Tool(...)`` and ``@tool(...)``, for type checkers (one key per row)."""

    timeout: float
    retries: int
    strict: bool
    needs_approval: bool | Callable[..., Any]
    required: bool
    metadata: Mapping[str, Any]
    voice: ToolFlag
    max_output_chars: int | None
    compact: bool | int | Mapping[str, Any]
    lazy: bool
    client: bool
    title: str | None
    read_only: bool | None
    destructive: bool | None
    idempotent: bool | None
    open_world: bool | None


@dataclass(frozen=True)
class SettingValues:
    """A tool's plain value of every setting, defaults filled in.

    Built only by ``SettingValues.read``, which checks every value, so each value obeys its
    row's rule.  ``values[TIMEOUT]`` is typed by the row.
    """

    values: dict[str, Any]

    @classmethod
    def read(cls, given: Mapping[str, object]) -> SettingValues:
        """Check and convert the given values (by name); ``InvalidSetting`` names the first bad one."""
        unknown = sorted(set(given) - {setting.name for setting in SETTINGS})
        if unknown:
            raise InvalidSetting(f"unknown setting {unknown[0]!r}")
        return cls({setting.name: setting.plain(given.get(setting.name, setting.default)) for setting in SETTINGS})

    def __getitem__(self, setting: Setting[T]) -> T:
        value: T = self.values[setting.name]
        return value

    def __iter__(self) -> Iterator[tuple[Setting[Any], Any]]:
        return ((setting, self.values[setting.name]) for setting in SETTINGS)

    def changed(self) -> list[tuple[Setting[Any], Any]]:
        """The settings whose value is not the default, in table order."""
        return [(setting, value) for setting, value in self if value != setting.default]

    def to_json(self) -> dict[str, Any]:
        """The values as the manifest writes them."""
        return {setting.name: list(value) if isinstance(value, tuple) else value for setting, value in self}


#: The defaults, for a tool that sets nothing.
DEFAULTS: Final = SettingValues.read({})
