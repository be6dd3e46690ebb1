"""Index one module: read its ``ast`` tree into a plain ``ModuleIndex``.

Only what the compiler reasons about is read: imports, classes (bases, class-level
attributes, method signatures), functions (decorators, parameters, docstrings),
module-level assignments and calls, including those inside ``if``/``try``/``with``
blocks, which are marked with the branch they sit in (and imports under ``if
TYPE_CHECKING:`` as never run).  Function bodies are never visited here: the imports
in them, and ``import_module("name")`` calls, are read by ``index_imports``.  This
module walks the module's blocks and reads its imports; ``index_definitions`` reads
classes, functions and assignments, ``index_expressions`` the expressions in them.

The tree is the one ``syntax_check.check_syntax`` made while asking CPython whether
the file compiles and measuring its nesting: every file is parsed once, by CPython's
own parser (a fifteenth of what a concrete syntax tree costs), and every position the
index records is the one editors and CPython's own errors show.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from .index_command_line import find_command_line_parses
from .index_definitions import DefinitionReader
from .index_early_names import find_early_uses
from .index_expressions import BINARY_OPERATORS
from .index_function_bodies import read_function_bodies
from .index_import_effects import find_import_effects
from .index_imports import copes_with_missing_module, import_bindings, is_type_checking, scan_imports
from .index_loop_calls import find_loop_calls, find_thread_loop_lookups
from .index_paths import find_path_literals
from .index_types import LIST_MUTATIONS, Call, ClassInfo, FunctionInfo, ImportBinding, ModuleIndex, ValueBinding
from .syntax_check import NESTING_HINT, check_syntax, syntax_error, warnings_ignored
from .types import Diagnostic, Pos

__all__ = ["IndexFailure", "analyse_source", "index_source"]

#: What ``ModuleIndex.changed_in_place`` says of a change found in a module-level loop's body.
_IN_A_LOOP = " (in a loop)"


def _in_place_changes(node: ast.stmt) -> list[tuple[str, str]]:
    """The names ``node`` changes in place without binding them again, each with the statement
    as a message shows it: ``TOOLS.append(...)``, ``TOOLS += ...``, ``TOOLS[...] = ...``, ``del TOOLS[...]``."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr in LIST_MUTATIONS:
            return [(func.value.id, f"{func.value.id}.{func.attr}(...)")]
        return []
    if isinstance(node, ast.AugAssign):
        if isinstance(node.target, ast.Name):
            return [(node.target.id, f"{node.target.id} {BINARY_OPERATORS[type(node.op)]}= ...")]
        return []
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.Delete):
        targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
        shape = "del {}[...]" if isinstance(node, ast.Delete) else "{}[...] = ..."
        return [
            (target.value.id, shape.format(target.value.id))
            for target in targets
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
        ]
    return []


@dataclass(frozen=True)
class IndexFailure:
    """A file that could not be indexed: the diagnostics say why."""

    path: str
    diagnostics: tuple[Diagnostic, ...]


def analyse_source(
    source: bytes, path: str, module_name: str, is_package: bool
) -> tuple[ModuleIndex | None, tuple[Diagnostic, ...]]:
    """Index ``source``: the index (``None`` when the file cannot be indexed) and its diagnostics.

    Without an index, the diagnostics hold at least one error; with one, only warnings.
    """
    tree, problems = check_syntax(source, path)
    if tree is None:
        return None, problems
    indexer = _Indexer(tree, source)
    try:
        with warnings_ignored():  # CPython's warnings are check_syntax's to report, once
            return indexer.run(path, module_name, is_package), problems
    except RecursionError:  # a statement deeper than the indexer's own bounds
        where = indexer.statement
        refused = syntax_error(
            path, "this statement is nested too deeply for skillc to analyse", where.line, where.col, NESTING_HINT
        )
        return None, (refused, *problems)


def index_source(source: bytes, path: str, module_name: str, is_package: bool) -> ModuleIndex | IndexFailure:
    """Index ``source``; a file that does not parse becomes an ``IndexFailure``.

    CPython's warnings are left out: ``analyse_source`` returns them too.
    """
    index, problems = analyse_source(source, path, module_name, is_package)
    return IndexFailure(path, problems) if index is None else index


class _Indexer(DefinitionReader):
    """One pass over one module's statements; see the module docstring."""

    def __init__(self, tree: ast.Module, source: bytes) -> None:
        super().__init__(source)
        self.tree = tree
        self.source = source
        self.imports: list[ImportBinding] = []
        self.classes: list[ClassInfo] = []
        self.functions: list[FunctionInfo] = []
        self.assignments: list[ValueBinding] = []
        self.calls: list[Call] = []
        self.changed_in_place: list[tuple[str, str, Pos]] = []
        #: Whether the statements being indexed sit under ``if TYPE_CHECKING:``.
        self.typing_only = False
        #: Whether they sit in the body of a ``try`` that goes on without a missing module
        #: (``index_imports.copes_with_missing_module``).
        self.guarded = False

    def run(self, path: str, module_name: str, is_package: bool) -> ModuleIndex:
        docstring = ast.get_docstring(self.tree)
        self._module_block(self.tree.body, None)
        scan = scan_imports(self.tree, self.source, module_name, is_package, self._pos)
        bodies = read_function_bodies(self.tree, self.source, self._pos)
        return ModuleIndex(
            name=module_name,
            path=path,
            is_package=is_package,
            docstring=docstring,
            imports=tuple(self.imports),
            classes=tuple(self.classes),
            functions=tuple(self.functions),
            assignments=tuple(self.assignments),
            calls=tuple(self.calls),
            changed_in_place=tuple(self.changed_in_place),
            inner_imports=scan.inner,
            dynamic_imports=scan.dynamic,
            reexport_only=scan.reexport_only,
            late_data_reads=scan.late_data_reads,
            early_uses=find_early_uses(self.tree, self._pos),
            late_uses=bodies.late_uses,
            parameter_reads=bodies.parameter_reads,
            unawaited_calls=bodies.unawaited_calls,
            coroutine_functions=bodies.coroutine_functions,
            store_uses=bodies.store_uses,
            dynamic_instances=bodies.dynamic_instances,
            command_line_parses=find_command_line_parses(self.tree, self.source, self._pos),
            import_effects=find_import_effects(self.tree, self.source, self._pos),
            loop_calls=find_loop_calls(self.tree, self.source, self._pos),
            thread_loop_lookups=find_thread_loop_lookups(self.tree, self.source, self._pos),
            path_literals=find_path_literals(self.tree, self.source, self._pos),
        )

    # --- module level -----------------------------------------------------------------

    def _module_block(self, body: Sequence[ast.stmt], branch: str | None) -> None:
        for node, pos in self._placed(body):
            self.changed_in_place.extend((name, shown, pos) for name, shown in _in_place_changes(node))
            if isinstance(node, ast.Import | ast.ImportFrom):
                self._imports(node, branch)
            elif isinstance(node, ast.ClassDef):
                self.classes.append(self._class(node, pos, branch))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.append(self._function(node, pos, branch))
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                self.assignments.extend(self._bindings(node, pos, branch))
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                call = self._expr(node.value)
                assert isinstance(call, Call)
                self.calls.append(call)
            else:
                self._nested(node, pos)

    def _nested(self, node: ast.stmt, pos: Pos) -> None:
        """Index the blocks of ``if``/``try``/``with``, marking the branch of each."""
        label = f"{type(node).__name__.lower()}@{pos.line}"
        if isinstance(node, ast.If):
            self._if(node, pos)
        elif isinstance(node, ast.Try | ast.TryStar):
            guarded, self.guarded = self.guarded, self.guarded or copes_with_missing_module(node.handlers)
            self._module_block(node.body, f"{label}:body")
            self.guarded = guarded
            for index, handler in enumerate(node.handlers):
                self._module_block(handler.body, f"{label}:except{index}")
            self._module_block(node.orelse, f"{label}:body")
            self._module_block(node.finalbody, None)
        elif isinstance(node, ast.With):
            self._module_block(node.body, None)
        elif isinstance(node, ast.For | ast.AsyncFor | ast.While):
            self._loop_changes([*node.body, *node.orelse])

    def _loop_changes(self, body: Sequence[ast.stmt]) -> None:
        """The in-place changes of names in a module-level loop's body (``TOOLS.append(tool)``),
        whose other statements the index does not read: what one pass binds is not known."""
        pending = list(body)
        while pending:
            node = pending.pop(0)
            pos = self._pos(node)
            self.changed_in_place.extend((name, shown + _IN_A_LOOP, pos) for name, shown in _in_place_changes(node))
            if isinstance(node, ast.If | ast.For | ast.AsyncFor | ast.While | ast.With | ast.Try | ast.TryStar):
                blocks = [getattr(node, name, []) for name in ("body", "orelse", "finalbody")]
                blocks += [handler.body for handler in getattr(node, "handlers", [])]
                pending.extend(statement for block in blocks for statement in block)

    def _if(self, node: ast.If, pos: Pos) -> None:
        """Index an ``if`` and each ``elif`` after it: its own if statement, its own branches.

        A loop rather than a recursion: a generated chain may hold thousands of ``elif``.
        (``else:`` holding one ``if`` and nothing else indexes as an ``elif`` would.)
        """
        current = node
        while True:
            label = f"if@{pos.line}"
            typing_only, self.typing_only = self.typing_only, self.typing_only or is_type_checking(current.test)
            self._module_block(current.body, f"{label}:body")
            self.typing_only = typing_only
            orelse = current.orelse
            if len(orelse) == 1 and isinstance(orelse[0], ast.If):
                current = orelse[0]
                self.statement = pos = self._pos(current)
                continue
            self._module_block(orelse, f"{label}:orelse")
            return

    # --- imports ----------------------------------------------------------------------

    def _imports(self, node: ast.Import | ast.ImportFrom, branch: str | None) -> None:
        self.imports.extend(import_bindings(node, self._pos, self.typing_only, self.guarded, branch))
