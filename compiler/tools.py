"""Read one tool's definition, in any of the three forms, into a ``ToolInfo``.

A tool is a class deriving from ``skillc.Tool`` (its settings are class attributes,
along its bases), a ``@tool`` function (settings are the decorator's keywords) or a
``Tool(...)`` object (settings are the call's keywords).  Each setting must be a literal
or a module-level constant bound to one, and a value the SDK would refuse is reported
here, before anything runs, in the words the SDK would use.
"""

from __future__ import annotations

import inspect

from ..contracts.docstrings import parse_docstring
from ..contracts.settings import NEEDS_APPROVAL, PER_CALL, STRICT
from ..contracts.spec import is_conventional_name, is_valid_name, reserved_name_error
from .call_shapes import EXECUTE
from .client_tools import check_client_tool, declares_client
from .decorator_checks import decorators_keep_the_tool
from .evaluate import MISSING, Evaluator, Missing, Unsupported, describe
from .index_types import Call, Const, Expr, FunctionInfo, Ref
from .resolve import Linker
from .schema_enums import enum_member
from .schema_types import generic_model, is_model
from .symbols import ClassSym, ExternalSym, FunctionSym
from .tool_code_checks import ToolCodeChecks
from .tool_drafts import ToolDraft, setting_of
from .tool_settings import FOREIGN_ATTRIBUTES, REPORTED, Reported, SettingsReader
from .types import ModelRef, Pos, Source, ToolInfo

__all__ = ["ToolReader"]

#: Other frameworks' names for a tool class's ``execute``, and whose they are.
_FOREIGN_EXECUTE = {"forward": "smolagents", "_run": "LangChain", "_arun": "LangChain"}
#: pydantic's decorator of a method that makes what an instance serializes to.
_MODEL_SERIALIZERS = frozenset({"pydantic.model_serializer", "pydantic.functional_serializers.model_serializer"})


class ToolReader:
    """Reads each tool's definition as the SDK would: a ``ToolInfo`` when it can work, a finding per problem.

    Every problem of a definition is reported, whether or not another one already keeps
    the tool from working.
    """

    def __init__(self, linker: Linker) -> None:
        self.linker = linker
        self.values = Evaluator(linker)
        self.settings = SettingsReader(linker, self.values)
        #: The checks that the tool's code can be called as the runtime calls it.
        self.code = ToolCodeChecks(linker)
        #: Tools refused only for their name (invalid or reserved): nothing else keeps them
        #: from working, so their schemas are still checked, in the same run.
        self.misnamed: list[ToolInfo] = []
        #: The first tool of each skill with each ``strict`` value, to warn when a skill mixes them.
        self._strict_seen: dict[tuple[str, bool], str] = {}

    def setting(self, draft: ToolDraft, name: str) -> tuple[str, Expr] | None:
        """Where a setting is given and its expression, for any form."""
        return setting_of(self.linker, draft, name)

    def text(
        self,
        module: str,
        expr: Expr | None,
        what: str,
        *,
        code_if_bad: str = "skill/dynamic-value",
        prose: bool = False,
    ) -> str | None:
        """A literal string setting (of a tool, skill or agent), or ``None`` after reporting why it is not one.

        ``prose`` (a description, a context, a persona) is cleaned as ``inspect.cleandoc`` cleans a
        docstring, so a triple-quoted text reaches the model without its source indentation.
        """
        if expr is None:
            return None
        try:
            value = self._enum_value(module, expr)
            if isinstance(value, Missing):
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
        return inspect.cleandoc(value) if prose else value

    def _enum_value(self, module: str, expr: Expr) -> object:
        """The value of ``SomeEnum.MEMBER.value`` (as running the code gives it), or ``MISSING`` for anything else."""
        if not isinstance(expr, Ref) or not expr.dotted.endswith(".value"):
            return MISSING
        return enum_member(self.linker, module, Ref(expr.dotted.removesuffix(".value"), expr.pos))

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
        ok = self.settings.keywords_known(draft) and ok
        named = self._name(draft, ok)
        if named is None:
            return None
        name, _ = named
        # Everything but the name decides whether the rest is checked as for a usable tool.
        misnamed = not is_valid_name(name) or reserved_name_error("tool", name) is not None
        description = self._description(draft)
        if isinstance(description, Reported):
            ok = False  # not a literal: the dynamic-value error says so
        elif not description:
            self.linker.report(
                "skill/missing-description",
                draft.module,
                draft.pos,
                f"tool {name!r} has no description, so the model cannot tell when to use it",
                hint="describe what the tool does and when to call it",
            )
        client = declares_client(self.linker, self.values, draft)
        is_async, callable_ = (False, True) if client else self._execute(draft)
        if not self.code.settings_stay_as_compiled(draft):
            callable_ = False
        if not client and not self.code.callable_as_called(draft):
            callable_ = False
        input_model = self._model(draft, "input_schema")
        output_model = self._model(draft, "output_schema")
        if output_model is not None and self._serializes_itself(draft, output_model):
            callable_ = False
        if output_model is not None and not client and not self.code.result_fits_output(draft, output_model):
            callable_ = False
        if not client:
            self.code.call_reads_exist(draft, input_model)
        foreign = draft.cls is not None and any(item.name in FOREIGN_ATTRIBUTES for item in draft.cls.info.attributes)
        if (
            draft.function is None
            and input_model is None
            and self.setting(draft, "input_schema") is None
            and not foreign
        ):
            self.linker.report(
                "skill/missing-input-schema",
                draft.module,
                draft.pos,
                "Tool should have an input_schema for type safety",
                hint="set input_schema to a pydantic model; the model's arguments are validated against it"
                + (
                    ", or write the tool as a @tool function, whose parameters are its input"
                    if draft.cls is not None
                    else ""
                ),
            )
        settings = self.settings.settings(draft)
        if client:
            per_call = settings is not None and settings[NEEDS_APPROVAL] == PER_CALL
            callable_ = check_client_tool(self.linker, draft, name, approval_per_call=per_call)
        if settings is None or not ok or not callable_:
            return None
        info = ToolInfo(
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
            init_arguments=draft.init_arguments,
            init_keywords=draft.init_keywords,
            function=draft.function.name
            if draft.function is not None and draft.function.name != draft.qualname
            else None,
        )
        self._check_strict_mix(draft, info)
        if misnamed:
            self.misnamed.append(info)
            return None
        return info

    def _check_strict_mix(self, draft: ToolDraft, info: ToolInfo) -> None:
        """Warn at the first tool of a skill whose ``strict`` differs from an earlier tool's there.

        Some providers (deepseek's strict mode) refuse a request whose tools differ in
        ``strict``; ``[tool.skill.chat] strict = "all"`` or ``"none"`` sends one value for all.
        """
        strict = bool(info.settings[STRICT])
        self._strict_seen.setdefault((info.skill, strict), info.name)
        other = self._strict_seen.get((info.skill, not strict))
        if other is None or self._strict_seen[(info.skill, strict)] != info.name:
            return
        given = self.setting(draft, STRICT.name)
        module, pos = (given[0], given[1].pos) if given is not None else (draft.module, draft.pos)
        strict_one, loose_one = (info.name, other) if strict else (other, info.name)
        self.linker.report(
            "skill/mixed-strict",
            module,
            pos,
            f"skill {info.skill!r} mixes strict and non-strict tools ({strict_one!r} is strict, {loose_one!r} "
            "is not); some providers, such as deepseek in strict mode, refuse a request whose tools differ in strict",
            hint='set strict = "all" (or "none") in [tool.skill.chat] to send one value for every tool, '
            "or give the skill's tools the same strict",
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

    def _description(self, draft: ToolDraft) -> str | None | Reported:
        """The tool's description, ``None`` without one, ``REPORTED`` when it is unreadable."""
        found = self.setting(draft, "description")
        if found is not None:
            text = self.text(found[0], found[1], "a tool's description", prose=True)
            return REPORTED if text is None else text
        if draft.function is not None:
            return parse_docstring(draft.function.docstring).description or None
        return None

    def _execute(self, draft: ToolDraft) -> tuple[bool, bool]:
        """Whether the tool's ``execute`` is async, and whether the compiled tool can run it."""
        linker = self.linker
        if draft.cls is not None:
            runs, is_async = True, False
            model = is_model(linker, draft.cls)
            if model:
                linker.report(
                    "skill/tool-is-model",
                    draft.module,
                    draft.pos,
                    f"tool class {draft.cls.info.name} is also a pydantic model: pydantic takes its settings for "
                    "fields (an unannotated name = ... is refused when the module is imported, an annotated one is "
                    "no longer a class attribute), and its __init__ runs instead of Tool's, which checks the tool",
                    hint="derive the tool from Tool only; keep what the model held (root_dir, say) as class "
                    "attributes or literal constructor arguments, or keep a model as an attribute",
                )
                runs = False
            execute = linker.class_method(draft.cls, "execute")
            if execute is None:
                # A base from outside the project may define it, in code the compiler does not
                # read: then the runtime's call could not be checked, so it must be visible.
                outside = [
                    item.qualname
                    for item in linker.mro(draft.cls)
                    if isinstance(item, ExternalSym) and not item.qualname.startswith("skillc.")
                ]
                assigned = linker.class_attribute(draft.cls, "execute")
                if assigned is not None and assigned[1].value is not None:  # ``execute = run``, ``= lambda ...``
                    detail = (
                        f": {assigned[0].info.name} assigns it (execute = {describe(assigned[1].value)}), "
                        "which the compiler does not read as a method"
                    )
                    hint = "define it with `def execute(self, input, ctx):` (it may call the function assigned)"
                elif outside:
                    detail = (
                        f": {draft.cls.info.name} defines none, and the compiler does not read the code of its "
                        f"base{'s' if len(outside) > 1 else ''} from outside the project ({', '.join(outside)})"
                    )
                    hint = self._execute_hint(draft.cls, True)
                else:
                    detail, hint = "", self._execute_hint(draft.cls, False)
                linker.report(
                    "skill/missing-execute",
                    draft.module,
                    draft.pos,
                    "Tool must have an execute function" + detail,
                    hint=hint,
                )
                runs = False
            else:
                is_async = execute[1].is_async
                if not self.code.takes_the_call(execute[0], execute[1], EXECUTE):
                    runs = False
            init = linker.class_method(draft.cls, "__init__")
            registered_with = draft.init_arguments or draft.init_keywords
            # A model's __init__ is pydantic's: skill/tool-is-model said all there is to say.
            if registered_with and not model and not self._accepts(draft, init):
                runs = False
            if init is not None:
                given = {key for key, _ in draft.init_keywords}
                parameters = init[1].params[1:]
                positional = [param for param in parameters if param.kind in ("positional_only", "normal")]
                given |= {param.name for param in positional[: len(draft.init_arguments)]}
                required = [
                    param.name
                    for param in parameters
                    if param.default is None
                    and param.kind in ("positional_only", "normal", "keyword_only")
                    and param.name not in given
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
            if not isinstance(target, FunctionSym):
                return False, True
            return target.info.is_async, self.code.takes_the_call(target, target.info, EXECUTE)
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
        label = f"{draft.function.name}()"
        runs &= self.code.generator_reported(draft.module, draft.function, label, "the tool")
        runs &= self.code.awaits_what_it_returns(draft.module, draft.function.name, draft.function, label, EXECUTE)
        runs &= self.code.needs_no_loop(draft.module, draft.function.name, draft.function, label)
        runs &= self.code.result_serializable(draft.module, draft.function, label)
        runs &= decorators_keep_the_tool(linker, draft.module, draft.function)
        return draft.function.is_async, runs

    def _execute_hint(self, cls: ClassSym, outside: bool) -> str:
        """What to do about a tool class without ``execute``: name another framework's method if it has one."""
        for method, whose in _FOREIGN_EXECUTE.items():
            if self.linker.class_method(cls, method) is not None:
                return f"{method} is what {whose} calls it: rename it to `execute(self, input, ctx)`"
        if outside:
            return (
                "define `def execute(self, input, ctx)` in the class; it may call the base's: "
                "`return super().execute(input, ctx)`"
            )
        return "define `def execute(self, input, ctx)` (or `async def`)"

    def _serializes_itself(self, draft: ToolDraft, model: ModelRef) -> bool:
        """Whether the output model (a project class) sends what its own ``@model_serializer`` makes, which
        its schema (its fields) does not describe: reported, since hosts check results against it."""
        symbol = self.linker.resolve_ref(model.module, model.qualname)
        if not isinstance(symbol, ClassSym):
            return False
        for item in self.linker.mro(symbol):
            if not isinstance(item, ClassSym):
                continue
            for method in item.info.methods:
                for decorator in method.decorators:
                    target = decorator.func if isinstance(decorator, Call) else decorator
                    if self.linker.external_name(item.module, target) not in _MODEL_SERIALIZERS:
                        continue
                    found = self.setting(draft, "output_schema")
                    module, pos = (found[0], found[1].pos) if found is not None else (draft.module, draft.pos)
                    self.linker.report(
                        "skill/schema-unsupported",
                        module,
                        pos,
                        f"the output model {symbol.info.name} has a @model_serializer ({item.info.name}."
                        f"{method.name}): a result is sent as it makes it, which the output schema, made of the "
                        "model's fields, does not describe; a host that checks results against the schema (MCP's "
                        "structured content) refuses every one",
                        hint=f"drop output_schema (the result is still sent, as its serializer makes it), or "
                        f"return what {method.name} makes from execute",
                    )
                    return True
        return False

    def _nested_model(self, cls: ClassSym, setting: str) -> ModelRef | None:
        """The class a tool class's body defines under the setting's own name (``class input_schema(BaseModel):``),
        when that is what the setting is along the MRO: it binds the name as an assignment would."""
        for item in self.linker.mro(cls):
            if not isinstance(item, ClassSym):
                continue
            assigned, defined = item.info.attribute(setting), item.info.nested_class(setting)
            if defined is not None and (assigned is None or assigned.pos < defined.pos):
                return ModelRef(item.module, f"{item.qualname}.{setting}")
            if assigned is not None:
                return None
        return None

    def _accepts(self, draft: ToolDraft, init: tuple[ClassSym, FunctionInfo] | None) -> bool:
        """Whether the class's ``__init__`` takes the arguments it is registered with (reported when not)."""
        assert draft.cls is not None
        name = draft.cls.info.name
        if init is None:
            problem = f"{name} defines no __init__, and Tool's takes no arguments"
        else:
            parameters = init[1].params[1:]
            kinds = {param.kind for param in parameters}
            positional = [param for param in parameters if param.kind in ("positional_only", "normal")]
            named = {param.name for param in parameters if param.kind in ("normal", "keyword_only")}
            extra = [key for key, _ in draft.init_keywords if key not in named]
            if len(draft.init_arguments) > len(positional) and "var_positional" not in kinds:
                problem = (
                    f"{name}.__init__ takes {len(positional)} positional arguments, not {len(draft.init_arguments)}"
                )
            elif extra and "var_keyword" not in kinds:
                problem = f"{name}.__init__ has no parameter {extra[0]!r}"
            else:
                return True
        module, pos = draft.registration or (draft.module, draft.pos)
        self.linker.report(
            "skill/constructor-args-invalid",
            module,
            pos,
            f"{name}(...) is registered with arguments it does not take: {problem}",
            hint="make __init__ take them (with defaults), or register the tool as " + f"{name}()",
        )
        return False

    def _model(self, draft: ToolDraft, setting: str) -> ModelRef | None:
        nested = self._nested_model(draft.cls, setting) if draft.cls is not None else None
        if nested is not None:
            return nested
        found = self.setting(draft, setting)
        if found is None or (isinstance(found[1], Const) and found[1].value is None):
            return None
        module, expr = found
        bound = self.linker.class_attribute(draft.cls, setting) if draft.cls is not None else None
        # A class body reads its own classes first: ``input_schema = Input`` below ``class Input``.
        with self.linker.class_scope(bound[0] if bound else None, bound[1].pos if bound else expr.pos, deferred=False):
            symbol = self.linker.resolve_expr(module, expr)
        if isinstance(symbol, ClassSym):
            return ModelRef(symbol.module, symbol.qualname)
        if isinstance(symbol, ExternalSym):
            head, _, tail = symbol.qualname.rpartition(".")
            return ModelRef(head, tail)
        generic = generic_model(self.linker, module, expr)
        if generic is not None:
            self.linker.report(
                "skill/schema-unsupported",
                module,
                expr.pos,
                f"{setting} is {describe(expr)}, a parametrized generic model ({generic.qualname}), which has no "
                "name in its module for the bundle to import, and whose fields the static schema does not read",
                hint=f"name it as a class (`class {generic.info.name}Input({describe(expr)}): ...`), then build "
                'its schema by importing: [tool.skill] schema = "import" and `skill compile --allow-import`',
            )
            return None
        self.linker.report(
            "skill/invalid-setting" if symbol is not None else "skill/dynamic-value",
            module,
            expr.pos,
            f"{setting} must name a pydantic model class",
            hint=f"set {setting} = SomeModel, a class deriving from pydantic.BaseModel",
        )
        return None

    def _has_condition(self, draft: ToolDraft) -> bool:
        if draft.cls is not None:
            return self.linker.class_method(draft.cls, "condition") is not None
        found = self.setting(draft, "condition")
        return found is not None and not (isinstance(found[1], Const) and found[1].value is None)
