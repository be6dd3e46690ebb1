"""Read one tool's definition, in any of the three forms, into a ``ToolInfo``.

A tool is a class deriving from ``skillc.Tool`` (its settings are class attributes,
along its bases), a ``@tool`` function (settings are the decorator's keywords) or a
``Tool(...)`` object (settings are the call's keywords).  Each setting must be a literal
or a module-level constant bound to one, and a value the SDK would refuse is reported
here, before anything runs, in the words the SDK would use.
"""

from __future__ import annotations

import enum
import functools
import operator
from dataclasses import dataclass
from typing import Any, Literal

from ..contracts.docstrings import parse_docstring
from ..contracts.settings import SETTINGS, InvalidSetting, Setting, SettingValues
from ..contracts.spec import is_conventional_name, is_valid_name, reserved_name_error
from .evaluate import Evaluator, Unsupported
from .resolve import ClassSym, ExternalSym, FunctionSym, Linker
from .types import BinOp, Call, Const, Expr, FunctionInfo, ModelRef, Pos, Source, ToolInfo

__all__ = ["ToolDraft", "ToolReader", "tool_decorator"]


@dataclass
class ToolDraft:
    """A tool definition found in the project, before its settings are read."""

    form: Literal["class", "function", "object"]
    module: str
    qualname: str
    pos: Pos
    cls: ClassSym | None = None
    function: FunctionInfo | None = None
    call: Call | None = None


class _Reported:
    """A setting that is given but unusable, whose diagnostic is already reported."""


_REPORTED = _Reported()


def tool_decorator(linker: Linker, module: str, function: FunctionInfo) -> Expr | None:
    """The ``@tool`` or ``@tool(...)`` decorator of ``function``, if it has one."""
    for decorator in function.decorators:
        target = decorator.func if isinstance(decorator, Call) else decorator
        if linker.is_sdk(module, target, "tool"):
            return decorator
    return None


class ToolReader:
    """Reads each tool's definition as the SDK would: a ``ToolInfo`` when it can work, a finding per problem.

    Every problem of a definition is reported, whether or not another one already keeps
    the tool from working.
    """

    def __init__(self, linker: Linker) -> None:
        self.linker = linker
        self.values = Evaluator(linker)

    def text(
        self, module: str, expr: Expr | None, what: str, *, code_if_bad: str = "skill/dynamic-value"
    ) -> str | None:
        """A literal string setting (of a tool, skill or agent), or ``None`` after reporting why it is not one."""
        if expr is None:
            return None
        try:
            value = self.values.value(module, expr)
        except Unsupported as error:
            self.linker.report(
                code_if_bad,
                module,
                error.pos,
                f"{what} must be a literal string or a module-level constant bound to one",
                hint="the compiler reads it without running your code",
            )
            return None
        if not isinstance(value, str):
            self.linker.report(
                "skill/invalid-setting", module, expr.pos, f"{what} must be a string, not {type(value).__name__}"
            )
            return None
        return value

    def setting(self, draft: ToolDraft, name: str) -> tuple[str, Expr] | None:
        """Where a setting is given and its expression, for any form."""
        if draft.cls is not None:
            found = self.linker.class_attribute(draft.cls, name)
            if found is None or found[1].value is None:
                return None
            return found[0].module, found[1].value
        if draft.call is not None:
            value = draft.call.keyword(name)
            return (draft.module, value) if value is not None else None
        assert draft.function is not None
        decorator = tool_decorator(self.linker, draft.module, draft.function)
        if isinstance(decorator, Call):
            value = decorator.keyword(name)
            return (draft.module, value) if value is not None else None
        return None

    def name_pos(self, draft: ToolDraft) -> Pos:
        """Where the tool's name is given, or where the tool is when it is not."""
        found = self.setting(draft, "name")
        return found[1].pos if found is not None else draft.pos

    def tool_info(self, draft: ToolDraft, skill: str) -> ToolInfo | None:
        """The tool ``draft`` defines, or ``None`` when a problem (reported) keeps it from working."""
        ok = True
        if draft.call is not None and (draft.call.args or draft.call.has_star):
            self.linker.report(
                "skill/invalid-setting",
                draft.module,
                draft.call.pos,
                "Tool(...) takes keyword arguments only: name=, description=, execute=, ...",
            )
            ok = False
        named = self._name(draft, ok)
        if named is None:
            return None
        name, ok = named
        description = self._description(draft)
        if isinstance(description, _Reported):
            ok = False  # not a literal: the dynamic-value error says so
        elif not description:
            self.linker.report(
                "skill/missing-description",
                draft.module,
                draft.pos,
                f"tool {name!r} has no description, so the model cannot tell when to use it",
                hint="describe what the tool does and when to call it",
            )
        is_async, callable_ = self._execute(draft)
        input_model = self._model(draft, "input_schema")
        output_model = self._model(draft, "output_schema")
        if draft.function is None and input_model is None and self.setting(draft, "input_schema") is None:
            self.linker.report(
                "skill/missing-input-schema",
                draft.module,
                draft.pos,
                "Tool should have an input_schema for type safety",
                hint="set input_schema to a pydantic model; the model's arguments are validated against it",
            )
        settings = self._settings(draft)
        if settings is None or not ok or not callable_:
            return None
        return ToolInfo(
            name=name,
            skill=skill,
            form=draft.form,
            description=description if isinstance(description, str) else "",
            module=draft.module,
            qualname=draft.qualname,
            source=Source(self.linker.path_of(draft.module), draft.pos.line, draft.pos.col),
            settings=settings,
            has_condition=self._has_condition(draft),
            input_model=input_model,
            output_model=output_model,
            is_async=is_async,
        )

    def _name(self, draft: ToolDraft, ok: bool) -> tuple[str, bool] | None:
        """The tool's name and whether the tool is still usable (``ok`` so far and a good
        name); ``None`` after reporting that it has no name the compiler can read."""
        found = self.setting(draft, "name")
        if found is None and draft.function is not None:
            name, module, pos = draft.function.name, draft.module, draft.pos
        elif found is None:
            self.linker.report(
                "skill/missing-name",
                draft.module,
                draft.pos,
                "Tool must have a name",
                hint='set name = "..." (letters, digits, "_" and "-")',
            )
            return None
        else:
            text = self.text(found[0], found[1], "a tool's name")
            if text is None:
                return None
            name, module, pos = text, found[0], found[1].pos
            if not is_valid_name(name):
                self.linker.report(
                    "skill/invalid-tool-name",
                    module,
                    pos,
                    f"invalid tool name {name!r}: use letters, digits, '_' and '-' only (at most 64 characters)",
                    hint="the name becomes a folder of dist/ and the function name the model sees",
                )
                ok = False
        reserved = reserved_name_error("tool", name) if is_valid_name(name) else None
        if reserved is not None:
            self.linker.report(
                "skill/reserved-tool-name",
                module,
                pos,
                reserved,
                hint="choose another name; Windows reserves CON, PRN, AUX, NUL, COM1-9 and LPT1-9",
            )
            ok = False
        if ok and not is_conventional_name(name):
            self.linker.report(
                "skill/tool-name-style",
                module,
                pos,
                f"tool name {name!r} is not lower_snake_case",
                hint="by convention tool names match ^[a-z][a-z0-9_-]*$",
            )
        return name, ok

    def _description(self, draft: ToolDraft) -> str | None | _Reported:
        """The tool's description, ``None`` without one, ``_REPORTED`` when it is unreadable."""
        found = self.setting(draft, "description")
        if found is not None:
            text = self.text(found[0], found[1], "a tool's description")
            return _REPORTED if text is None else text
        if draft.function is not None:
            return parse_docstring(draft.function.docstring).description or None
        return None

    def _execute(self, draft: ToolDraft) -> tuple[bool, bool]:
        """Whether the tool's ``execute`` is async, and whether the compiled tool can run it."""
        linker = self.linker
        if draft.cls is not None:
            runs, is_async = True, False
            execute = linker.class_method(draft.cls, "execute")
            if execute is None:
                linker.report(
                    "skill/missing-execute",
                    draft.module,
                    draft.pos,
                    "Tool must have an execute function",
                    hint="define `def execute(self, input, ctx)` (or `async def`)",
                )
                runs = False
            else:
                is_async = execute[1].is_async
            init = linker.class_method(draft.cls, "__init__")
            if init is not None:
                required = [
                    param.name
                    for param in init[1].params[1:]
                    if param.default is None and param.kind in ("positional_only", "normal", "keyword_only")
                ]
                if required:
                    linker.report(
                        "skill/init-requires-arguments",
                        init[0].module,
                        init[1].pos,
                        f"{draft.cls.info.name}.__init__ requires {', '.join(map(repr, required))}, but the "
                        f"compiled tool is created as {draft.cls.info.name}() with no arguments",
                        hint="give the parameters defaults, or read the values from ctx.env in execute",
                    )
                    runs = False
            return is_async, runs
        if draft.call is not None:
            execute_expr = draft.call.keyword("execute")
            if execute_expr is None or (isinstance(execute_expr, Const) and execute_expr.value is None):
                linker.report(
                    "skill/missing-execute",
                    draft.module,
                    draft.call.pos,
                    "Tool must have an execute function",
                    hint="pass execute=a_function(input, ctx)",
                )
                return False, False
            target = linker.resolve_expr(draft.module, execute_expr)
            return isinstance(target, FunctionSym) and target.info.is_async, True
        assert draft.function is not None
        runs = True
        for param in draft.function.params:
            if param.kind in ("var_positional", "var_keyword", "positional_only"):
                linker.report(
                    "skill/invalid-setting",
                    draft.module,
                    param.pos,
                    f"parameter {param.name!r} of a @tool function must be a plain or keyword-only parameter",
                )
                runs = False
        return draft.function.is_async, runs

    def _model(self, draft: ToolDraft, setting: str) -> ModelRef | None:
        found = self.setting(draft, setting)
        if found is None or (isinstance(found[1], Const) and found[1].value is None):
            return None
        module, expr = found
        symbol = self.linker.resolve_expr(module, expr)
        if isinstance(symbol, ClassSym):
            return ModelRef(symbol.module, symbol.info.name)
        if isinstance(symbol, ExternalSym):
            head, _, tail = symbol.qualname.rpartition(".")
            return ModelRef(head, tail)
        self.linker.report(
            "skill/invalid-setting" if symbol is not None else "skill/dynamic-value",
            module,
            expr.pos,
            f"{setting} must name a pydantic model class",
            hint=f"set {setting} = SomeModel, a class deriving from pydantic.BaseModel",
        )
        return None

    def _settings(self, draft: ToolDraft) -> SettingValues | None:
        """Every row of the settings table as the tool sets it, or ``None`` after reporting a value that cannot work."""
        given: dict[str, object] = {}
        ok = True
        for setting in SETTINGS:
            found = self.setting(draft, setting.name)
            if found is None:
                continue
            module, expr = found
            value = self._setting_value(setting, module, expr)
            if isinstance(value, _Reported):
                ok = False
                continue
            given[setting.name] = value
        return SettingValues.read(given) if ok else None

    def _setting_value(self, setting: Setting[Any], module: str, expr: Expr) -> object:
        """The plain value of one setting written as ``expr``, or ``_REPORTED`` after saying why it cannot work.

        A literal (or a constant bound to one) is checked by the setting's rule; a setting
        with a flag enum also takes members of that enum combined with ``|``.
        """
        if setting.flags is not None:
            members = self._flag_members(setting.flags, module, expr)
            if members is not None:
                return setting.plain(functools.reduce(operator.or_, members, setting.flags(0)))
        try:
            value = self.values.value(module, expr)
        except Unsupported:
            if setting.flags is not None:
                self.linker.report(
                    "skill/invalid-setting", module, expr.pos, f"{setting.name} must be {setting.expected}"
                )
                return _REPORTED
            self.linker.report(
                "skill/dynamic-value",
                module,
                expr.pos,
                f"{setting.name} must be a literal or a module-level constant bound to one",
                hint="the compiler reads settings without running your code",
            )
            return _REPORTED
        try:
            return setting.plain(value)
        except InvalidSetting as error:
            self.linker.report("skill/invalid-setting", module, expr.pos, f"{error}, not {value!r}")
            return _REPORTED

    def _flag_members(self, flags: type[enum.Flag], module: str, expr: Expr) -> list[enum.Flag] | None:
        """The members of ``flags`` that ``expr`` combines with ``|``, or ``None`` when it is anything else."""
        prefix = f"skillc.{flags.__name__}."
        if isinstance(expr, BinOp) and expr.op == "|":
            left = self._flag_members(flags, module, expr.left)
            right = self._flag_members(flags, module, expr.right)
            return None if left is None or right is None else left + right
        symbol = self.linker.resolve_expr(module, expr)
        if isinstance(symbol, ExternalSym) and symbol.qualname.startswith(prefix):
            member = flags.__members__.get(symbol.qualname.removeprefix(prefix))
            if member is not None:
                return [member]
        return None

    def _has_condition(self, draft: ToolDraft) -> bool:
        if draft.cls is not None:
            return self.linker.class_method(draft.cls, "condition") is not None
        found = self.setting(draft, "condition")
        return found is not None and not (isinstance(found[1], Const) and found[1].value is None)
