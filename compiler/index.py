"""Index one module: read its source with LibCST into a plain ``ModuleIndex``.

Only what the compiler reasons about is read: imports, classes (bases, class-level
attributes, method signatures), functions (decorators, parameters, docstrings),
module-level assignments and calls, including those inside ``if``/``try``/``with``
blocks, which are marked with the branch they sit in.  Function bodies are never
visited.

No LibCST metadata is resolved here: it costs more than the parse itself.  Statements
get their exact positions from the standard library's ``ast`` (parsing the same bytes
costs a fifteenth of LibCST's parse); a node inside a statement records the statement's
position plus the path to the node, and ``locate`` finds its exact position only when
a diagnostic needs it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from .types import (
    BinOp,
    Call,
    ClassInfo,
    Const,
    Container,
    Diagnostic,
    Dynamic,
    Expr,
    FunctionInfo,
    ImportBinding,
    ModuleIndex,
    NodePath,
    Param,
    Pos,
    Ref,
    Severity,
    Subscript,
    ValueBinding,
)

__all__ = ["IndexFailure", "index_source", "syntax_error"]

_DYNAMIC_TEXT_LIMIT = 80
_BINARY_OPERATORS = {
    cst.BitOr: "|",
    cst.BitAnd: "&",
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.BitXor: "^",
    cst.LeftShift: "<<",
    cst.RightShift: ">>",
    cst.MatrixMultiply: "@",
}


@dataclass(frozen=True)
class IndexFailure:
    """A file that could not be indexed: the diagnostics say why."""

    path: str
    diagnostics: tuple[Diagnostic, ...]


def syntax_error(path: str, source: bytes, message: str, line: int, col: int) -> Diagnostic:
    """A ``skill/syntax-error`` diagnostic, positioned by CPython's parser where it can."""
    try:
        ast.parse(source, filename=path)
    except SyntaxError as error:
        # CPython's position is the one users know from their editor; its offset is 1-based.
        if error.lineno is not None:
            line, col = error.lineno, max((error.offset or 1) - 1, 0)
            message = error.msg
    except (ValueError, RecursionError, MemoryError):
        pass
    else:
        message = message.removeprefix("parser error: ")
    return Diagnostic(
        code="skill/syntax-error",
        severity=Severity.ERROR,
        message=message,
        path=path,
        line=line,
        col=col,
        hint="fix the syntax; the rest of the project is still checked",
    )


def index_source(
    source: bytes, path: str, module_name: str, is_package: bool
) -> ModuleIndex | IndexFailure:
    """Index ``source``; a file that does not parse becomes an ``IndexFailure``."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        return IndexFailure(
            path, (syntax_error(path, source, error.message, error.raw_line, error.raw_column),)
        )
    try:
        tree: ast.Module | None = ast.parse(source, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None  # newer syntax than this interpreter knows: positions come from ``locate``
    return _Indexer(module, tree, source).run(path, module_name, is_package)


def _statements(
    body: Sequence[cst.BaseStatement | cst.BaseSmallStatement], prefix: NodePath
) -> Iterator[tuple[cst.CSTNode, NodePath]]:
    """Yield each statement of a block, small statements of a line one by one.

    The order matches ``ast``'s list of statements for the same block.
    """
    for index, statement in enumerate(body):
        if isinstance(statement, cst.SimpleStatementLine):
            for inner, small in enumerate(statement.body):
                yield small, (*prefix, index, "body", inner)
        else:
            yield statement, (*prefix, index)


def _block(node: cst.BaseSuite, path: NodePath) -> tuple[Sequence[cst.CSTNode], NodePath]:
    """The statements of a suite and their path (an indented block or ``: stmt; stmt``)."""
    if isinstance(node, cst.IndentedBlock):
        return node.body, (*path, "body")
    assert isinstance(node, cst.SimpleStatementSuite)
    return node.body, (*path, "body")


class _Indexer:
    """One pass over one module's statements; see the module docstring."""

    def __init__(self, module: cst.Module, tree: ast.Module | None, source: bytes) -> None:
        self.module = module
        self.tree = tree
        self.lines = source.splitlines()
        self.imports: list[ImportBinding] = []
        self.classes: list[ClassInfo] = []
        self.functions: list[FunctionInfo] = []
        self.assignments: list[ValueBinding] = []
        self.calls: list[Call] = []

    def run(self, path: str, module_name: str, is_package: bool) -> ModuleIndex:
        self._module_block(self.module.body, ("body",), self.tree.body if self.tree else None, None)
        return ModuleIndex(
            name=module_name,
            path=path,
            is_package=is_package,
            docstring=self.module.get_docstring(),
            imports=tuple(self.imports),
            classes=tuple(self.classes),
            functions=tuple(self.functions),
            assignments=tuple(self.assignments),
            calls=tuple(self.calls),
        )

    # --- positions ------------------------------------------------------------------

    def _statement_pos(self, node: ast.stmt | None, path: NodePath) -> Pos:
        if node is None:
            return Pos(0, 0, Pos.encode(path), exact=False)
        line = node.lineno
        raw = self.lines[line - 1] if 0 < line <= len(self.lines) else b""
        col = len(raw[: node.col_offset].decode("utf-8", "replace"))  # ast counts bytes
        return Pos(line, col, Pos.encode(path))

    @staticmethod
    def _inner(statement: Pos, path: NodePath) -> Pos:
        return Pos(statement.line, statement.col, Pos.encode(path), exact=False)

    def _paired(
        self, body: Sequence[cst.CSTNode], prefix: NodePath, ast_body: Sequence[ast.stmt] | None
    ) -> Iterator[tuple[cst.CSTNode, NodePath, Pos, ast.stmt | None]]:
        """Pair each statement with its ``ast`` twin and exact position."""
        nodes = list(_statements(body, prefix))  # type: ignore[arg-type]
        twins: Sequence[ast.stmt | None]
        if ast_body is not None and len(ast_body) == len(nodes):
            twins = ast_body
        else:
            twins = [None] * len(nodes)
        for (node, path), twin in zip(nodes, twins, strict=True):
            yield node, path, self._statement_pos(twin, path), twin

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
                self._import(node, path, pos, branch)
            elif isinstance(node, cst.ImportFrom):
                self._import_from(node, path, pos, branch)
            elif isinstance(node, cst.ClassDef):
                self.classes.append(self._class(node, path, pos, twin, branch))
            elif isinstance(node, cst.FunctionDef):
                self.functions.append(self._function(node, path, pos, branch))
            elif isinstance(node, cst.Assign | cst.AnnAssign):
                self.assignments.extend(self._bindings(node, path, pos, branch))
            elif isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
                call = self._expr(node.value, (*path, "value"), pos)
                assert isinstance(call, Call)
                self.calls.append(call)
            else:
                self._nested(node, path, pos, twin)

    def _nested(self, node: cst.CSTNode, path: NodePath, pos: Pos, twin: ast.stmt | None) -> None:
        """Index the blocks of ``if``/``try``/``with``/loops, marking their branch."""
        label = f"{type(node).__name__.lower()}@{pos.line}"
        if isinstance(node, cst.If):
            ast_if = twin if isinstance(twin, ast.If) else None
            self._branch(node.body, path, ast_if.body if ast_if else None, f"{label}:body")
            orelse = node.orelse
            if isinstance(orelse, cst.If):
                self._module_block(
                    [orelse], (*path, "orelse"), ast_if.orelse if ast_if else None, None
                )
            elif isinstance(orelse, cst.Else):
                self._branch(
                    orelse.body, (*path, "orelse"), ast_if.orelse if ast_if else None,
                    f"{label}:orelse",
                )
        elif isinstance(node, cst.Try | cst.TryStar):
            ast_try = twin if isinstance(twin, ast.Try | ast.TryStar) else None
            self._branch(node.body, path, ast_try.body if ast_try else None, f"{label}:body")
            handlers: Sequence[cst.ExceptHandler | cst.ExceptStarHandler] = node.handlers
            for index, handler in enumerate(handlers):
                ast_handler = ast_try.handlers[index] if ast_try else None
                self._branch(
                    handler.body, (*path, "handlers", index),
                    ast_handler.body if ast_handler else None, f"{label}:except{index}",
                )
            if node.orelse is not None:
                self._branch(
                    node.orelse.body, (*path, "orelse"), ast_try.orelse if ast_try else None,
                    f"{label}:body",
                )
            if node.finalbody is not None:
                self._branch(
                    node.finalbody.body, (*path, "finalbody"),
                    ast_try.finalbody if ast_try else None, None,
                )
        elif isinstance(node, cst.With):
            ast_with = twin if isinstance(twin, ast.With) else None
            self._branch(node.body, path, ast_with.body if ast_with else None, None)

    def _branch(
        self,
        suite: cst.BaseSuite,
        path: NodePath,
        ast_body: Sequence[ast.stmt] | None,
        branch: str | None,
    ) -> None:
        body, prefix = _block(suite, (*path, "body"))
        self._module_block(body, prefix, ast_body, branch)

    # --- imports ----------------------------------------------------------------------

    def _import(self, node: cst.Import, path: NodePath, pos: Pos, branch: str | None) -> None:
        for index, alias in enumerate(node.names):
            dotted = _dotted(alias.name) or ""
            alias_pos = self._inner(pos, (*path, "names", index))
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            else:
                local = dotted.split(".")[0]
            self.imports.append(ImportBinding(local, dotted, None, 0, alias_pos, branch=branch))

    def _import_from(
        self, node: cst.ImportFrom, path: NodePath, pos: Pos, branch: str | None
    ) -> None:
        module = _dotted(node.module) if node.module is not None else ""
        level = len(node.relative)
        if isinstance(node.names, cst.ImportStar):
            self.imports.append(
                ImportBinding("*", module or "", None, level, pos, star=True, branch=branch)
            )
            return
        for index, alias in enumerate(node.names):
            name = _dotted(alias.name) or ""
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            alias_pos = self._inner(pos, (*path, "names", index))
            self.imports.append(
                ImportBinding(local, module or "", name, level, alias_pos, branch=branch)
            )

    # --- definitions ------------------------------------------------------------------

    def _class(
        self, node: cst.ClassDef, path: NodePath, pos: Pos, twin: ast.stmt | None, branch: str | None
    ) -> ClassInfo:
        bases: list[Expr] = []
        keywords: list[tuple[str, Expr]] = []
        for index, arg in enumerate(node.bases):
            bases.append(self._expr(arg.value, (*path, "bases", index, "value"), pos))
        for index, arg in enumerate(node.keywords):
            if arg.keyword is not None:
                value = self._expr(arg.value, (*path, "keywords", index, "value"), pos)
                keywords.append((arg.keyword.value, value))
        attributes: list[ValueBinding] = []
        methods: list[FunctionInfo] = []
        body, prefix = _block(node.body, (*path, "body"))
        ast_body = twin.body if isinstance(twin, ast.ClassDef) else None
        for statement, statement_path, statement_pos, _ in self._paired(body, prefix, ast_body):
            if isinstance(statement, cst.Assign | cst.AnnAssign):
                attributes.extend(self._bindings(statement, statement_path, statement_pos, None))
            elif isinstance(statement, cst.FunctionDef):
                methods.append(self._function(statement, statement_path, statement_pos, None))
        return ClassInfo(
            name=node.name.value,
            bases=tuple(bases),
            keywords=tuple(keywords),
            decorators=self._decorators(node.decorators, path, pos),
            attributes=tuple(attributes),
            methods=tuple(methods),
            docstring=node.get_docstring(),
            pos=pos,
            branch=branch,
        )

    def _decorators(
        self, decorators: Sequence[cst.Decorator], path: NodePath, pos: Pos
    ) -> tuple[Expr, ...]:
        return tuple(
            self._expr(item.decorator, (*path, "decorators", index, "decorator"), pos)
            for index, item in enumerate(decorators)
        )

    def _function(
        self, node: cst.FunctionDef, path: NodePath, pos: Pos, branch: str | None
    ) -> FunctionInfo:
        params: list[Param] = []
        groups: list[tuple[str, str, Sequence[cst.Param]]] = [
            ("posonly_params", "positional_only", node.params.posonly_params),
            ("params", "normal", node.params.params),
            ("kwonly_params", "keyword_only", node.params.kwonly_params),
        ]
        for attribute, kind, group in groups:
            for index, param in enumerate(group):
                params.append(self._param(param, kind, (*path, "params", attribute, index), pos))
        star_arg = node.params.star_arg
        if isinstance(star_arg, cst.Param):
            params.append(self._param(star_arg, "var_positional", (*path, "params", "star_arg"), pos))
        if node.params.star_kwarg is not None:
            params.append(
                self._param(node.params.star_kwarg, "var_keyword", (*path, "params", "star_kwarg"), pos)
            )
        returns = None
        if node.returns is not None:
            returns = self._expr(node.returns.annotation, (*path, "returns", "annotation"), pos)
        return FunctionInfo(
            name=node.name.value,
            params=tuple(params),
            decorators=self._decorators(node.decorators, path, pos),
            is_async=node.asynchronous is not None,
            docstring=node.get_docstring(),
            returns=returns,
            pos=pos,
            branch=branch,
        )

    def _param(self, param: cst.Param, kind: str, path: NodePath, pos: Pos) -> Param:
        annotation = None
        if param.annotation is not None:
            annotation = self._expr(param.annotation.annotation, (*path, "annotation", "annotation"), pos)
        default = None
        if param.default is not None:
            default = self._expr(param.default, (*path, "default"), pos)
        return Param(
            name=param.name.value,
            kind=kind,  # type: ignore[arg-type]
            annotation=annotation,
            default=default,
            pos=self._inner(pos, path),
        )

    def _bindings(
        self, node: cst.Assign | cst.AnnAssign, path: NodePath, pos: Pos, branch: str | None
    ) -> list[ValueBinding]:
        value = None
        if node.value is not None:
            value = self._expr(node.value, (*path, "value"), pos)
        if isinstance(node, cst.AnnAssign):
            annotation = self._expr(node.annotation.annotation, (*path, "annotation", "annotation"), pos)
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

    # --- expressions ------------------------------------------------------------------

    def _expr(self, node: cst.BaseExpression, path: NodePath, statement: Pos) -> Expr:
        pos = self._inner(statement, path)
        if isinstance(node, cst.Name):
            constants = {"True": True, "False": False, "None": None}
            if node.value in constants:
                return Const(constants[node.value], pos)
            return Ref(node.value, pos)
        if isinstance(node, cst.Attribute):
            dotted = _dotted(node)
            return Ref(dotted, pos) if dotted else self._dynamic(node, pos)
        if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
            value = node.evaluated_value
            return Const(value, pos) if value is not None else self._dynamic(node, pos)
        if isinstance(node, cst.Integer | cst.Float | cst.Imaginary):
            return Const(node.evaluated_value, pos)
        if isinstance(node, cst.Ellipsis):
            return Const(..., pos)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
            operand = node.expression
            if isinstance(operand, cst.Integer | cst.Float | cst.Imaginary):
                number = operand.evaluated_value
                return Const(-number if isinstance(node.operator, cst.Minus) else number, pos)
        if isinstance(node, cst.Call):
            return self._call(node, path, statement, pos)
        if isinstance(node, cst.List | cst.Tuple | cst.Set):
            items: list[Expr] = []
            has_star = False
            for index, element in enumerate(node.elements):
                if isinstance(element, cst.StarredElement):
                    has_star = True
                    continue
                items.append(self._expr(element.value, (*path, "elements", index, "value"), statement))
            kind = {cst.List: "list", cst.Tuple: "tuple", cst.Set: "set"}[type(node)]
            return Container(kind, tuple(items), pos, has_star=has_star)  # type: ignore[arg-type]
        if isinstance(node, cst.Dict):
            keys: list[Expr | None] = []
            values: list[Expr] = []
            has_star = False
            for index, entry in enumerate(node.elements):
                if isinstance(entry, cst.DictElement):
                    keys.append(self._expr(entry.key, (*path, "elements", index, "key"), statement))
                    values.append(self._expr(entry.value, (*path, "elements", index, "value"), statement))
                else:
                    has_star = True
            return Container("dict", tuple(values), pos, keys=tuple(keys), has_star=has_star)
        if isinstance(node, cst.Subscript):
            subject = self._expr(node.value, (*path, "value"), statement)
            parts: list[Expr] = []
            for index, part in enumerate(node.slice):
                if isinstance(part.slice, cst.Index) and part.slice.star is None:
                    parts.append(
                        self._expr(part.slice.value, (*path, "slice", index, "slice", "value"), statement)
                    )
                else:
                    parts.append(self._dynamic(part.slice, pos))
            return Subscript(subject, tuple(parts), pos)
        if isinstance(node, cst.BinaryOperation):
            symbol = _BINARY_OPERATORS.get(type(node.operator), "?")
            return BinOp(
                symbol,
                self._expr(node.left, (*path, "left"), statement),
                self._expr(node.right, (*path, "right"), statement),
                pos,
            )
        return self._dynamic(node, pos)

    def _call(self, node: cst.Call, path: NodePath, statement: Pos, pos: Pos) -> Call:
        func = self._expr(node.func, (*path, "func"), statement)
        args: list[Expr] = []
        kwargs: list[tuple[str, Expr]] = []
        has_star = False
        for index, arg in enumerate(node.args):
            if arg.star:
                has_star = True
                continue
            value = self._expr(arg.value, (*path, "args", index, "value"), statement)
            if arg.keyword is not None:
                kwargs.append((arg.keyword.value, value))
            else:
                args.append(value)
        return Call(func, tuple(args), tuple(kwargs), pos, has_star)

    def _dynamic(self, node: cst.CSTNode, pos: Pos) -> Dynamic:
        text = " ".join(self.module.code_for_node(node).split())
        if len(text) > _DYNAMIC_TEXT_LIMIT:
            text = text[: _DYNAMIC_TEXT_LIMIT - 3] + "..."
        return Dynamic(type(node).__name__, text, pos)


def _dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of names, else ``None``."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr.value}" if head is not None else None
    return None


def _target_names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            yield from _target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_names(target.value)
