"""Read the definitions of one module with LibCST: classes, functions, parameters and assignments.

A ``DefinitionReader`` pairs each statement of a block with its ``ast`` twin (the two
trees list a block's statements in the same order) and reads what the compiler
reasons about: a class's bases, keywords, decorators, class-level attributes and
method signatures; a function's decorators, parameters, return annotation and
docstring; the names an assignment binds.  Function bodies are never visited.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

import libcst as cst

from .index_expressions import ExpressionReader, item_at
from .types import ClassInfo, Expr, FunctionInfo, NodePath, Param, Pos, ValueBinding

__all__ = ["DefinitionReader", "suite_block"]


def _statements(body: Sequence[cst.CSTNode], prefix: NodePath) -> Iterator[tuple[cst.CSTNode, NodePath]]:
    """Yield each statement of a block, small statements of a line one by one.

    The order matches ``ast``'s list of statements for the same block.
    """
    for index, statement in enumerate(body):
        if isinstance(statement, cst.SimpleStatementLine):
            for inner, small in enumerate(statement.body):
                yield small, (*prefix, index, "body", inner)
        else:
            yield statement, (*prefix, index)


def suite_block(node: cst.BaseSuite, path: NodePath) -> tuple[Sequence[cst.CSTNode], NodePath]:
    """The statements of a suite and their path (an indented block or ``: stmt; stmt``)."""
    if isinstance(node, cst.IndentedBlock | cst.SimpleStatementSuite):
        return node.body, (*path, "body")
    return (), path


class DefinitionReader(ExpressionReader):
    """Reads definitions statement by statement; ``index`` walks the blocks of a module with it."""

    def __init__(self, module: cst.Module, source: bytes) -> None:
        super().__init__(module, source)
        #: The statement being indexed, where a ``RecursionError`` is reported.
        self.statement = Pos(1, 0)

    def _paired(
        self, body: Sequence[cst.CSTNode], prefix: NodePath, ast_body: Sequence[ast.stmt] | None
    ) -> Iterator[tuple[cst.CSTNode, NodePath, Pos, ast.stmt | None]]:
        """Pair each statement with its ``ast`` twin and its exact position."""
        nodes = list(_statements(body, prefix))
        twins: Sequence[ast.stmt | None]
        if ast_body is not None and len(ast_body) == len(nodes):
            twins = ast_body
        else:
            twins = [None] * len(nodes)
        for (node, path), twin in zip(nodes, twins, strict=True):
            self.statement = self._pos(twin, path)
            yield node, path, self.statement, twin

    # --- definitions ------------------------------------------------------------------

    def _class(
        self, node: cst.ClassDef, path: NodePath, pos: Pos, twin: ast.stmt | None, branch: str | None
    ) -> ClassInfo:
        ast_class = twin if isinstance(twin, ast.ClassDef) else None
        docstring = node.get_docstring()  # before the body moves ``statement`` on
        bases: list[Expr] = []
        keywords: list[tuple[str, Expr]] = []
        for index, arg in enumerate(node.bases):
            base_twin = item_at(ast_class.bases if ast_class else None, index)
            bases.append(self._expr(arg.value, (*path, "bases", index, "value"), pos, base_twin))
        keyword_index = 0
        for index, arg in enumerate(node.keywords):
            keyword_twin = item_at(ast_class.keywords if ast_class else None, keyword_index)
            keyword_index += 1
            if arg.keyword is not None:
                value_twin = keyword_twin.value if isinstance(keyword_twin, ast.keyword) else None
                value = self._expr(arg.value, (*path, "keywords", index, "value"), pos, value_twin)
                keywords.append((arg.keyword.value, value))
        attributes: list[ValueBinding] = []
        methods: list[FunctionInfo] = []
        body, prefix = suite_block(node.body, (*path, "body"))
        ast_body = ast_class.body if ast_class else None
        nested: list[tuple[str, Pos]] = []
        skipped: list[Pos] = []
        for statement, statement_path, statement_pos, statement_twin in self._paired(body, prefix, ast_body):
            if isinstance(statement, cst.Assign | cst.AnnAssign):
                attributes.extend(self._bindings(statement, statement_path, statement_pos, statement_twin, None))
            elif isinstance(statement, cst.FunctionDef):
                methods.append(self._function(statement, statement_path, statement_pos, statement_twin, None))
            elif isinstance(statement, cst.ClassDef):
                nested.append((statement.name.value, statement_pos))
            elif not isinstance(statement, cst.Expr | cst.Pass | cst.Import | cst.ImportFrom):
                skipped.append(statement_pos)
        return ClassInfo(
            name=node.name.value,
            bases=tuple(bases),
            keywords=tuple(keywords),
            decorators=self._decorators(node.decorators, path, pos, ast_class.decorator_list if ast_class else None),
            attributes=tuple(attributes),
            methods=tuple(methods),
            docstring=docstring,
            pos=pos,
            branch=branch,
            nested=tuple(nested),
            skipped=tuple(skipped),
        )

    def _decorators(
        self,
        decorators: Sequence[cst.Decorator],
        path: NodePath,
        pos: Pos,
        twins: Sequence[ast.expr] | None,
    ) -> tuple[Expr, ...]:
        return tuple(
            self._expr(item.decorator, (*path, "decorators", index, "decorator"), pos, item_at(twins, index))
            for index, item in enumerate(decorators)
        )

    def _function(
        self, node: cst.FunctionDef, path: NodePath, pos: Pos, twin: ast.stmt | None, branch: str | None
    ) -> FunctionInfo:
        ast_function = twin if isinstance(twin, ast.FunctionDef | ast.AsyncFunctionDef) else None
        arguments = ast_function.args if ast_function else None
        params: list[Param] = []
        # ast keeps the defaults of positional parameters right-aligned in one list.
        positional = [*node.params.posonly_params, *node.params.params]
        ast_positional = [*arguments.posonlyargs, *arguments.args] if arguments else None
        ast_defaults: list[ast.expr | None] = []
        if arguments is not None:
            padding = len(ast_positional or []) - len(arguments.defaults)
            ast_defaults = [None] * padding + list(arguments.defaults)
        for index, param in enumerate(positional):
            only = index < len(node.params.posonly_params)
            attribute = "posonly_params" if only else "params"
            offset = index if only else index - len(node.params.posonly_params)
            params.append(
                self._param(
                    param,
                    "positional_only" if only else "normal",
                    (*path, "params", attribute, offset),
                    pos,
                    item_at(ast_positional, index),
                    item_at(ast_defaults, index),
                )
            )
        for index, param in enumerate(node.params.kwonly_params):
            params.append(
                self._param(
                    param,
                    "keyword_only",
                    (*path, "params", "kwonly_params", index),
                    pos,
                    item_at(arguments.kwonlyargs if arguments else None, index),
                    item_at(arguments.kw_defaults if arguments else None, index),
                )
            )
        star_arg = node.params.star_arg
        if isinstance(star_arg, cst.Param):
            params.append(
                self._param(
                    star_arg,
                    "var_positional",
                    (*path, "params", "star_arg"),
                    pos,
                    arguments.vararg if arguments else None,
                    None,
                )
            )
        if node.params.star_kwarg is not None:
            params.append(
                self._param(
                    node.params.star_kwarg,
                    "var_keyword",
                    (*path, "params", "star_kwarg"),
                    pos,
                    arguments.kwarg if arguments else None,
                    None,
                )
            )
        returns = None
        if node.returns is not None:
            returns = self._expr(
                node.returns.annotation,
                (*path, "returns", "annotation"),
                pos,
                ast_function.returns if ast_function else None,
            )
        return FunctionInfo(
            name=node.name.value,
            params=tuple(params),
            decorators=self._decorators(
                node.decorators, path, pos, ast_function.decorator_list if ast_function else None
            ),
            is_async=node.asynchronous is not None,
            docstring=node.get_docstring(),
            returns=returns,
            pos=pos,
            branch=branch,
        )

    def _param(
        self,
        param: cst.Param,
        kind: str,
        path: NodePath,
        statement: Pos,
        twin: ast.arg | None,
        default_twin: ast.expr | None,
    ) -> Param:
        annotation = None
        if param.annotation is not None:
            annotation = self._expr(
                param.annotation.annotation,
                (*path, "annotation", "annotation"),
                statement,
                twin.annotation if twin is not None else None,
            )
        default = None
        if param.default is not None:
            default = self._expr(param.default, (*path, "default"), statement, default_twin)
        return Param(
            name=param.name.value,
            kind=kind,  # type: ignore[arg-type]
            annotation=annotation,
            default=default,
            pos=self._pos(twin, path, statement),
        )

    def _bindings(
        self,
        node: cst.Assign | cst.AnnAssign,
        path: NodePath,
        pos: Pos,
        twin: ast.stmt | None,
        branch: str | None,
    ) -> list[ValueBinding]:
        value_twin = twin.value if isinstance(twin, ast.Assign | ast.AnnAssign) else None
        value = None
        if node.value is not None:
            value = self._expr(node.value, (*path, "value"), pos, value_twin)
        if isinstance(node, cst.AnnAssign):
            annotation = self._expr(
                node.annotation.annotation,
                (*path, "annotation", "annotation"),
                pos,
                twin.annotation if isinstance(twin, ast.AnnAssign) else None,
            )
            if isinstance(node.target, cst.Name):
                return [ValueBinding(node.target.value, value, annotation, pos, branch)]
            return []
        found: list[ValueBinding] = []
        for target in node.targets:
            for name in _target_names(target.target):
                # Unpacking binds each name to a part of the value, which is not known here.
                bound = value if isinstance(target.target, cst.Name) else None
                found.append(ValueBinding(name, bound, None, pos, branch))
        return found


def _target_names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            yield from _target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_names(target.value)
