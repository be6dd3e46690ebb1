"""Read what each entry of ``tools=[...]`` registers, and find the tools no entry reaches.

An entry is an instance of a ``Tool`` subclass, a ``@tool`` function, a ``Tool(...)``
object, or a name bound to one of these, through the project's imports (``resolve``).
``ToolEntries.draft_of`` turns it into the ``ToolDraft`` that ``tools.ToolReader``
reads, or reports why it registers nothing; every tool an entry names is remembered,
so that ``report_unreachable`` warns only about the tools no entry names.  Every
problem is a ``Finding`` on the linker; nothing here raises for bad user code.
"""

from __future__ import annotations

import dataclasses

from .early_names_check import reports_undefined
from .evaluate import Evaluator, Unsupported, describe
from .index_types import Call, Const, Expr, FunctionInfo, ImportBinding, Ref
from .resolve import Linker
from .symbols import ClassSym, ExternalSym, FunctionSym, Symbol, UnknownSym, ValueSym
from .tool_drafts import ToolDraft, tool_decorator
from .types import Pos

__all__ = ["ToolEntries", "describe_entry"]


class ToolEntries:
    """The tools the entries of ``tools=[...]`` register, checked one entry at a time."""

    def __init__(self, linker: Linker) -> None:
        self.linker = linker
        self.values = Evaluator(linker)
        #: ``(module, qualname)`` of every tool an entry names, kept or not.
        self.registered: set[tuple[str, str]] = set()

    def draft_of(self, module: str, entry: Expr) -> ToolDraft | None:
        """What a ``tools=[...]`` entry registers, or ``None`` after reporting why nothing."""
        linker = self.linker
        if isinstance(entry, Call):
            if linker.is_sdk(module, entry.func, "Tool"):
                return ToolDraft("object", module, f"<inline tool at line {entry.pos.line}>", entry.pos, call=entry)
            symbol = linker.resolve_expr(module, entry.func)
            if isinstance(symbol, ClassSym) and linker.is_subclass(symbol, "skillc.Tool"):
                return self._configured(module, entry, symbol)
            if isinstance(symbol, ClassSym):
                linker.report(
                    "skill/unresolved-reference",
                    module,
                    entry.pos,
                    f"{symbol.info.name} does not derive from skillc.Tool, so {symbol.info.name}() is not a tool",
                    hint="derive the class from Tool (directly or through a project base class)",
                )
                return None
            if not isinstance(symbol, FunctionSym | ValueSym):
                self.unresolved(module, entry.func, symbol, entry.pos, called=True)
                return None
            inner = [arg for arg in entry.args if self.registers_tool(module, arg)]
            for arg in inner:  # listed, though wrongly: not "unreachable" on top of this error
                draft = self.draft_from_symbol(linker.resolve_expr(module, arg.func if isinstance(arg, Call) else arg))
                if draft is not None:
                    self.registered.add((draft.module, draft.qualname))
            what = f" around the tool {describe_entry(inner[0])}" if inner else ""
            linker.report(
                "skill/wrapped-tool-ref",
                module,
                entry.pos,
                f"{describe_entry(entry)} wraps the entry in a call{what}; the compiler cannot see "
                "what it returns, so it would register nothing",
                hint="list the tool itself in tools=[...]; apply wrappers inside the tool",
            )
            return None
        symbol = linker.resolve_expr(module, entry)
        draft = self.draft_from_symbol(symbol)
        if draft is not None:
            return draft
        if isinstance(symbol, ClassSym) and linker.is_subclass(symbol, "skillc.Tool"):
            self.registered.add((symbol.module, symbol.info.name))
            linker.report(
                "skill/unresolved-reference",
                module,
                entry.pos,
                f"{symbol.info.name} is a Tool class; register an instance: {symbol.info.name}()",
            )
            return None
        if symbol is None or isinstance(symbol, UnknownSym | ExternalSym):
            self.unresolved(module, entry, symbol, entry.pos, called=False)
            return None
        message = f"{describe_entry(entry)} is not a tool"
        if isinstance(symbol, FunctionSym):
            hint = "decorate it with @tool"
        elif isinstance(symbol, ValueSym) and self._calls_tool(symbol):
            message += f": it is bound to {describe(symbol.binding.value)}, a call of tool() the compiler does not read"
            hint = "decorate the function instead: @tool (or @tool(timeout=...)) on the line above its def"
        else:
            hint = "list tool instances, @tool functions or Tool(...) objects in tools=[...]"
        linker.report("skill/unresolved-reference", module, entry.pos, message, hint=hint)
        return None

    def _made_by_tool_call(self, symbol: ValueSym, call: Call) -> ToolDraft | None:
        """``lookup_tool = tool(lookup)`` or ``tool(...)(lookup)``, the call forms of ``@tool``
        (LlamaIndex's ``FunctionTool.from_defaults(fn=...)``, AutoGen's ``FunctionTool(func)``, ported):
        the tool of a function of the same module that no ``@tool`` decorates already; else ``None``."""
        linker, module = self.linker, symbol.module
        if len(call.args) != 1 or call.kwargs or call.has_star:
            return None
        maker = call.func
        if isinstance(maker, Call):
            if maker.args or maker.has_star or not linker.is_sdk(module, maker.func, "tool"):
                return None
        elif not linker.is_sdk(module, maker, "tool"):
            return None
        function = linker.resolve_expr(module, call.args[0])
        if not isinstance(function, FunctionSym) or function.module != module:
            return None
        if tool_decorator(linker, module, function.info) is not None:
            return None
        binding = symbol.binding
        return ToolDraft("function", module, binding.name, binding.pos, function=function.info, decorator=maker)

    def _calls_tool(self, symbol: ValueSym) -> bool:
        """Whether a name is bound to ``tool(function)`` or ``tool(...)(function)``."""
        value = symbol.binding.value
        func = value.func if isinstance(value, Call) else None
        if isinstance(func, Call):
            func = func.func
        return func is not None and self.linker.is_sdk(symbol.module, func, "tool")

    def already_reported(self, module: str, expr: Expr) -> bool:
        """Whether a name that does not resolve already has a diagnostic of its own.

        That is the case when it comes from a broken project-local import (reported as
        unresolved-import) or from a module that does not parse (a syntax error).
        """
        linker = self.linker
        target = expr.func if isinstance(expr, Call) else expr
        if not isinstance(target, Ref):
            return False
        symbol = linker.resolve_ref(module, target.dotted)
        if isinstance(symbol, UnknownSym) and symbol.reported:
            return True
        found = linker.binding(module, target.dotted.split(".")[0], warn=False)
        if found is None or found.kind != "import":
            return False
        assert isinstance(found.item, ImportBinding)
        imported = linker.absolute(module, found.item)
        return imported is not None and linker.is_local(imported) and linker.resolve_import(module, found.item) is None

    def unresolved(self, module: str, expr: Expr, symbol: Symbol | None, pos: Pos, *, called: bool) -> None:
        """Report an entry whose name means nothing the compiler can use as a tool."""
        if self.already_reported(module, expr):
            return
        shown = describe_entry(expr) + ("()" if called else "")
        method = None if called else self._tool_method(module, expr)
        if method is not None:
            owner, function = method
            self.linker.report(
                "skill/unresolved-reference",
                module,
                pos,
                f"{shown} is a method of {owner.info.name} decorated with @tool: @tool makes a tool of the "
                "function in the class body, whose self would be an input field the model must send",
                hint=f"make {function.name} a module-level @tool function (what it needs of the instance in a "
                f"module-level object), or a Tool class whose execute calls it",
            )
            return
        if isinstance(symbol, ExternalSym):
            message = (
                f"{shown} comes from outside the project ({symbol.qualname}); "
                "only tools defined in the project can be compiled"
            )
            hint = "define the tool in the project (a Tool subclass, a @tool function or a Tool(...) object)"
        elif isinstance(symbol, UnknownSym):
            message = f"{shown} cannot be resolved statically: {symbol.reason}"
            hint = "import the tool by name from the module that defines it"
        else:
            named = expr.func if isinstance(expr, Call) else expr
            if isinstance(named, Ref) and reports_undefined(self.linker, module, named.dotted.split(".")[0]):
                return  # skill/undefined-name says it, at the name's first use
            message = f"{describe_entry(expr)} is not defined"
            hint = "import it from the module that defines it"
        self.linker.report("skill/unresolved-reference", module, pos, message, hint=hint)

    def _tool_method(self, module: str, expr: Expr) -> tuple[ClassSym, FunctionInfo] | None:
        """The class and method ``expr`` names when it is a ``@tool`` method listed through its class or an
        instance (``MathPlugin.add``, ``plugin.add`` after ``plugin = MathPlugin()``), as a Semantic Kernel
        plugin's ``@kernel_function`` methods are ported; else ``None``."""
        if not isinstance(expr, Ref) or "." not in expr.dotted:
            return None
        head, _, attribute = expr.dotted.rpartition(".")
        owner = self.linker.resolve_expr(module, Ref(head, expr.pos))
        if isinstance(owner, ValueSym) and isinstance(owner.binding.value, Call):
            owner = self.linker.resolve_expr(owner.module, owner.binding.value.func)
        if not isinstance(owner, ClassSym):
            return None
        found = self.linker.class_method(owner, attribute)
        if found is None or tool_decorator(self.linker, found[0].module, found[1]) is None:
            return None
        return owner, found[1]

    def registers_tool(self, module: str, expr: Expr) -> bool:
        """Whether ``expr``, listed in ``tools=[...]``, would register a tool."""
        if isinstance(expr, Call):
            symbol = self.linker.resolve_expr(module, expr.func)
            return isinstance(symbol, ClassSym) and self.linker.is_subclass(symbol, "skillc.Tool")
        return self.draft_from_symbol(self.linker.resolve_expr(module, expr)) is not None

    def draft_from_symbol(self, symbol: Symbol | None) -> ToolDraft | None:
        linker = self.linker
        if isinstance(symbol, FunctionSym):
            if tool_decorator(linker, symbol.module, symbol.info) is not None:
                return ToolDraft("function", symbol.module, symbol.info.name, symbol.info.pos, function=symbol.info)
            return None
        if isinstance(symbol, ValueSym) and isinstance(symbol.binding.value, Call):
            call = symbol.binding.value
            if linker.is_sdk(symbol.module, call.func, "Tool"):
                return ToolDraft("object", symbol.module, symbol.binding.name, symbol.binding.pos, call=call)
            made = self._made_by_tool_call(symbol, call)
            if made is not None:
                return made
            target = linker.resolve_expr(symbol.module, call.func)
            if isinstance(target, ClassSym) and linker.is_subclass(target, "skillc.Tool"):
                return _class_draft(target)
        return None

    # --- tools the agent never reaches ---------------------------------------------

    def report_unreachable(self) -> None:
        linker = self.linker
        reached = self._bases_of_registered()
        for module in sorted(linker.modules):
            index = linker.modules[module]
            for cls in index.classes:
                symbol = ClassSym(module, cls)
                if (module, cls.name) in reached or cls.attribute("name") is None:
                    continue
                if linker.is_subclass(symbol, "skillc.Tool"):
                    self.unreachable(module, cls.name, cls.pos)
            for function in index.functions:
                if (module, function.name) not in self.registered and tool_decorator(linker, module, function):
                    self.unreachable(module, function.name, function.pos)
            for binding in index.assignments:
                value = binding.value
                if (
                    (module, binding.name) not in self.registered
                    and isinstance(value, Call)
                    and linker.is_sdk(module, value.func, "Tool")
                ):
                    self.unreachable(module, binding.name, binding.pos)

    def _bases_of_registered(self) -> set[tuple[str, str]]:
        """The registered tools, and the project classes a registered tool class derives from: the
        agent reaches those through it (a base tool class whose subclasses are the registered ones)."""
        reached = set(self.registered)
        for module, name in self.registered:
            cls = self.linker.resolve_ref(module, name)
            if not isinstance(cls, ClassSym):
                continue
            for item in self.linker.mro(cls)[1:]:
                if isinstance(item, ClassSym) and not item.outer:
                    reached.add((item.module, item.info.name))
        return reached

    def unreachable(self, module: str, name: str, pos: Pos) -> None:
        self.linker.report(
            "skill/unreachable-tool",
            module,
            pos,
            f"tool {name} is defined but the agent never reaches it",
            hint="add it to a skill's tools=[...], or delete it",
        )

    def _configured(self, module: str, entry: Call, cls: ClassSym) -> ToolDraft:
        """A class-form tool registered as ``Cls(...)``: its literal arguments are kept for the bundle."""
        draft = _class_draft(cls)
        try:
            if entry.has_star:
                raise Unsupported(module, entry.pos, "* or ** arguments")
            arguments = tuple(self.values.value(module, arg) for arg in entry.args)
            keywords = tuple((key, self.values.value(module, value)) for key, value in entry.kwargs)
        except Unsupported as error:
            self.linker.report(
                "skill/constructor-args-dropped",
                module,
                error.pos,
                f"{cls.info.name}(...) is registered with an argument that is not a literal or a module-level "
                f"constant bound to one, so the compiled tool is created as {cls.info.name}() without its arguments",
                hint="pass literals or constants, set the values as class attributes, or read them in execute "
                "from ctx.env (the project's .env files)",
            )
            return draft
        return dataclasses.replace(
            draft, init_arguments=arguments, init_keywords=keywords, registration=(module, entry.pos)
        )


def _class_draft(cls: ClassSym) -> ToolDraft:
    return ToolDraft("class", cls.module, cls.info.name, cls.info.pos, cls=cls)


def describe_entry(expr: Expr | None) -> str:
    """An entry of ``tools=[...]`` or ``skills=[...]`` as messages name it."""
    if expr is None:
        return "the entry"
    if isinstance(expr, Call):
        return f"{describe_entry(expr.func)}(...)"
    return describe(expr) if isinstance(expr, Ref | Const) else "this entry"
