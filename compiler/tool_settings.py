"""Read a tool's settings, every row of the settings table, as the SDK would take them.

Each value is read statically (a literal, a module-level constant bound to one, members of
a flag enum combined with ``|``, or a function for a setting decided per call) and checked
by its row's rule, so a value the SDK would refuse is reported before anything runs, in
the words the SDK would use.  A keyword the SDK does not take is an error too.
"""

from __future__ import annotations

import difflib
import enum
import functools
import operator
from collections.abc import Sequence
from typing import Any, Final

from ..contracts.settings import PER_CALL, SETTINGS, STRICT, InvalidSetting, Setting, SettingValues
from .config import STRICT_MODES
from .evaluate import Evaluator, Unsupported
from .index_types import BinOp, Call, Dynamic, Expr
from .resolve import Linker
from .symbols import ExternalSym, FunctionSym
from .tool_drafts import ToolDraft, function_decorator, setting_of

__all__ = ["CLASS_ATTRIBUTES", "FOREIGN_ATTRIBUTES", "REPORTED", "Reported", "SettingsReader"]


#: What ``Tool(...)`` and ``@tool(...)`` accept besides the settings of the table, as the SDK's signatures say.
_OBJECT_KEYWORDS: Final = ("name", "description", "input_schema", "execute", "condition", "output_schema")
_DECORATOR_KEYWORDS: Final = ("name", "description", "condition", "output_schema")
#: The class attributes a tool class reads, besides the settings.
CLASS_ATTRIBUTES: Final = ("name", "description", "input_schema", "output_schema", "condition")
#: Other frameworks' names for a tool class's settings, which skillc does not read: by name,
#: the setting meant and whose name it is.
FOREIGN_ATTRIBUTES: Final = {
    "args_schema": ("input_schema", "LangChain"),
    "params_json_schema": ("input_schema", "the OpenAI Agents SDK"),
}


def _closest(name: str, known: Sequence[str]) -> str:
    """A hint naming the known keyword ``name`` was probably meant to be, or listing them all."""
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if close:
        return f"did you mean {close[0]!r}?"
    return "the keywords are " + ", ".join(known)


class Reported:
    """A setting that is given but unusable, whose diagnostic is already reported."""


REPORTED: Final = Reported()


class SettingsReader:
    """Reads and checks the settings of tool definitions, reporting through the linker."""

    def __init__(self, linker: Linker, values: Evaluator) -> None:
        self.linker = linker
        self.values = values

    def keywords_known(self, draft: ToolDraft) -> bool:
        """Whether every keyword of ``Tool(...)`` or ``@tool(...)`` is one the SDK takes (reported when not).

        The SDK would raise ``TypeError`` when the bundle is imported.  A class attribute is the
        author's own, unless its name is so close to a setting's that it is probably a
        misspelling (a warning: Python accepts it, and the setting keeps its default).
        """
        settings = [setting.name for setting in SETTINGS]
        if draft.cls is not None:
            known = [*CLASS_ATTRIBUTES, *settings]
            for binding in draft.cls.info.attributes:
                if binding.name in known or binding.name.startswith("_"):
                    continue
                if binding.name in FOREIGN_ATTRIBUTES:
                    meant, whose = FOREIGN_ATTRIBUTES[binding.name]
                    self.linker.report(
                        "skill/foreign-setting",
                        draft.module,
                        binding.pos,
                        f"{binding.name} is {whose}'s name for {meant}, which skillc does not read: "
                        f"tool class {draft.cls.info.name} would keep its default {meant}",
                        hint=f"rename {binding.name} to {meant}",
                    )
                    continue
                close = difflib.get_close_matches(binding.name, known, n=1, cutoff=0.8)
                if close:
                    self.linker.report(
                        "skill/misspelled-setting",
                        draft.module,
                        binding.pos,
                        f"class attribute {binding.name!r} of tool class {draft.cls.info.name} is not a setting, "
                        f"so {close[0]!r} keeps its default",
                        hint=f"did you mean {close[0]!r}?",
                    )
            return True
        if draft.call is not None:
            call, label, known = draft.call, "Tool(...)", [*_OBJECT_KEYWORDS, *settings]
        else:
            decorator = function_decorator(self.linker, draft)
            if not isinstance(decorator, Call):
                return True
            call, label, known = decorator, "@tool(...)", [*_DECORATOR_KEYWORDS, *settings]
        ok = True
        for keyword, value in call.kwargs:
            if keyword not in known:
                self.linker.report(
                    "skill/unknown-setting",
                    draft.module,
                    value.pos,
                    f"{label} got an unexpected keyword argument {keyword!r}; the bundle would fail to import",
                    hint=_closest(keyword, known),
                )
                ok = False
        return ok

    def settings(self, draft: ToolDraft) -> SettingValues | None:
        """Every row of the settings table as the tool sets it, or ``None`` after reporting a value that cannot work.

        A row the tool does not set takes the project's ``[tool.skill.defaults]`` value, else the
        row's default; ``[tool.skill.chat] strict = "all"`` (or ``"none"``) makes every tool strict
        (or none), whatever it sets, so that ``tool.json`` holds what ``skill chat`` sends.
        """
        config = self.linker.config
        given: dict[str, object] = dict(config.defaults)
        ok = True
        for setting in SETTINGS:
            if setting.per_call and draft.cls is not None and self.linker.class_method(draft.cls, setting.name):
                given[setting.name] = PER_CALL  # a method decides on each call
                continue
            found = setting_of(self.linker, draft, setting.name)
            if found is None:
                continue
            module, expr = found
            value = self._setting_value(setting, module, expr)
            if isinstance(value, Reported):
                ok = False
                continue
            given[setting.name] = value
        mode = config.chat.get("strict", STRICT_MODES[0])
        if mode != STRICT_MODES[0]:
            given[STRICT.name] = mode == "all"
        return SettingValues.read(given) if ok else None

    def _setting_value(self, setting: Setting[Any], module: str, expr: Expr) -> object:
        """The plain value of one setting written as ``expr``, or ``REPORTED`` after saying why it cannot work.

        A literal (or a constant bound to one) is checked by the setting's rule; a setting
        with a flag enum also takes members of that enum combined with ``|``.
        """
        if setting.per_call and (
            (isinstance(expr, Dynamic) and expr.kind == "Lambda")
            or isinstance(self.linker.resolve_expr(module, expr), FunctionSym)
        ):
            return PER_CALL
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
                return REPORTED
            self.linker.report(
                "skill/dynamic-value",
                module,
                expr.pos,
                f"{setting.name} must be a literal or a module-level constant bound to one",
                hint="the compiler reads settings without running your code",
            )
            return REPORTED
        try:
            return setting.plain(value)
        except InvalidSetting as error:
            self.linker.report("skill/invalid-setting", module, expr.pos, f"{error}, not {value!r}")
            return REPORTED

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
