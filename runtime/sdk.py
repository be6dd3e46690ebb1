"""The authoring SDK: the three forms of a tool, and the skills and agent that group them.

- Class form: subclass ``Tool``, set class attributes, define ``execute(self, input, ctx)``.
- Function form: decorate a function with ``@tool``; its parameters are the input.
- Object form: ``Tool(name=..., description=..., input_schema=..., execute=...)``.

Every object checks itself when it is constructed, so a tool that can never work fails
in the user's own unit tests with a clear message, the same rules the compiler applies
statically (see ``spec``).
"""

from __future__ import annotations

import enum
import functools
import inspect
import typing
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeAlias, TypeVar, Unpack, overload

from pydantic import BaseModel, create_model

from ..contracts.docstrings import parse_docstring
from ..contracts.errors import ToolDefinitionError
from ..contracts.settings import (
    CLIENT,
    NEEDS_APPROVAL,
    PER_CALL,
    SETTINGS,
    InvalidSetting,
    Setting,
    SettingValues,
    ToolFlag,
    ToolSettings,
)
from ..contracts.spec import (
    MAX_NAME_LENGTH,
    case_collision_error,
    folder_key,
    function_input_model_name,
    is_valid_name,
    reserved_name_error,
)
from .context import ToolContext
from .functions import annotated_note, is_context_annotation, is_stub, with_description

__all__ = [
    "Agent",
    "Condition",
    "FunctionTool",
    "Skill",
    "Tool",
    "ToolFlag",
    "function_input_model_name",
    "settings_of",
    "tool",
]

Condition: TypeAlias = Callable[[], bool | Awaitable[bool]]
_F = TypeVar("_F", bound=Callable[..., Any])


class _Unset(enum.Enum):
    UNSET = enum.auto()


_UNSET: typing.Final = _Unset.UNSET


def _name_error(kind: str, name: object) -> str:
    return (
        f"invalid {kind} name {name!r}: use letters, digits, '_' and '-' only "
        f"(at most {MAX_NAME_LENGTH} characters), for example 'lookup_order'"
    )


def _is_model_class(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, BaseModel)


def _python_default(setting: Setting[Any]) -> object:
    """A setting's default as a tool holds it: a flag enum member, a read-only mapping."""
    if setting.flags is not None:
        return setting.flags(0)
    if isinstance(setting.default, dict):
        return MappingProxyType(dict(setting.default))
    return setting.default


class Tool:
    """A function the model may call.

    Subclass it (the class form) or build it from keyword arguments (the object form).
    Besides ``name``, ``description`` and the schemas, every row of
    ``skillc.contracts.settings.SETTINGS`` (``timeout``, ``retries``, ``needs_approval``,
    ...) is a class attribute with its default and a keyword of ``Tool(...)``.
    ``execute`` does the work and may be ``async``.  An optional ``condition()`` (sync or async) decides whether the
    tool is offered on a turn.  A client-side tool (``client = True``, TanStack AI's
    ``toolDefinition(...).client()``) has neither: its result comes from the caller.
    """

    name: str
    description: str = ""
    input_schema: type[BaseModel] | None = None
    output_schema: type[BaseModel] | None = None

    def __init__(
        self,
        *,
        name: str | _Unset = _UNSET,
        description: str | _Unset = _UNSET,
        input_schema: type[BaseModel] | None | _Unset = _UNSET,
        execute: Callable[..., Any] | _Unset = _UNSET,
        condition: Condition | None | _Unset = _UNSET,
        output_schema: type[BaseModel] | None | _Unset = _UNSET,
        **settings: Unpack[ToolSettings],
    ) -> None:
        known = {setting.name for setting in SETTINGS}
        for key in settings:
            if key not in known:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {key!r}")
        given: dict[str, object] = {
            key: value
            for key, value in {
                "name": name,
                "description": description,
                "input_schema": input_schema,
                "execute": execute,
                "condition": condition,
                "output_schema": output_schema,
            }.items()
            if value is not _UNSET
        }
        given.update(settings)
        if given and type(self) not in (Tool, FunctionTool):
            raise TypeError(
                f"{type(self).__name__}() takes no settings as arguments: "
                f"set {', '.join(sorted(given))} as class attributes instead"
            )
        for key, value in given.items():
            if key == "condition" and value is None:
                continue
            setattr(self, key, value)
        self._check()

    def execute(self, input: Any, ctx: ToolContext) -> Any:
        """Do the tool's work; the result is sent to the model as JSON.

        ``ctx`` says who calls and where; ``ctx.state`` is the conversation's writable JSON
        data, shared with every other call of the thread (``ToolState``).
        """
        raise NotImplementedError  # replaced by every tool but a client-side one (_check() guarantees it)

    @property
    def form(self) -> str:
        """Which of the three forms defined this tool: class, function or object."""
        if isinstance(self, FunctionTool):
            return "function"
        return "object" if type(self) is Tool else "class"

    @property
    def condition_function(self) -> Condition | None:
        """The tool's ``condition()``, or ``None`` when it is always offered."""
        found = getattr(self, "condition", None)
        return found if callable(found) else None

    def __repr__(self) -> str:
        return f"<{self.form} tool {getattr(self, 'name', '?')!r}>"

    def _check(self) -> None:
        """Refuse a definition that can never work, naming what is wrong."""
        owner = type(self).__name__
        name = getattr(self, "name", None)
        if name is None:
            raise ToolDefinitionError(f"{owner}: Tool must have a name")
        if not is_valid_name(name):
            raise ToolDefinitionError(_name_error("tool", name))
        reserved = reserved_name_error("tool", name)
        if reserved is not None:
            raise ToolDefinitionError(reserved)
        where = f"tool {name!r}"
        has_execute = type(self).execute is not Tool.execute or "execute" in vars(self)
        if getattr(self, CLIENT.name) is True:
            self._check_client(where, has_execute)
        elif not has_execute:
            raise ToolDefinitionError(f"{where}: Tool must have an execute function")
        elif not callable(self.execute):
            raise ToolDefinitionError(f"{where}: execute must be a function")
        if not isinstance(self.description, str):
            raise ToolDefinitionError(f"{where}: description must be a string")
        for attribute, value in self._declared_schemas():
            if value is not None and not _is_model_class(value):
                raise ToolDefinitionError(f"{where}: {attribute} must be a pydantic model class, not {value!r}")
        condition = getattr(self, "condition", None)
        if condition is not None and not callable(condition):
            raise ToolDefinitionError(f"{where}: condition must be a function")
        try:
            self._skillc_settings = SettingValues.read(
                {setting.name: getattr(self, setting.name) for setting in SETTINGS}
            )
        except InvalidSetting as error:
            raise ToolDefinitionError(f"{where}: {error}") from None

    def _declared_schemas(self) -> tuple[tuple[str, object], ...]:
        """The models the tool's author gave, by attribute, for ``_check`` to look at."""
        return (("input_schema", self.input_schema), ("output_schema", self.output_schema))

    def _check_client(self, where: str, has_execute: bool) -> None:
        """A client-side tool's result comes from the caller: it has no code of its own to run."""
        if has_execute:
            raise ToolDefinitionError(
                f"{where} is client-side (client=True), so it must have no execute: its result comes from the caller"
            )
        if getattr(self, "condition", None) is not None:
            raise ToolDefinitionError(
                f"{where} is client-side (client=True), so it cannot have a condition: it ships no code to run it"
            )
        if callable(getattr(self, NEEDS_APPROVAL.name)) or getattr(self, NEEDS_APPROVAL.name) == PER_CALL:
            raise ToolDefinitionError(
                f"{where} is client-side (client=True), so needs_approval must be True or False, not a function"
            )


for _setting in SETTINGS:
    setattr(Tool, _setting.name, _python_default(_setting))


def settings_of(tool: Tool) -> SettingValues:
    """The plain value of every setting of ``tool``, as checked when it was built.

    A plain function rather than a property, so that no name a tool's author might use
    for an attribute of their own (``settings``) is taken.
    """
    found = tool.__dict__.get("_skillc_settings")
    if isinstance(found, SettingValues):
        return found
    return SettingValues.read({setting.name: getattr(tool, setting.name) for setting in SETTINGS})


class FunctionTool(Tool):
    """A tool made from a function by ``@tool``; it stays callable as that function."""

    def __init__(
        self,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        condition: Condition | None = None,
        output_schema: type[BaseModel] | None = None,
        **settings: Unpack[ToolSettings],
    ) -> None:
        if not callable(function) or isinstance(function, Tool):
            raise ToolDefinitionError(f"@tool must decorate a function, not {function!r}")
        functools.update_wrapper(self, function)
        self.function = function
        docstring = parse_docstring(inspect.getdoc(function))
        tool_name = name if name is not None else getattr(function, "__name__", "")
        self._arg_docs = docstring.args
        self._parameters: tuple[type[BaseModel], str | None] | None = None
        try:
            self._parameters = _input_model(function, docstring.args)
        except _NotYetDefined:  # a hint names what the module defines further down: made on first use
            pass
        client = settings.get(CLIENT.name) is True
        if client and not is_stub(function):
            raise ToolDefinitionError(
                f"tool {tool_name!r} is client-side (client=True), so its function's body must be only a docstring "
                "and/or `...`: its result comes from the caller, and the body would never run"
            )
        super().__init__(
            name=tool_name,
            description=docstring.description if description is None else description,
            execute=_UNSET if client else self._execute,
            condition=condition,
            output_schema=output_schema,
            **settings,
        )

    @property
    def input_schema(self) -> type[BaseModel]:  # type: ignore[override]  # made from the parameters, never set
        """The pydantic model of the function's parameters (see ``_input_model``).

        Made when the decorator runs, or, when a type hint names what the module defines
        further down (``from __future__ import annotations``, a quoted hint), the first time
        it is asked for: by then the module has finished importing.  A hint that still
        names nothing then raises ``ToolDefinitionError``.
        """
        return self._made()[0]

    @property
    def context_parameter(self) -> str | None:
        """The parameter annotated ``ToolContext``, which receives the call's context; ``None`` if none is."""
        return self._made()[1]

    def _made(self) -> tuple[type[BaseModel], str | None]:
        made = self._parameters
        if made is None:
            try:
                made = self._parameters = _input_model(self.function, self._arg_docs)
            except _NotYetDefined as error:
                raise ToolDefinitionError(str(error)) from error.__cause__
        return made

    def _declared_schemas(self) -> tuple[tuple[str, object], ...]:
        # The input model is made here from the parameters: only the output model is the author's.
        return (("output_schema", self.output_schema),)

    def _execute(self, input: BaseModel, ctx: ToolContext) -> Any:
        arguments = {key: getattr(input, key) for key in type(input).model_fields}
        context_parameter = (self._parameters or self._made())[1]  # made by now: a call validated its input
        if context_parameter is not None:
            arguments[context_parameter] = ctx
        return self.function(**arguments)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the function itself, as if it were not decorated."""
        return self.function(*args, **kwargs)


@overload
def tool(function: _F, /) -> FunctionTool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    condition: Condition | None = None,
    output_schema: type[BaseModel] | None = None,
    **settings: Unpack[ToolSettings],
) -> Callable[[_F], FunctionTool]: ...


def tool(
    function: Callable[..., Any] | None = None, /, **settings: Any
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Make a function a tool: ``@tool`` or ``@tool(name=..., timeout=...)``.

    The parameters (type hints, defaults, ``Annotated[..., Field(...)]``) are the input;
    the docstring is the description and its ``Args:`` section describes the parameters.
    A parameter annotated ``ToolContext`` receives the context instead (``ctx.state``
    is where a tool keeps what the conversation should remember, such as a seat number).
    """
    if function is not None:
        if settings:
            raise TypeError("use @tool or @tool(...) with keyword arguments only")
        return FunctionTool(function)

    def decorate(inner: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(inner, **settings)

    return decorate


def _check_tools(skill: str, tools: Sequence[object]) -> tuple[Tool, ...]:
    checked: list[Tool] = []
    seen: dict[str, str] = {}
    for entry in tools:
        if isinstance(entry, type) and issubclass(entry, Tool):
            raise ToolDefinitionError(
                f"skill {skill!r}: {entry.__name__} is a Tool class; register an instance: {entry.__name__}()"
            )
        if not isinstance(entry, Tool):
            hint = " (decorate the function with @tool)" if callable(entry) else ""
            raise ToolDefinitionError(f"skill {skill!r}: {entry!r} is not a tool{hint}")
        first = seen.get(folder_key(entry.name))
        if first == entry.name:
            raise ToolDefinitionError(f"skill {skill!r}: duplicate tool name {entry.name!r}")
        if first is not None:
            raise ToolDefinitionError(f"skill {skill!r}: {case_collision_error('tool', first, entry.name)}")
        seen[folder_key(entry.name)] = entry.name
        checked.append(entry)
    return tuple(checked)


@dataclass(frozen=True)
class Skill:
    """A group of tools with the context the model needs to use them."""

    name: str
    description: str = ""
    context: str = ""
    tools: Sequence[Tool] = ()
    condition: Condition | None = None

    def __post_init__(self) -> None:
        if not is_valid_name(self.name):
            raise ToolDefinitionError(_name_error("skill", self.name))
        reserved = reserved_name_error("skill", self.name)
        if reserved is not None:
            raise ToolDefinitionError(reserved)
        if isinstance(self.tools, str | bytes) or not isinstance(self.tools, Sequence):
            raise ToolDefinitionError(f"skill {self.name!r}: tools must be a list of tools")
        if self.condition is not None and not callable(self.condition):
            raise ToolDefinitionError(f"skill {self.name!r}: condition must be a function")
        object.__setattr__(self, "tools", _check_tools(self.name, self.tools))


@dataclass(frozen=True)
class Agent:
    """The agent: a persona and the skills it may use."""

    name: str
    persona: str = ""
    skills: Sequence[Skill] = field(default=())

    def __post_init__(self) -> None:
        if not is_valid_name(self.name):
            raise ToolDefinitionError(_name_error("agent", self.name))
        if isinstance(self.skills, str | bytes) or not isinstance(self.skills, Sequence):
            raise ToolDefinitionError(f"agent {self.name!r}: skills must be a list of skills")
        # Keyed by folder_key: names that differ only in case would share a folder of dist/.
        owners: dict[str, tuple[str, str]] = {}
        skill_names: dict[str, str] = {}
        for skill in self.skills:
            if not isinstance(skill, Skill):
                raise ToolDefinitionError(f"agent {self.name!r}: {skill!r} is not a Skill")
            first_skill = skill_names.get(folder_key(skill.name))
            if first_skill == skill.name:
                raise ToolDefinitionError(f"agent {self.name!r}: duplicate skill name {skill.name!r}")
            if first_skill is not None:
                raise ToolDefinitionError(
                    f"agent {self.name!r}: {case_collision_error('skill', first_skill, skill.name)}"
                )
            skill_names[folder_key(skill.name)] = skill.name
            for item in skill.tools:
                owner = owners.get(folder_key(item.name))
                if owner is not None and owner[0] == item.name:
                    raise ToolDefinitionError(
                        f"agent {self.name!r}: tool name {item.name!r} is used in skills "
                        f"{owner[1]!r} and {skill.name!r}"
                    )
                if owner is not None:
                    raise ToolDefinitionError(
                        f"agent {self.name!r}: {case_collision_error('tool', owner[0], item.name)} "
                        f"(skills {owner[1]!r} and {skill.name!r})"
                    )
                owners[folder_key(item.name)] = (item.name, skill.name)
        object.__setattr__(self, "skills", tuple(self.skills))

    def iter_tools(self) -> Iterator[tuple[Skill, Tool]]:
        """Yield each tool of the agent with the skill that holds it."""
        for skill in self.skills:
            for item in skill.tools:
                yield skill, item

    def get_tool(self, name: str) -> Tool:
        """Return the tool called ``name``; ``KeyError`` names the tools that exist."""
        for _, item in self.iter_tools():
            if item.name == name:
                return item
        known = ", ".join(sorted(item.name for _, item in self.iter_tools())) or "none"
        raise KeyError(f"no tool {name!r} in agent {self.name!r} (tools: {known})")


class _NotYetDefined(ToolDefinitionError):
    """A type hint of a ``@tool`` function names something not defined when the hints are read."""


def _input_model(function: Callable[..., Any], arg_docs: Mapping[str, str]) -> tuple[type[BaseModel], str | None]:
    """The pydantic model of the function's parameters, and the name of its ``ToolContext`` parameter.

    ``_NotYetDefined`` if a hint names something not defined (yet); ``ToolDefinitionError``
    for anything else that keeps the parameters from making a model.
    """
    label = getattr(function, "__qualname__", repr(function))
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except NameError as error:
        raise _NotYetDefined(f"@tool {label}: cannot resolve its type hints ({error})") from error
    except Exception as error:  # any other failure to evaluate a hint means the same thing
        raise ToolDefinitionError(f"@tool {label}: cannot resolve its type hints ({error})") from error
    fields: dict[str, Any] = {}
    context_parameter: str | None = None
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            raise ToolDefinitionError(
                f"@tool {label}: parameter {parameter.name!r} must be a plain or "
                "keyword-only parameter (no *args, **kwargs or positional-only)"
            )
        annotation = hints.get(parameter.name, Any)
        if is_context_annotation(annotation):
            if context_parameter is not None:
                raise ToolDefinitionError(
                    f"@tool {label}: parameters {context_parameter!r} and {parameter.name!r} are both a ToolContext; "
                    "the context is passed to one parameter"
                )
            context_parameter = parameter.name
            continue
        note = annotated_note(annotation)
        if parameter.name in arg_docs:
            annotation = with_description(annotation, arg_docs[parameter.name])
        if note is not None:  # weaker than the docstring's Args: and than an explicit Field
            annotation = with_description(annotation, note)
        default = ... if parameter.default is parameter.empty else parameter.default
        fields[parameter.name] = (annotation, default)
    model_name = function_input_model_name(getattr(function, "__name__", "tool"))
    model = create_model(model_name, __module__=getattr(function, "__module__", __name__), **fields)
    return typing.cast(type[BaseModel], model), context_parameter
