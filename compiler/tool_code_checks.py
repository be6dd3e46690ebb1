"""Whether a tool's code can be called as the runtime calls it, and returns what it needs.

The runtime calls ``execute(input, ctx)``, a ``needs_approval`` function with the same two
arguments and ``condition()`` with none (``call_shapes``), once each, and uses what the call
returns; it runs a tool with the settings it was compiled with.  ``ToolCodeChecks`` reports,
before anything runs, each definition for which that would fail when the tool is called:

- ``skill/call-signature``: Python cannot make the call (``execute(self, input)``, a
  required extra parameter, ``condition(self, ctx)``);
- ``skill/generator-function``: the function yields, so the call returns a generator;
- ``skill/unawaited-coroutine``: the function is an ``async def`` that returns a coroutine
  it did not await (``return fetch(url)``, ``fetch`` an ``async def``): the runtime awaits
  the call once and gets that coroutine, which is no result (``execute``), no ``True`` or
  ``False`` (``needs_approval``: approval is asked every time; ``condition()``: the tool is
  never offered);
- ``skill/dynamic-value``: a method assigns one of the tool's settings (``self.timeout = 5``),
  which the compiled tool, made from the class attributes, would not have;
- ``skill/unknown-attribute``: ``execute`` (or ``needs_approval``) reads an attribute of its
  input that the input model has no field, attribute or method for (``input.ordr_id``;
  ``model_members`` says when the model is known whole), or of its context that
  ``ToolContext`` does not have (``ctx.usr``); or a tool class's ``execute``,
  ``needs_approval`` or ``condition()``, or any method of a tool class no project class
  derives from, reads one of ``self`` that the tool has not (``self.nmae``;
  ``tool_members`` says when the class is known whole): every call that gets there raises
  ``AttributeError``;
- ``skill/input-type``: a tool class's ``execute`` (or ``needs_approval``) annotates its
  input parameter with a type the runtime never passes there: a ``str``, ``int``... (a
  LangChain ``_run(self, file_path: str)`` takes the fields one by one; ``execute`` takes the
  input model's instance), ``dict`` when the tool has an input model, or another project class
  that the input model does not derive from;
- ``skill/result-type``: ``execute`` (or a ``@tool`` function) is annotated to return another
  project model than the output model, lacking a field the output model requires: the runtime
  validates the result against the output model, so every call fails;
- ``skill/unserializable-result``: ``execute`` (or a ``@tool`` function) is annotated to return
  an instance of a plain project class (or ``list[Profile]``, ``Profile | None``...), which
  pydantic cannot make JSON: a class whose
  every base is a project class (or ``object``), with no decorator and no
  ``__get_pydantic_core_schema__`` along them (a model, a dataclass, a ``TypedDict``, an
  enum all have one of those, as has any class deriving from an installed one), and from
  which no project class derives.
"""

from __future__ import annotations

import difflib

from ..contracts.settings import NEEDS_APPROVAL, SETTINGS
from ..contracts.spec import TOOL_CONTEXT_MEMBERS
from .call_shapes import CONDITION, EXECUTE, NEEDS_APPROVAL_CALL, POSITIONAL, CallShape, refusal
from .index_loop_calls import LOOP_GETTERS
from .index_types import BinOp, Const, Expr, FunctionInfo, Ref, Subscript
from .loop_calls_check import names_asyncio
from .model_members import model_fields, model_members
from .resolve import Linker
from .schema_types import BASE_MODEL_MEMBERS
from .symbols import ClassSym, ExternalSym, FunctionSym
from .tool_drafts import ToolDraft, setting_of
from .tool_members import tool_members
from .tool_settings import CLASS_ATTRIBUTES
from .types import ModelRef
from .unawaited_calls_check import calls_coroutine_function

__all__ = ["ToolCodeChecks"]

#: What the runtime makes of a coroutine where it expects each call's value.
_WHAT_A_COROUTINE_DOES = {
    EXECUTE.name: "which is no result it can send: every call fails",
    NEEDS_APPROVAL_CALL.name: "which is neither True nor False: every call asks for approval",
    CONDITION.name: "which is neither True nor False: the tool is never offered",
}

#: How many of the input model's fields a hint lists.
_FIELDS_SHOWN = 12
#: Builtin types the runtime never passes as a tool's input: it passes the input model's
#: instance, or the arguments' ``dict`` for a tool without one.
_NEVER_INPUT = frozenset({"str", "int", "float", "complex", "bool", "bytes", "list", "tuple", "set", "frozenset"})
_CONTEXT_HINT = "a ToolContext has: " + ", ".join(sorted(TOOL_CONTEXT_MEMBERS))
#: The attributes of a tool class that the compiled tool is made from.
_COMPILED_ATTRIBUTES = frozenset({*CLASS_ATTRIBUTES, "execute", *(setting.name for setting in SETTINGS)})


class ToolCodeChecks:
    """Reports, through the linker, the tool code the runtime could not call or use (see the module docstring).

    Each check returns whether the definition passed it.
    """

    def __init__(self, linker: Linker) -> None:
        self.linker = linker

    def settings_stay_as_compiled(self, draft: ToolDraft) -> bool:
        """Whether no method of a tool class assigns one of its settings (``self.timeout = 5``), reported when one does.

        The compiled tool is what its class attributes say: a schema, a description or a
        setting assigned when the tool runs would not be the one the model is shown, or the
        runtime applies.
        """
        if draft.cls is None:
            return True
        stays = True
        for item in self.linker.mro(draft.cls):
            if not isinstance(item, ClassSym):
                continue
            for name, pos in item.info.self_assignments:
                if name not in _COMPILED_ATTRIBUTES:
                    continue
                self.linker.report(
                    "skill/dynamic-value",
                    item.module,
                    pos,
                    f"{item.info.name} assigns self.{name} when it runs, but a tool is compiled from its class "
                    f"attributes: the {name} the model is shown and the runtime applies would not be this one",
                    hint=f"set {name} in the class body, as a literal or a module-level constant",
                )
                stays = False
        return stays

    def condition_function(self, module: str, expr: Expr) -> None:
        """Report a skill's ``condition=`` function that the runtime cannot call as ``condition()``."""
        target = self.linker.resolve_expr(module, expr)
        if isinstance(target, FunctionSym):
            self.takes_the_call(target, target.info, CONDITION)

    def callable_as_called(self, draft: ToolDraft) -> bool:
        """Whether the tool's ``condition()`` and ``needs_approval`` function take what the runtime passes them."""
        takes = True
        for shape, attribute in ((CONDITION, "condition"), (NEEDS_APPROVAL_CALL, NEEDS_APPROVAL.name)):
            if draft.cls is not None:
                method = self.linker.class_method(draft.cls, attribute)
                if method is not None:
                    takes &= self.takes_the_call(method[0], method[1], shape)
                continue
            found = setting_of(self.linker, draft, attribute)
            target = self.linker.resolve_expr(found[0], found[1]) if found is not None else None
            if isinstance(target, FunctionSym):
                takes &= self.takes_the_call(target, target.info, shape)
        return takes

    def takes_the_call(self, owner: ClassSym | FunctionSym, function: FunctionInfo, shape: CallShape) -> bool:
        """Whether the runtime's call of ``function`` returns something it can use; each reason it would not is reported.

        ``skill/call-signature``: Python cannot call it as the runtime does.  ``skill/generator-function``:
        it yields, so the call returns a generator.  ``owner`` is the class that defines the
        method ``function``, or the function's own symbol.
        """
        method = isinstance(owner, ClassSym)
        label = f"{owner.info.name}.{function.name}()" if method else f"{function.name}()"
        takes = self.generator_reported(owner.module, function, label, shape.name)
        qualname = f"{owner.qualname}.{function.name}" if isinstance(owner, ClassSym) else function.name
        takes &= self.awaits_what_it_returns(owner.module, qualname, function, label, shape)
        takes &= self.needs_no_loop(owner.module, qualname, function, label)
        if shape is EXECUTE:
            takes &= self.result_serializable(owner.module, function, label)
        why = refusal(function, shape, method=method)
        if why is None:
            return takes
        hint = (
            "read the call's context with ToolContext.current() inside condition()"
            if shape is CONDITION
            else f"define it as `def {shape.name}(self, input, ctx)` on a class, or `def {shape.name}(input, ctx)`: "
            "input is the validated input model (a @tool function's parameters as its fields), ctx the ToolContext"
        )
        self.linker.report(
            "skill/call-signature", owner.module, function.pos, f"{label} cannot be called: {why}", hint=hint
        )
        return False

    def needs_no_loop(self, module: str, qualname: str, function: FunctionInfo, label: str) -> bool:
        """Whether a sync function the runtime runs in a worker thread (``qualname`` in ``module``) looks up
        no event loop there, reported where it does (``index_loop_calls``)."""
        if function.is_async:
            return True
        free = True
        for where, name, shown, pos in self.linker.modules[module].thread_loop_lookups:
            if where != qualname or not names_asyncio(self.linker, module, name, LOOP_GETTERS):
                continue
            self.linker.report(
                "skill/event-loop-in-thread",
                module,
                pos,
                f"{label} calls {shown}, but the runtime runs a sync {label} in a worker thread, which has no event "
                "loop: asyncio raises RuntimeError every time",
                hint="run a coroutine with asyncio.run(...) (a worker thread may start a loop of its own), or make it "
                "an async def and await it",
            )
            free = False
        return free

    def awaits_what_it_returns(
        self, module: str, qualname: str, function: FunctionInfo, label: str, shape: CallShape
    ) -> bool:
        """Whether an ``async def`` the runtime calls (``qualname`` in ``module``) returns no coroutine it
        did not await, reported where it does."""
        if not function.is_async:
            return True
        awaits = True
        for call in self.linker.modules[module].unawaited_calls:
            if not call.returned or call.function != qualname:
                continue
            if not calls_coroutine_function(self.linker, module, call):
                continue
            shown = f"self.{call.callee}" if call.owner is not None else call.callee
            self.linker.report(
                "skill/unawaited-coroutine",
                module,
                call.pos,
                f"{label} returns {shown}(...) without awaiting it: the runtime awaits {label} once and gets "
                f"the coroutine {shown} makes, {_WHAT_A_COROUTINE_DOES[shape.name]}",
                hint=f"return await {shown}(...)",
            )
            awaits = False
        return awaits

    def call_reads_exist(self, draft: ToolDraft, model: ModelRef | None) -> None:
        """Report each attribute a tool's code reads of its input or its context that it does not have.

        A tool class's ``execute(self, input, ctx)`` and ``needs_approval(self, input, ctx)`` are
        checked against ``model`` (when the sources say all it has: ``model_members``) and
        ``ToolContext``; a ``@tool`` function's parameters are its input's fields, so only the
        one annotated ``ToolContext`` is checked.
        """
        if draft.cls is not None:
            # The methods the runtime calls; and, when no project class may derive from the tool's,
            # every method of its own, whose self is then always an instance of it.
            names = (EXECUTE.name, NEEDS_APPROVAL.name, CONDITION.name)
            called = [self.linker.class_method(draft.cls, name) for name in names]
            own = (
                []
                if self.linker.possible_subclasses(draft.cls)
                else [(draft.cls, item) for item in draft.cls.info.methods]
            )
            seen: set[tuple[tuple[str, str], str]] = set()
            for owner, function in [*(item for item in called if item is not None), *own]:
                if (owner.key, function.name) not in seen:
                    seen.add((owner.key, function.name))
                    self._self_reads_exist(draft.cls, owner, function)
            for name in ("execute", NEEDS_APPROVAL.name):
                method = self.linker.class_method(draft.cls, name)
                if method is None:
                    continue
                owner, function = method
                self._input_type_fits(owner, function, model)
                positional = [param.name for param in function.params[1:] if param.kind in POSITIONAL]
                self._reads_exist(
                    owner.module,
                    f"{owner.qualname}.{function.name}",
                    f"{owner.info.name}.{function.name}()",
                    (positional[0] if positional else None, model),
                    positional[1:2],
                )
        elif draft.function is not None:
            function, module = draft.function, draft.module
            context = [
                param.name for param in function.params if self.linker.is_sdk(module, param.annotation, "ToolContext")
            ]
            self._reads_exist(module, function.name, f"{function.name}()", (None, None), context)
            self._approval_reads_exist(draft, function, context)

    def _approval_reads_exist(self, draft: ToolDraft, function: FunctionInfo, context: list[str]) -> None:
        """Report the reads of a ``@tool`` function's ``needs_approval`` function (a module-level one) of an
        attribute its input, the model made of the tool's parameters, does not have (``input.get(...)``)."""
        found = setting_of(self.linker, draft, NEEDS_APPROVAL.name)
        target = self.linker.resolve_expr(found[0], found[1]) if found is not None else None
        if not isinstance(target, FunctionSym) or target.info.decorators:
            return
        positional = [param.name for param in target.info.params if param.kind in POSITIONAL]
        fields = [
            param.name
            for param in function.params
            if param.name not in context and param.kind in (*POSITIONAL, "keyword_only")
        ]
        if not positional or any(param.kind == "var_keyword" for param in function.params):
            return
        reads = [
            read
            for read in self.linker.modules[target.module].parameter_reads
            if read.function == target.info.name and read.parameter == positional[0]
        ]
        for read in reads:
            if read.attribute in fields or read.attribute in BASE_MODEL_MEMBERS:
                continue
            similar = difflib.get_close_matches(read.attribute, fields, n=1, cutoff=0.7)
            self.linker.report(
                "skill/unknown-attribute",
                target.module,
                read.pos,
                f"{target.info.name}() reads {read.parameter}.{read.attribute}, but the runtime calls it as "
                f"needs_approval(input, ctx) of the tool {function.name}, whose input is a pydantic model of its "
                f"parameters (not a dict), with no attribute {read.attribute}: every call that gets there raises "
                "AttributeError, and approval is asked for",
                hint=f"did you mean {read.parameter}.{similar[0]}?"
                if similar
                else (f"its fields are: {_listed(fields)}" if fields else f"{function.name} takes no parameters"),
            )

    def _self_reads_exist(self, cls: ClassSym, owner: ClassSym, function: FunctionInfo) -> None:
        """Report each attribute a method of the tool class ``cls`` (``owner`` defines it) reads of ``self``
        that an instance of ``cls`` does not have (``tool_members`` says when the class is known whole)."""
        params = function.params
        if function.decorators or not params or params[0].kind not in POSITIONAL:
            return
        qualname = f"{owner.qualname}.{function.name}"
        instance = params[0].name
        reads = [
            read
            for read in self.linker.modules[owner.module].parameter_reads
            if read.function == qualname and read.parameter == instance
        ]
        members = tool_members(self.linker, cls) if reads else None
        if members is None:
            return
        public = sorted(name for name in members if not name.startswith("_"))
        for read in reads:
            if read.attribute in members:
                continue
            similar = difflib.get_close_matches(read.attribute, public, n=1, cutoff=0.7)
            self.linker.report(
                "skill/unknown-attribute",
                owner.module,
                read.pos,
                f"{owner.info.name}.{function.name}() reads {instance}.{read.attribute}, but {cls.info.name} has no "
                f"attribute {read.attribute} (neither its class nor skillc.Tool defines it, and no method sets it): "
                "every call that gets there raises AttributeError",
                hint=f"did you mean {instance}.{similar[0]}?"
                if similar
                else f"define {read.attribute} in {cls.info.name}, or set {instance}.{read.attribute} in a method",
            )

    def _input_type_fits(self, owner: ClassSym, function: FunctionInfo, model: ModelRef | None) -> None:
        """Report an input parameter of ``function`` (a method ``owner`` defines) annotated with a type
        the runtime never passes there: it passes an instance of ``model``, or a ``dict`` without one."""
        parameters = [param for param in function.params[1:] if param.kind in POSITIONAL]
        if not parameters or parameters[0].annotation is None:
            return
        param, module = parameters[0], owner.module
        annotated = self.linker.resolve_expr(module, _without_none(self.linker, module, parameters[0].annotation))
        passed = self.linker.resolve_ref(model.module, model.qualname) if model is not None else None
        if isinstance(annotated, ExternalSym) and annotated.qualname.startswith("builtins."):
            name = annotated.qualname.removeprefix("builtins.")
            if name not in _NEVER_INPUT and not (name == "dict" and model is not None):
                return
        elif isinstance(annotated, ClassSym) and isinstance(passed, ClassSym):
            if annotated in self.linker.mro(passed):
                return
            name = annotated.info.name
        else:
            return
        label = f"{owner.info.name}.{function.name}()"
        if isinstance(passed, ClassSym):
            given = f"an instance of its input model {passed.info.name}"
            fields = model_fields(self.linker, passed)
            if param.name in fields:  # LangChain's _run takes each field as an argument
                hint = (
                    f"take the model, `def {function.name}(self, input: {passed.info.name}, ctx)`, and read "
                    f"input.{param.name}"
                )
            else:
                reads = f" and read its fields ({param.name}.{fields[0]})" if fields else ""
                hint = f"annotate it `{param.name}: {passed.info.name}`{reads}"
        elif model is not None:
            given, hint = (
                f"an instance of its input model {model.qualname}",
                f"annotate it `{param.name}: {model.qualname}`",
            )
        else:
            given = "the arguments as a dict (the tool has no input_schema)"
            hint = f"annotate it `{param.name}: dict`, or set an input_schema"
        self.linker.report(
            "skill/input-type",
            module,
            param.pos,
            f"{label} takes `{param.name}: {name}`, but the runtime calls {function.name}(input, ctx) with {given}, "
            f"never a {name}",
            hint=hint,
        )

    def _reads_exist(
        self, module: str, qualname: str, label: str, given: tuple[str | None, ModelRef | None], context: list[str]
    ) -> None:
        """Report the reads by the function ``qualname`` of ``module`` of an attribute its context
        parameters, or its input parameter (``given``: its name, and its model), do not have."""
        reads = [read for read in self.linker.modules[module].parameter_reads if read.function == qualname]
        for read in reads:
            if read.parameter in context and read.attribute not in TOOL_CONTEXT_MEMBERS:
                similar = difflib.get_close_matches(read.attribute, sorted(TOOL_CONTEXT_MEMBERS), n=1, cutoff=0.7)
                self.linker.report(
                    "skill/unknown-attribute",
                    module,
                    read.pos,
                    f"{label} reads {read.parameter}.{read.attribute}, but the ToolContext a tool is called with has "
                    f"no attribute {read.attribute}: every call that gets there raises AttributeError",
                    hint=f"did you mean {read.parameter}.{similar[0]}?" if similar else _CONTEXT_HINT,
                )
        input_name, model = given
        input_reads = [read for read in reads if read.parameter == input_name]
        symbol = self.linker.resolve_ref(model.module, model.qualname) if model is not None and input_reads else None
        members = model_members(self.linker, symbol) if isinstance(symbol, ClassSym) else None
        if not isinstance(symbol, ClassSym) or members is None:
            return
        unknown = [read for read in input_reads if read.attribute not in members]
        fields = model_fields(self.linker, symbol) if unknown else []
        for read in unknown:
            similar = difflib.get_close_matches(read.attribute, fields or sorted(members), n=1, cutoff=0.7)
            self.linker.report(
                "skill/unknown-attribute",
                module,
                read.pos,
                f"{label} reads {read.parameter}.{read.attribute}, but its input model {symbol.info.name} has no "
                f"field or attribute {read.attribute}: every call that gets there raises AttributeError",
                hint=f"did you mean {read.parameter}.{similar[0]}?"
                if similar
                else (
                    f"the fields of {symbol.info.name} are: {_listed(fields)}"
                    if fields
                    else f"{symbol.info.name} has no fields"
                ),
            )

    def result_serializable(self, module: str, function: FunctionInfo, label: str) -> bool:
        """Whether what ``function`` is annotated to return can be sent to the model (reported when not).

        The annotation itself, or a class inside it (``list[Profile]``, ``Profile | None``):
        a call that returns one of those instances fails.
        """
        found = _plain_in(self.linker, module, function.returns)
        if found is None:
            return True
        ref, cls = found
        whole = isinstance(function.returns, Ref)
        name = cls.qualname
        self.linker.report(
            "skill/unserializable-result",
            module,
            ref.pos,
            f"{label} returns {'a ' + name if whole else 'instances of ' + name}, a plain class whose instances "
            f"pydantic cannot make JSON: {'every call' if whole else 'a call that returns one'} would fail with "
            "a serialization error",
            hint=f"make {name} a pydantic model or a @dataclass (or return a dict): the runtime sends the "
            "result as JSON",
        )
        return False

    def result_fits_output(self, draft: ToolDraft, model: ModelRef) -> bool:
        """Whether what ``execute`` (or the ``@tool`` function) is annotated to return can pass the output
        model's validation: reported when it is another project model that lacks a field the output model
        requires (the runtime validates the result from its attributes, and every call would fail)."""
        if draft.cls is not None:
            method = self.linker.class_method(draft.cls, "execute")
            if method is None:
                return True
            module, function, label = method[0].module, method[1], f"{method[0].info.name}.execute()"
        elif draft.function is not None:
            module, function, label = draft.module, draft.function, f"{draft.function.name}()"
        else:
            return True
        returns = _without_none(self.linker, module, function.returns) if function.returns is not None else None
        returned = self.linker.resolve_expr(module, returns) if isinstance(returns, Ref) else None
        expected = self.linker.resolve_ref(model.module, model.qualname)
        if (
            not isinstance(returned, ClassSym)
            or not isinstance(expected, ClassSym)
            or expected in self.linker.mro(returned)
        ):
            return True
        members = model_members(self.linker, returned)
        if members is None:
            return True
        missing = [name for name in _required_fields(self.linker, expected) if name not in members]
        if not missing:
            return True
        assert returns is not None
        shown = _listed(missing)
        self.linker.report(
            "skill/result-type",
            module,
            returns.pos,
            f"{label} is annotated to return {returned.info.name}, but the output model {expected.info.name} "
            f"requires {shown}, which {returned.info.name} has not: the runtime validates the result against "
            "the output model, and every call would fail with output_validation",
            hint=f"return a {expected.info.name}, or set output_schema to {returned.info.name}",
        )
        return False

    def generator_reported(self, module: str, function: FunctionInfo, label: str, role: str) -> bool:
        """Report a ``function`` whose body yields (``skill/generator-function``); whether it does not."""
        if function.yields_at is None:
            return True
        made = "an async generator" if function.is_async else "a generator"
        self.linker.report(
            "skill/generator-function",
            module,
            function.yields_at,
            f"{label} yields, so calling it makes {made}: the runtime calls {role} once and needs its "
            "whole result, which it cannot take from a generator",
            hint="collect the items and return them (a list, say) instead of yielding them",
        )
        return False


def _plain_class(linker: Linker, cls: ClassSym) -> bool:
    """Whether ``cls`` and its bases are project classes (and ``object``) that nothing makes
    serializable (no decorator, no ``__get_pydantic_core_schema__``), and no project class
    derives from it (an instance of a dataclass deriving from it could be returned)."""
    for item in linker.mro(cls):
        if isinstance(item, ExternalSym):
            if item.qualname != "builtins.object":
                return False
            continue
        if item.info.decorators or item.info.method("__get_pydantic_core_schema__") is not None:
            return False
    for module, index in linker.modules.items():
        pending = [ClassSym(module, info) for info in index.classes]
        while pending:
            other = pending.pop()
            pending.extend(ClassSym(module, info, other.qualname) for info in other.info.classes)
            if other.key != cls.key and cls in linker.mro(other):
                return False
    return True


def _plain_in(linker: Linker, module: str, annotation: Expr | None) -> tuple[Ref, ClassSym] | None:
    """The first name in ``annotation`` (outside quotes) that means a plain class (``_plain_class``)."""
    pending = [annotation]
    while pending:
        expr = pending.pop(0)
        if isinstance(expr, Ref):
            symbol = linker.resolve_expr(module, expr)
            if isinstance(symbol, ClassSym) and _plain_class(linker, symbol):
                return expr, symbol
        elif isinstance(expr, Subscript):
            pending.extend(expr.items)
        elif isinstance(expr, BinOp):
            pending.extend((expr.left, expr.right))
    return None


def _without_none(linker: Linker, module: str, annotation: Expr) -> Expr:
    """``X`` for ``X | None``, ``None | X`` and ``Optional[X]``; else ``annotation`` itself."""
    if isinstance(annotation, BinOp) and annotation.op == "|":
        sides = [side for side in (annotation.left, annotation.right) if not _is_none(side)]
        return sides[0] if len(sides) == 1 else annotation
    if isinstance(annotation, Subscript) and len(annotation.items) == 1:
        optional = linker.resolve_expr(module, annotation.value)
        if isinstance(optional, ExternalSym) and optional.qualname in ("typing.Optional", "typing_extensions.Optional"):
            return annotation.items[0]
    return annotation


def _is_none(expr: Expr) -> bool:
    return isinstance(expr, Const) and expr.value is None


def _required_fields(linker: Linker, model: ClassSym) -> list[str]:
    """The fields of ``model``'s project classes that have no default (annotated, no value; not a ``ClassVar``)."""
    fields: list[str] = []
    for item in reversed(linker.mro(model)):
        if not isinstance(item, ClassSym):
            continue
        for binding in item.info.attributes:
            annotation = binding.annotation
            if annotation is None or binding.name.startswith("_"):
                continue
            head = annotation.value if isinstance(annotation, Subscript) else annotation
            if linker.external_name(item.module, head) in ("typing.ClassVar", "typing_extensions.ClassVar"):
                continue
            if binding.value is None and binding.name not in fields:
                fields.append(binding.name)
            elif binding.value is not None and binding.name in fields:
                fields.remove(binding.name)  # a subclass gives it a default
    return fields


def _listed(names: list[str]) -> str:
    """``a, b, c, ...``: the first ``_FIELDS_SHOWN`` names, for a hint."""
    return ", ".join(names[:_FIELDS_SHOWN]) + (", ..." if len(names) > _FIELDS_SHOWN else "")
