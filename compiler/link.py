"""Link module summaries into the agent's skills and tools, and check them.

From the entry module, the walk follows ``Agent -> skills -> tools``: each entry of
``skills=[...]`` is resolved (``resolve``) to the ``Skill(...)`` it names, each entry
of ``tools=[...]`` to what it registers (``tool_entries``), and each tool's definition
is read (``tools``).  Agent, skill and tool names are checked here; imports and import
cycles (``import_checks``) and the tools no entry reaches (``tool_entries``) across
the project.  Only what the agent reaches becomes a ``ToolInfo``.  Every problem is a
``Finding``; nothing here raises for bad user code.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence

from ..contracts.spec import (
    MAX_NAME_LENGTH,
    case_collision_error,
    folder_key,
    host_tool_name,
    is_valid_name,
    reserved_name_error,
)
from .command_line_check import check_command_line
from .data_store_check import check_store_uses
from .early_names_check import check_early_names
from .import_checks import check_imports, report_import_cycles
from .import_effects_check import check_import_effects
from .index_types import BinOp, Call, Const, Container, Expr, ModuleIndex, Ref, ValueBinding
from .late_names_check import check_late_names
from .link_cache import LinkResult
from .loop_calls_check import check_loop_calls
from .model_field_check import check_model_fields
from .resolve import Linker
from .root_files import RootFiles
from .settings_check import check_settings_at_import
from .symbols import ValueSym
from .tool_entries import ToolEntries, describe_entry
from .tools import ToolReader
from .types import AgentInfo, Config, Finding, Pos, SkillInfo, Source, ToolInfo
from .unawaited_calls_check import check_unawaited_calls
from .working_folder_check import check_working_folder_paths

__all__ = ["LinkResult", "link_project"]


#: How many ``+`` and constants deep a ``tools=`` list is followed.
_MAX_CONCATENATION = 32


def _operands(expr: Expr) -> Iterator[Expr]:
    """The operands of a chain of ``+`` (``A + B + [c]``), or ``expr`` itself."""
    pending = [expr]
    while pending:
        item = pending.pop()
        if isinstance(item, BinOp) and item.op == "+":
            pending.extend((item.left, item.right))
        else:
            yield item


_SKILL_FIELDS = ("name", "description", "context", "tools", "condition")
_AGENT_FIELDS = ("name", "persona", "skills")


def link_project(
    modules: dict[str, ModuleIndex],
    config: Config,
    failed: frozenset[str] = frozenset(),
    files: Collection[str] = frozenset(),
) -> LinkResult:
    """Find the agent in the entry module and everything it reaches.

    ``failed`` names the modules that exist but could not be indexed: names taken
    from them are not reported again, their own diagnostics say what is wrong.
    ``files`` are the project's source and data files (paths relative to the project),
    which a path relative to the working folder may name (``working_folder_check``).
    """
    relative = config.entry.relative_to(config.src).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return _Walk(Linker(modules, config, failed), ".".join(parts), files).run()


class _Walk:
    """Walks ``Agent -> skills -> tools`` from the entry module and checks each tool."""

    def __init__(self, linker: Linker, entry: str, files: Collection[str] = frozenset()) -> None:
        self.linker = linker
        self.files = files
        self.root_files = RootFiles(linker.config.root)
        self.reader = ToolReader(linker)
        self.entry = entry
        self.tools: list[ToolInfo] = []
        #: See ``LinkResult.misnamed``.
        self.misnamed: list[ToolInfo] = []
        self.skills: list[SkillInfo] = []
        self.tool_entries = ToolEntries(linker)
        #: By ``folder_key``: names that differ only in case share a folder of dist/ on
        #: macOS and Windows.  Each holds the name as written and where it is.
        self.tool_names: dict[str, tuple[str, str, Pos]] = {}
        self.skill_names: dict[str, tuple[str, str, Pos]] = {}

    def run(self) -> LinkResult:
        check_imports(self.linker)
        check_early_names(self.linker)
        check_late_names(self.linker)
        check_command_line(self.linker)
        check_import_effects(self.linker)
        check_settings_at_import(self.linker)
        check_loop_calls(self.linker)
        check_unawaited_calls(self.linker)
        check_store_uses(self.linker)
        check_model_fields(self.linker)
        check_working_folder_paths(self.linker, self.files, self.root_files)
        agent = self.find_agent()
        if agent is not None:
            # Without an agent every tool would be "unreachable": the no-agent error says it all.
            self.tool_entries.report_unreachable()
        report_import_cycles(self.linker, self.entry, self.tools, self.skills)
        findings = self.linker.findings
        findings.sort(key=lambda finding: (finding.path, finding.pos.line, finding.pos.col, finding.code))
        root_files = tuple(sorted(self.root_files.seen.items()))
        return LinkResult(agent, self.skills, self.tools, findings, self.linker, self.misnamed, root_files)

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
        agents = [
            (binding, binding.value)
            for binding in self.linker.modules[self.entry].assignments
            if isinstance(binding.value, Call) and self.linker.is_sdk(self.entry, binding.value.func, "Agent")
        ]
        if agents:
            first, call = agents[0]
            for later, _ in agents[1:]:
                self.linker.report(
                    "skill/duplicate-agent",
                    self.entry,
                    later.pos,
                    f"{relative_entry} binds a second Agent ({later.name}, after {first.name} at line "
                    f"{first.pos.line}): a project compiles one agent, and which one the module means is not "
                    "the compiler's to guess",
                    hint="keep one Agent(...) in the entry module; give the other its own project",
                )
            return self.agent(first, call)
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
        persona = self.reader.text(self.entry, arguments.get("persona"), "the agent's persona", prose=True) or ""
        skills: list[str] = []
        for module, entry in self.entries(self.entry, arguments.get("skills"), "skills"):
            skill = self.skill(module, entry)
            if skill is not None:
                skills.append(skill.name)
        if name is not None and is_valid_name(name):
            self.check_host_names(name)
        return AgentInfo(
            name=name or "",
            persona=persona,
            skills=tuple(skills),
            module=self.entry,
            qualname=binding.name,
            source=Source(self.linker.path_of(self.entry), binding.pos.line, binding.pos.col),
        )

    def check_host_names(self, agent: str) -> None:
        """Warn about each tool whose name a host would make too long by prefixing the agent's name."""
        for tool in self.tools:
            qualified = host_tool_name(agent, tool.name)
            if len(qualified) <= MAX_NAME_LENGTH:
                continue
            _, _, pos = self.tool_names[folder_key(tool.name)]
            self.linker.report(
                "skill/host-tool-name",
                tool.module,
                pos,
                f"tool {tool.name!r} becomes {qualified!r} ({len(qualified)} characters) in MCP hosts that prefix "
                f"the server's name, such as Claude Code; model APIs refuse names over {MAX_NAME_LENGTH}",
                hint=f"keep the agent's and the tool's names to {MAX_NAME_LENGTH - len(host_tool_name('', ''))} "
                "characters together",
            )

    def entries(self, module: str, expr: Expr | None, what: str) -> Iterator[tuple[str, Expr]]:
        """The items of a ``tools=[...]``/``skills=[...]`` list, through constants and ``+`` of lists
        (``COMMON + [special]``; of tuples too, never a list and a tuple, which Python refuses)."""
        if expr is None:
            return
        if isinstance(expr, Ref):
            symbol = self.linker.resolve_ref(module, expr.dotted)
            if isinstance(symbol, ValueSym) and self._sequence_kind(module, expr) is not None:
                assert symbol.binding.value is not None
                self.report_mutations(symbol, what, module, expr.pos)
                yield from self.entries(symbol.module, symbol.binding.value, what)
                return
        if isinstance(expr, BinOp) and self._sequence_kind(module, expr) is not None:
            yield from self.entries(module, expr.left, what)
            yield from self.entries(module, expr.right, what)
            return
        if not isinstance(expr, Container) or expr.kind not in ("list", "tuple") or expr.has_star:
            self.linker.report(
                "skill/dynamic-value",
                module,
                expr.pos,
                f"{what}= must be a literal list, a module-level constant bound to one, or a + of lists",
                hint="list the entries where the compiler can read them",
            )
            return
        for item in expr.items:
            yield module, item

    def _sequence_kind(self, module: str, expr: Expr, depth: int = 0) -> str | None:
        """``"list"`` or ``"tuple"`` when ``expr`` is a literal one, a constant bound to one, or a
        ``+`` of two of the same kind; ``None`` for anything else (a constant defined from
        itself, ``TOOLS = TOOLS + [...]``, is anything else: its earlier binding is not modelled)."""
        if depth > _MAX_CONCATENATION:
            return None
        if isinstance(expr, Container):
            return expr.kind if expr.kind in ("list", "tuple") and not expr.has_star else None
        if isinstance(expr, Ref):
            symbol = self.linker.resolve_ref(module, expr.dotted)
            if not isinstance(symbol, ValueSym) or symbol.binding.value is None:
                return None
            if any(
                isinstance(item, Ref) and item.dotted == symbol.binding.name for item in _operands(symbol.binding.value)
            ):
                return None
            return self._sequence_kind(symbol.module, symbol.binding.value, depth + 1)
        if isinstance(expr, BinOp) and expr.op == "+":
            left = self._sequence_kind(module, expr.left, depth + 1)
            return left if left is not None and left == self._sequence_kind(module, expr.right, depth + 1) else None
        return None

    def report_mutations(self, symbol: ValueSym, what: str, module: str, used: Pos) -> None:
        """Report a statement run at import that changes the list a ``tools=``/``skills=`` constant is
        bound to (``TOOLS.append(other)``, ``TOOLS += [...]``) before ``module`` uses it at ``used``: the compiled agent would have
        the list as written, the module another.  (A change after the use, in the same module, comes
        too late to change what the skill or agent was given.)"""
        name = symbol.binding.name
        for changed, shown, pos in self.linker.modules[symbol.module].changed_in_place:
            if changed != name:
                continue
            if symbol.module == module and pos.line > used.line:
                continue
            self.linker.report(
                "skill/dynamic-value",
                symbol.module,
                pos,
                f"{shown} changes {name} when the module is imported, after the line that binds it "
                f"({symbol.binding.pos.line}), which is all the compiler reads of the {what} list: the "
                "compiled agent would not have the entries the module gives it",
                hint=f"list every entry where {name} is bound",
            )

    # --- skills ---------------------------------------------------------------------

    def skill(self, module: str, entry: Expr) -> SkillInfo | None:
        found = self.skill_call(module, entry)
        if found is None:
            if not self.tool_entries.already_reported(module, entry):
                self.linker.report(
                    "skill/unresolved-reference",
                    module,
                    entry.pos,
                    f"{describe_entry(entry)} is not a Skill",
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
        if condition is not None:
            self.reader.code.condition_function(skill_module, condition)
        info = SkillInfo(
            name=name,
            description=self.reader.text(
                skill_module, arguments.get("description"), "a skill's description", prose=True
            )
            or "",
            context=self.reader.text(skill_module, arguments.get("context"), "a skill's context", prose=True) or "",
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
        draft = self.tool_entries.draft_of(module, entry)
        if draft is None:
            return None
        self.tool_entries.registered.add((draft.module, draft.qualname))
        misnamed = len(self.reader.misnamed)
        info = self.reader.tool_info(draft, skill)
        if keep:
            self.misnamed.extend(self.reader.misnamed[misnamed:])
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
            self.misnamed.append(info)
            return None
        self.tool_names[folder_key(info.name)] = (info.name, self.linker.path_of(draft.module), name_pos)
        self.tools.append(info)
        return info
