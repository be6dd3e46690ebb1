"""Index one module: read its source with LibCST into a plain ``ModuleIndex``.

Only what the compiler reasons about is read: imports, classes (bases, class-level
attributes, method signatures), functions (decorators, parameters, docstrings),
module-level assignments and calls, including those inside ``if``/``try``/``with``
blocks, which are marked with the branch they sit in (and imports under ``if
TYPE_CHECKING:`` as never run).  Function bodies are never visited with LibCST: the
imports in them, and ``import_module("name")`` calls, are read from the ``ast`` tree by
``index_imports``.  This module walks the module's blocks and reads its imports;
``index_definitions`` reads classes, functions and assignments, ``index_expressions``
the expressions in them.

No LibCST metadata is resolved: ``PositionProvider`` costs more than the parse itself.
Positions come instead from the standard library's ``ast`` for the same bytes (a
fifteenth of LibCST's parse), walked in step with the LibCST tree: every statement and
expression the index records has its ``ast`` twin, whose position is exact and is the
one editors and CPython's own errors show.  Where the two trees do not pair up, a node
is recorded with its path instead, and ``locate`` finds its position on demand.

Before LibCST sees a file, ``syntax_check.check_syntax`` asks CPython whether it
compiles and measures its nesting, so that no file LibCST's parser would crash on
reaches it.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from .index_definitions import DefinitionReader, suite_block
from .index_expressions import dotted_name, item_at
from .index_imports import is_type_checking, scan_imports
from .syntax_check import NESTING_HINT, check_syntax, syntax_error
from .types import Call, ClassInfo, Diagnostic, FunctionInfo, ImportBinding, ModuleIndex, NodePath, Pos, ValueBinding

__all__ = ["IndexFailure", "analyse_source", "index_source"]


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
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        message = error.message.removeprefix("parser error: ")
        refused = syntax_error(
            path,
            f"skillc's parser cannot read this, though Python accepts it: {message}",
            error.raw_line,
            error.raw_column,
        )
        return None, (refused, *problems)
    indexer = _Indexer(module, tree, source)
    try:
        with warnings.catch_warnings():
            # LibCST evaluates strings with ``ast.literal_eval``, which warns again about
            # what ``check_syntax`` has already reported: never print it, never raise it.
            warnings.simplefilter("ignore")
            return indexer.run(path, module_name, is_package), problems
    except RecursionError:  # a LibCST helper that recurses once per level of nesting
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

    def __init__(self, module: cst.Module, tree: ast.Module | None, source: bytes) -> None:
        super().__init__(module, source)
        self.tree = tree
        self.source = source
        self.imports: list[ImportBinding] = []
        self.classes: list[ClassInfo] = []
        self.functions: list[FunctionInfo] = []
        self.assignments: list[ValueBinding] = []
        self.calls: list[Call] = []
        #: Whether the statements being indexed sit under ``if TYPE_CHECKING:``.
        self.typing_only = False

    def run(self, path: str, module_name: str, is_package: bool) -> ModuleIndex:
        docstring = self.module.get_docstring()  # first, while ``statement`` is still line 1
        self._module_block(self.module.body, ("body",), self.tree.body if self.tree else None, None)
        scan = None
        if self.tree is not None:
            scan = scan_imports(self.tree, self.source, module_name, is_package, lambda node: self._pos(node, ()))
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
            inner_imports=scan.inner if scan else (),
            dynamic_imports=scan.dynamic if scan else (),
            reexport_only=scan.reexport_only if scan else False,
        )

    # --- module level -----------------------------------------------------------------

    def _module_block(
        self,
        body: Sequence[cst.CSTNode],
        prefix: NodePath,
        ast_body: Sequence[ast.stmt] | None,
        branch: str | None,
    ) -> None:
        for node, path, pos, twin in self._paired(body, prefix, ast_body):
            if isinstance(node, cst.Import):
                self._import(node, path, pos, twin, branch)
            elif isinstance(node, cst.ImportFrom):
                self._import_from(node, path, pos, twin, branch)
            elif isinstance(node, cst.ClassDef):
                self.classes.append(self._class(node, path, pos, twin, branch))
            elif isinstance(node, cst.FunctionDef):
                self.functions.append(self._function(node, path, pos, twin, branch))
            elif isinstance(node, cst.Assign | cst.AnnAssign):
                self.assignments.extend(self._bindings(node, path, pos, twin, branch))
            elif isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
                value_twin = twin.value if isinstance(twin, ast.Expr) else None
                call = self._expr(node.value, (*path, "value"), pos, value_twin)
                assert isinstance(call, Call)
                self.calls.append(call)
            else:
                self._nested(node, path, pos, twin)

    def _nested(self, node: cst.CSTNode, path: NodePath, pos: Pos, twin: ast.stmt | None) -> None:
        """Index the blocks of ``if``/``try``/``with``, marking the branch of each."""
        label = f"{type(node).__name__.lower()}@{pos.line}"
        if isinstance(node, cst.If):
            self._if(node, path, pos, twin)
        elif isinstance(node, cst.Try | cst.TryStar):
            ast_try = twin if isinstance(twin, ast.Try | ast.TryStar) else None
            self._branch(node.body, path, ast_try.body if ast_try else None, f"{label}:body")
            handlers: Sequence[cst.ExceptHandler | cst.ExceptStarHandler] = node.handlers
            for index, handler in enumerate(handlers):
                ast_handler = ast_try.handlers[index] if ast_try else None
                self._branch(
                    handler.body,
                    (*path, "handlers", index),
                    ast_handler.body if ast_handler else None,
                    f"{label}:except{index}",
                )
            if node.orelse is not None:
                self._branch(
                    node.orelse.body,
                    (*path, "orelse"),
                    ast_try.orelse if ast_try else None,
                    f"{label}:body",
                )
            if node.finalbody is not None:
                self._branch(
                    node.finalbody.body,
                    (*path, "finalbody"),
                    ast_try.finalbody if ast_try else None,
                    None,
                )
        elif isinstance(node, cst.With):
            ast_with = twin if isinstance(twin, ast.With) else None
            self._branch(node.body, path, ast_with.body if ast_with else None, None)

    def _if(self, node: cst.If, path: NodePath, pos: Pos, twin: ast.stmt | None) -> None:
        """Index an ``if`` and each ``elif`` after it: its own if statement, its own branches.

        A loop rather than a recursion: a generated chain may hold thousands of ``elif``.
        """
        current: cst.CSTNode = node
        while isinstance(current, cst.If):
            label = f"if@{pos.line}"
            ast_if = twin if isinstance(twin, ast.If) else None
            ast_orelse = ast_if.orelse if ast_if else None
            typing_only, self.typing_only = self.typing_only, self.typing_only or is_type_checking(current.test)
            self._branch(current.body, path, ast_if.body if ast_if else None, f"{label}:body")
            self.typing_only = typing_only
            orelse = current.orelse
            if isinstance(orelse, cst.Else):
                self._branch(orelse.body, (*path, "orelse"), ast_orelse, f"{label}:orelse")
            if not isinstance(orelse, cst.If):
                return
            ((current, path, pos, twin),) = self._paired([orelse], (*path, "orelse"), ast_orelse)

    def _branch(
        self,
        suite: cst.BaseSuite,
        path: NodePath,
        ast_body: Sequence[ast.stmt] | None,
        branch: str | None,
    ) -> None:
        body, prefix = suite_block(suite, (*path, "body"))
        self._module_block(body, prefix, ast_body, branch)

    # --- imports ----------------------------------------------------------------------

    def _aliases(self, twin: ast.stmt | None) -> Sequence[ast.AST] | None:
        return twin.names if isinstance(twin, ast.Import | ast.ImportFrom) else None

    def _import(self, node: cst.Import, path: NodePath, pos: Pos, twin: ast.stmt | None, branch: str | None) -> None:
        aliases = self._aliases(twin)
        for index, alias in enumerate(node.names):
            dotted = dotted_name(alias.name) or ""
            alias_pos = self._pos(item_at(aliases, index), (*path, "names", index), pos)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            else:
                local = dotted.split(".")[0]
            self.imports.append(
                ImportBinding(local, dotted, None, 0, alias_pos, branch=branch, typing_only=self.typing_only)
            )

    def _import_from(
        self, node: cst.ImportFrom, path: NodePath, pos: Pos, twin: ast.stmt | None, branch: str | None
    ) -> None:
        module = dotted_name(node.module) if node.module is not None else ""
        level = len(node.relative)
        if isinstance(node.names, cst.ImportStar):
            self.imports.append(ImportBinding("*", module or "", None, level, pos, star=True, branch=branch))
            return
        aliases = self._aliases(twin)
        for index, alias in enumerate(node.names):
            name = dotted_name(alias.name) or ""
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            alias_pos = self._pos(item_at(aliases, index), (*path, "names", index), pos)
            self.imports.append(
                ImportBinding(local, module or "", name, level, alias_pos, branch=branch, typing_only=self.typing_only)
            )
