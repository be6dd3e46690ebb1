"""Link module summaries into the agent's skills and tools, and check them.

From the entry module, the walk follows ``Agent -> skills -> tools``: each entry of
``skills=[...]`` and ``tools=[...]`` is resolved (``resolve``) to what it registers,
each tool's definition is read (``tools``), and names, imports, reachability and import
cycles are checked across the project.  Only what the agent reaches becomes a
``ToolInfo``.  Every problem is a ``Finding``; nothing here raises for bad user code.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..contracts.spec import case_collision_error, folder_key, is_valid_name, reserved_name_error
from .cycles import ImportStart, find_import_cycles
from .evaluate import describe
from .resolve import ClassSym, ExternalSym, FunctionSym, Linker, Symbol, UnknownSym, ValueSym
from .tools import ToolDraft, ToolReader, tool_decorator
from .types import (
    AgentInfo,
    Call,
    Config,
    Const,
    Container,
    Expr,
    Finding,
    ImportBinding,
    ModuleIndex,
    Pos,
    Ref,
    SkillInfo,
    Source,
    ToolInfo,
    ValueBinding,
)

__all__ = ["LinkResult", "link_project"]

_SKILL_FIELDS = ("name", "description", "context", "tools", "condition")
_AGENT_FIELDS = ("name", "persona", "skills")


@dataclass
class LinkResult:
    """What linking found: the agent, its skills and tools, and the findings."""

    agent: AgentInfo | None
    skills: list[SkillInfo]
    tools: list[ToolInfo]
    findings: list[Finding]
    #: The linker that found them, for the stages that resolve more names (schemas).
    linker: Linker | None = None


def link_project(modules: dict[str, ModuleIndex], config: Config, failed: frozenset[str] = frozenset()) -> LinkResult:
    """Find the agent in the entry module and everything it reaches.

    ``failed`` names the modules that exist but could not be indexed: names taken
    from them are not reported again, their own diagnostics say what is wrong.
    """
    relative = config.entry.relative_to(config.src).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return _Walk(Linker(modules, config, failed), ".".join(parts)).run()


class _Walk:
    """Walks ``Agent -> skills -> tools`` from the entry module and checks each tool."""

    def __init__(self, linker: Linker, entry: str) -> None:
        self.linker = linker
        self.reader = ToolReader(linker)
        self.entry = entry
        self.tools: list[ToolInfo] = []
        self.skills: list[SkillInfo] = []
        self.registered: set[tuple[str, str]] = set()
        #: By ``folder_key``: names that differ only in case share a folder of dist/ on
        #: macOS and Windows.  Each holds the name as written and where it is.
        self.tool_names: dict[str, tuple[str, str, Pos]] = {}
        self.skill_names: dict[str, tuple[str, str, Pos]] = {}

    def run(self) -> LinkResult:
        self.check_imports()
        agent = self.find_agent()
        if agent is not None:
            # Without an agent every tool would be "unreachable": the no-agent error says it all.
            self.report_unreachable()
        self.report_import_cycles()
        findings = self.linker.findings
        findings.sort(key=lambda finding: (finding.path, finding.pos.line, finding.pos.col, finding.code))
        return LinkResult(agent, self.skills, self.tools, findings, self.linker)

    # --- imports --------------------------------------------------------------------

    def check_imports(self) -> None:
        linker = self.linker
        for name in sorted(linker.modules):
            missing_reported: set[tuple[str, int]] = set()
            for item in linker.modules[name].imports:
                written = f"{'.' * item.level}{item.module}"
                if item.star:
                    target = linker.absolute(name, item)
                    local = target is not None and linker.is_local(target)
                    linker.report(
                        "skill/star-import",
                        name,
                        item.pos,
                        f"'from {written} import *' hides which names this module takes from it"
                        if local
                        else f"'from {written} import *' cannot be resolved statically: "
                        "the names it binds are unknown to the compiler",
                        hint="import the names you use explicitly",
                    )
                    continue
                if item.level == 0 and not linker.is_local(item.module):
                    continue
                target = linker.absolute(name, item)
                if target is None:
                    linker.report(
                        "skill/unresolved-import",
                        name,
                        item.pos,
                        f"relative import {written!r} goes above the import root",
                    )
                elif not linker.is_module(target):
                    if (target, item.pos.line) in missing_reported:
                        continue  # one report per statement for a module that is missing
                    missing_reported.add((target, item.pos.line))
                    linker.report(
                        "skill/unresolved-import",
                        name,
                        item.pos,
                        f"no module {target!r} in the project",
                        hint=f"the import root is {linker.config.src.relative_to(linker.config.root).as_posix()}/",
                    )
                elif target in linker.failed:
                    continue  # the module does not parse: its syntax error is the report
                elif item.name is not None and linker.resolve_import(name, item) is None:
                    linker.report(
                        "skill/unresolved-import",
                        name,
                        item.pos,
                        f"module {target!r} has no {item.name!r}",
                    )

    def report_import_cycles(self) -> None:
        """Report the from-imports that fail in a cycle, from each module imported first.

        The entry module is what importing the agent runs; each tool's bundle imports the
        tool's module first, and each skill condition's bundle the skill's module.
        """
        starts = [ImportStart(self.entry, f"when the entry module {self.entry} is imported")]
        starts += [
            ImportStart(tool.module, f"when the bundle of tool {tool.name!r} imports {tool.module} first")
            for tool in self.tools
        ]
        starts += [
            ImportStart(skill.module, f"when the condition of skill {skill.name!r} imports {skill.module} first")
            for skill in self.skills
            if skill.has_condition
        ]
        for cycle in find_import_cycles(self.linker, starts):
            self.linker.report(
                "skill/import-cycle",
                cycle.module,
                cycle.pos,
                cycle.message,
                hint=cycle.hint,
                related=tuple((self.linker.path_of(module), pos, note) for module, pos, note in cycle.related),
            )

    # --- the agent ------------------------------------------------------------------

    def find_agent(self) -> AgentInfo | None:
        config = self.linker.config
        relative_entry = config.entry.relative_to(config.root).as_posix()
        if self.entry not in self.linker.modules:
            if config.entry.exists():
                return None  # it did not index: its own diagnostics say why
            self.linker.findings.append(
                Finding(
                    "skill/no-agent",
                    f"the entry module {relative_entry} does not exist",
                    config.pyproject.relative_to(config.root).as_posix(),
                    Pos(config.entry_line, 0),
                    "set [tool.skill] entry to the file that defines the Agent",
                )
            )
            return None
        for binding in self.linker.modules[self.entry].assignments:
            value = binding.value
            if isinstance(value, Call) and self.linker.is_sdk(self.entry, value.func, "Agent"):
                return self.agent(binding, value)
        self.linker.report(
            "skill/no-agent",
            self.entry,
            Pos(1, 0),
            f"{relative_entry} defines no Agent",
            hint="add `agent = Agent(name=..., persona=..., skills=[...])` at module level",
        )
        return None

    def arguments(self, call: Call, names: Sequence[str]) -> dict[str, Expr]:
        found = dict(zip(names, call.args, strict=False))  # fewer positional arguments than names is fine
        found.update(call.kwargs)
        return found

    def agent(self, binding: ValueBinding, call: Call) -> AgentInfo | None:
        arguments = self.arguments(call, _AGENT_FIELDS)
        name = self.reader.text(self.entry, arguments.get("name"), "the agent's name")
        if name is not None and not is_valid_name(name):
            self.linker.report(
                "skill/invalid-skill-name",
                self.entry,
                arguments["name"].pos,
                f"invalid agent name {name!r}: use letters, digits, '_' and '-' only",
            )
        persona = self.reader.text(self.entry, arguments.get("persona"), "the agent's persona") or ""
        skills: list[str] = []
        for module, entry in self.entries(self.entry, arguments.get("skills"), "skills"):
            skill = self.skill(module, entry)
            if skill is not None:
                skills.append(skill.name)
        return AgentInfo(
            name=name or "",
            persona=persona,
            skills=tuple(skills),
            module=self.entry,
            qualname=binding.name,
            source=Source(self.linker.path_of(self.entry), binding.pos.line, binding.pos.col),
        )

    def entries(self, module: str, expr: Expr | None, what: str) -> Iterator[tuple[str, Expr]]:
        """The items of a ``tools=[...]``/``skills=[...]`` list, through constants."""
        if expr is None:
            return
        if isinstance(expr, Ref):
            symbol = self.linker.resolve_ref(module, expr.dotted)
            if isinstance(symbol, ValueSym) and isinstance(symbol.binding.value, Container):
                yield from self.entries(symbol.module, symbol.binding.value, what)
                return
        if not isinstance(expr, Container) or expr.kind not in ("list", "tuple") or expr.has_star:
            self.linker.report(
                "skill/dynamic-value",
                module,
                expr.pos,
                f"{what}= must be a literal list, or a module-level constant bound to one",
                hint="list the entries where the compiler can read them",
            )
            return
        for item in expr.items:
            yield module, item

    # --- skills ---------------------------------------------------------------------

    def skill(self, module: str, entry: Expr) -> SkillInfo | None:
        found = self.skill_call(module, entry)
        if found is None:
            if not self.already_reported(module, entry):
                self.linker.report(
                    "skill/unresolved-reference",
                    module,
                    entry.pos,
                    f"{_describe(entry)} is not a Skill",
                    hint="list Skill(...) objects, or names bound to them, in skills=[...]",
                )
            return None
        skill_module, call, qualname, pos = found
        arguments = self.arguments(call, _SKILL_FIELDS)
        name, keep = self.skill_name(skill_module, call, arguments)
        # The tools of a skill that cannot be kept are still checked (and not "unreachable").
        tools: list[str] = []
        tools_expr = arguments.get("tools")
        for tool_module, item in self.entries(skill_module, tools_expr, "tools"):
            tool = self.tool_entry(tool_module, item, name or "", keep=keep)
            if tool is not None:
                tools.append(tool.name)
        empty = isinstance(tools_expr, Container) and not tools_expr.items and not tools_expr.has_star
        if tools_expr is None or empty:
            self.linker.report("skill/empty-skill", skill_module, pos, f"skill {name!r} has no tools")
        if name is None or not keep:
            return None
        condition = arguments.get("condition")
        info = SkillInfo(
            name=name,
            description=self.reader.text(skill_module, arguments.get("description"), "a skill's description") or "",
            context=self.reader.text(skill_module, arguments.get("context"), "a skill's context") or "",
            tools=tuple(tools),
            has_condition=condition is not None and not (isinstance(condition, Const) and condition.value is None),
            module=skill_module,
            qualname=qualname,
            source=Source(self.linker.path_of(skill_module), pos.line, pos.col),
        )
        self.skills.append(info)
        return info

    def skill_name(self, module: str, call: Call, arguments: dict[str, Expr]) -> tuple[str | None, bool]:
        """A skill's name, and whether the skill can be kept (a readable, unique, allowed name)."""
        linker = self.linker
        name = self.reader.text(module, arguments.get("name"), "a skill's name")
        if name is None and "name" not in arguments:
            linker.report("skill/missing-name", module, call.pos, "Skill must have a name")
        if name is None:
            return None, False
        if not is_valid_name(name):
            linker.report(
                "skill/invalid-skill-name",
                module,
                arguments["name"].pos,
                f"invalid skill name {name!r}: use letters, digits, '_' and '-' only",
            )
        reserved = reserved_name_error("skill", name) if is_valid_name(name) else None
        if reserved is not None:
            linker.report(
                "skill/reserved-skill-name",
                module,
                arguments["name"].pos,
                reserved,
                hint="choose another name; Windows reserves CON, PRN, AUX, NUL, COM1-9 and LPT1-9",
            )
            return name, False
        first = self.skill_names.get(folder_key(name))
        if first is not None:
            first_name, first_path, first_pos = first
            linker.report(
                "skill/duplicate-skill-name",
                module,
                arguments["name"].pos,
                f"skill name {name!r} is used twice"
                if first_name == name
                else case_collision_error("skill", first_name, name),
                related=((first_path, first_pos, "first used here"),),
            )
            return name, False
        self.skill_names[folder_key(name)] = (name, linker.path_of(module), arguments["name"].pos)
        return name, True

    def skill_call(self, module: str, entry: Expr) -> tuple[str, Call, str, Pos] | None:
        if isinstance(entry, Call) and self.linker.is_sdk(module, entry.func, "Skill"):
            return module, entry, "", entry.pos
        symbol = self.linker.resolve_expr(module, entry)
        if isinstance(symbol, ValueSym):
            value = symbol.binding.value
            if isinstance(value, Call) and self.linker.is_sdk(symbol.module, value.func, "Skill"):
                return symbol.module, value, symbol.binding.name, value.pos
        return None

    # --- tools ----------------------------------------------------------------------

    def tool_entry(self, module: str, entry: Expr, skill: str, *, keep: bool = True) -> ToolInfo | None:
        draft = self.draft_of(module, entry)
        if draft is None:
            return None
        self.registered.add((draft.module, draft.qualname))
        info = self.reader.tool_info(draft, skill)
        if info is None or not keep:
            return None
        name_pos = self.reader.name_pos(draft)
        previous = self.tool_names.get(folder_key(info.name))
        if previous is not None:
            first_name, first_path, first_pos = previous
            self.linker.report(
                "skill/duplicate-tool-name",
                draft.module,
                name_pos,
                f"tool name {info.name!r} is used twice"
                if first_name == info.name
                else case_collision_error("tool", first_name, info.name),
                hint="tool names must be unique within an agent, ignoring case",
                related=((first_path, first_pos, "first used here"),),
            )
            return None
        self.tool_names[folder_key(info.name)] = (info.name, self.linker.path_of(draft.module), name_pos)
        self.tools.append(info)
        return info

    def draft_of(self, module: str, entry: Expr) -> ToolDraft | None:
        """What a ``tools=[...]`` entry registers, or ``None`` after reporting why nothing."""
        linker = self.linker
        if isinstance(entry, Call):
            if linker.is_sdk(module, entry.func, "Tool"):
                return ToolDraft("object", module, f"<inline tool at line {entry.pos.line}>", entry.pos, call=entry)
            symbol = linker.resolve_expr(module, entry.func)
            if isinstance(symbol, ClassSym) and linker.is_subclass(symbol, "skillc.Tool"):
                if entry.args or entry.kwargs or entry.has_star:
                    linker.report(
                        "skill/constructor-args-dropped",
                        module,
                        entry.pos,
                        f"{symbol.info.name}(...) is registered with arguments, but the compiled "
                        f"tool is created as {symbol.info.name}() and never receives them",
                        hint="set the values as class attributes, or read them from ctx.env",
                    )
                return _class_draft(symbol)
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
            what = f" around the tool {_describe(inner[0])}" if inner else ""
            linker.report(
                "skill/wrapped-tool-ref",
                module,
                entry.pos,
                f"{_describe(entry)} wraps the entry in a call{what}; the compiler cannot see "
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
        if isinstance(symbol, FunctionSym):
            hint = "decorate it with @tool"
        else:
            hint = "list tool instances, @tool functions or Tool(...) objects in tools=[...]"
        linker.report("skill/unresolved-reference", module, entry.pos, f"{_describe(entry)} is not a tool", hint=hint)
        return None

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
        shown = _describe(expr) + ("()" if called else "")
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
            message = f"{_describe(expr)} is not defined"
            hint = "import it from the module that defines it"
        self.linker.report("skill/unresolved-reference", module, pos, message, hint=hint)

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
            target = linker.resolve_expr(symbol.module, call.func)
            if isinstance(target, ClassSym) and linker.is_subclass(target, "skillc.Tool"):
                return _class_draft(target)
        return None

    # --- tools the agent never reaches ---------------------------------------------

    def report_unreachable(self) -> None:
        linker = self.linker
        for module in sorted(linker.modules):
            index = linker.modules[module]
            for cls in index.classes:
                symbol = ClassSym(module, cls)
                if (module, cls.name) in self.registered or cls.attribute("name") is None:
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

    def unreachable(self, module: str, name: str, pos: Pos) -> None:
        self.linker.report(
            "skill/unreachable-tool",
            module,
            pos,
            f"tool {name} is defined but the agent never reaches it",
            hint="add it to a skill's tools=[...], or delete it",
        )


def _class_draft(cls: ClassSym) -> ToolDraft:
    return ToolDraft("class", cls.module, cls.info.name, cls.info.pos, cls=cls)


def _describe(expr: Expr | None) -> str:
    """An entry of ``tools=[...]`` or ``skills=[...]`` as messages name it."""
    if expr is None:
        return "the entry"
    if isinstance(expr, Call):
        return f"{_describe(expr.func)}(...)"
    return describe(expr) if isinstance(expr, Ref | Const) else "this entry"
