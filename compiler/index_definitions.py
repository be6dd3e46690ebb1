"""Read the definitions of one module from its ``ast`` tree: classes, functions, parameters, assignments.

A ``DefinitionReader`` reads what the compiler reasons about: a class's bases,
keywords, decorators, class-level attributes and method signatures; a function's
decorators, parameters, return annotation and docstring; the names an assignment
binds.  Of a function's body only its top-level statements are looked at, for the first
that does something (``FunctionInfo.code_at``), and, where its text holds ``yield``, its own
code, for the first ``yield`` (``FunctionInfo.yields_at``); of a function that is not a method,
what it returns when that is plain (``FunctionInfo.gives``: what a decorator makes of what it
decorates).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from .index_expressions import ExpressionReader
from .index_types import ClassInfo, Expr, FunctionInfo, Gives, Param, ValueBinding
from .types import Pos

__all__ = ["DefinitionReader"]

#: Statements of a class body that neither define anything nor are skipped over.
_INERT = (ast.Expr, ast.Pass, ast.Import, ast.ImportFrom)


class DefinitionReader(ExpressionReader):
    """Reads definitions statement by statement; ``index`` walks the blocks of a module with it."""

    def __init__(self, source: bytes) -> None:
        super().__init__(source)
        #: The statement being indexed, where a ``RecursionError`` is reported.
        self.statement = Pos(1, 0)

    def _placed(self, body: Sequence[ast.stmt]) -> Iterator[tuple[ast.stmt, Pos]]:
        """Each statement of a block with its position, noted as the one being indexed."""
        for node in body:
            self.statement = self._pos(node)
            yield node, self.statement

    # --- definitions ------------------------------------------------------------------

    def _class(self, node: ast.ClassDef, pos: Pos, branch: str | None) -> ClassInfo:
        docstring = ast.get_docstring(node)
        alone = len(node.bases) + len(node.keywords) == 1
        bases: list[Expr] = [
            # ``class A(*bases)``: the starred name, placed at its star
            self._expr(base.value, base, alone) if isinstance(base, ast.Starred) else self._expr(base, wrapped=alone)
            for base in node.bases
        ]
        keywords = [(item.arg, self._expr(item.value)) for item in node.keywords if item.arg is not None]
        attributes: list[ValueBinding] = []
        methods: list[FunctionInfo] = []
        classes: list[ClassInfo] = []
        skipped: list[Pos] = []
        for statement, statement_pos in self._placed(node.body):
            if isinstance(statement, ast.Assign | ast.AnnAssign):
                attributes.extend(self._bindings(statement, statement_pos, None))
            elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                methods.append(self._function(statement, statement_pos, None, method=True))
            elif isinstance(statement, ast.ClassDef):
                classes.append(self._class(statement, statement_pos, None))
            elif not isinstance(statement, _INERT):
                skipped.append(statement_pos)
        return ClassInfo(
            name=node.name,
            bases=tuple(bases),
            keywords=tuple(keywords),
            decorators=tuple(self._expr(item) for item in node.decorator_list),
            attributes=tuple(attributes),
            methods=tuple(methods),
            docstring=docstring,
            pos=pos,
            branch=branch,
            classes=tuple(classes),
            skipped=tuple(skipped),
            self_assignments=self._self_assignments(node.body),
        )

    def _self_assignments(self, body: Sequence[ast.stmt]) -> tuple[tuple[str, Pos], ...]:
        """The attributes the methods of a class body assign on their first parameter, first assignment each."""
        found: dict[str, Pos] = {}
        for method in body:
            if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) or not method.body:
                continue
            decorators = {item.id for item in method.decorator_list if isinstance(item, ast.Name)}
            positional = [*method.args.posonlyargs, *method.args.args]
            if "staticmethod" in decorators or not positional:
                continue
            owner = positional[0].arg
            if not self._mentions(method, (owner + ".").encode()):
                continue  # most methods, decided without walking them
            for item in _own_code(method.body):
                targets: list[ast.expr] = []
                if isinstance(item, ast.Assign):
                    targets = list(item.targets)
                elif isinstance(item, ast.AnnAssign | ast.AugAssign):
                    targets = [item.target]
                while targets:
                    target = targets.pop(0)
                    if isinstance(target, ast.Tuple | ast.List):
                        targets[:0] = target.elts
                    elif isinstance(target, ast.Starred):
                        targets.insert(0, target.value)
                    elif (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == owner
                    ):
                        found.setdefault(target.attr, self._pos(target))
        return tuple(sorted(found.items(), key=lambda item: (item[1].line, item[1].col)))

    def _function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, pos: Pos, branch: str | None, *, method: bool = False
    ) -> FunctionInfo:
        arguments = node.args
        params: list[Param] = []
        # ast keeps the defaults of positional parameters right-aligned in one list.
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
        defaults.extend(arguments.defaults)
        for index, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
            kind = "positional_only" if index < len(arguments.posonlyargs) else "normal"
            params.append(self._param(arg, kind, default))
        for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
            params.append(self._param(arg, "keyword_only", default))
        if arguments.vararg is not None:
            params.append(self._param(arguments.vararg, "var_positional", None))
        if arguments.kwarg is not None:
            params.append(self._param(arguments.kwarg, "var_keyword", None))
        return FunctionInfo(
            name=node.name,
            params=tuple(params),
            decorators=tuple(self._expr(item) for item in node.decorator_list),
            is_async=isinstance(node, ast.AsyncFunctionDef),
            docstring=ast.get_docstring(node),
            returns=self._expr(node.returns) if node.returns is not None else None,
            pos=pos,
            branch=branch,
            code_at=next((self._pos(item) for item in node.body if not _does_nothing(item)), None),
            yields_at=self._first_yield(node),
            gives=None if method else self._gives(node, positional),
        )

    def _gives(self, node: ast.FunctionDef | ast.AsyncFunctionDef, positional: Sequence[ast.arg]) -> Gives | None:
        """What every call returns, for a plain function with a positional parameter (``Gives``), if its code says.

        Decided from the text alone for most functions: only one whose last statement returns
        its first parameter, or a function defined in its body, has its own code walked.
        """
        if not positional or isinstance(node, ast.AsyncFunctionDef) or self._mentions(node, b"yield"):
            return None
        if not self._mentions(node, b"return"):
            return _GIVES_NOTHING
        last = node.body[-1]
        if not isinstance(last, ast.Return) or not isinstance(last.value, ast.Name):
            return None
        name = last.value.id
        defined = [
            item for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name == name
        ]
        if name != positional[0].arg and len(defined) != 1:
            return None
        for item in _own_code(node.body):
            if isinstance(item, ast.Return) and not (isinstance(item.value, ast.Name) and item.value.id == name):
                return None  # another return gives something else
            if isinstance(item, ast.Name) and item.id == name and not isinstance(item.ctx, ast.Load):
                return None  # the name is bound again
            if isinstance(item, ast.Global | ast.Nonlocal) and name in item.names:
                return None
        if name == positional[0].arg:
            return _GIVES_ARGUMENT
        inner = defined[0]
        patched = any(self._mentions(node, text) for text in (b"update_wrapper", b"__wrapped__", b"__signature__"))
        return Gives("function", self._function(inner, self._pos(inner), None), patched)

    def _first_yield(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Pos | None:
        """Where the function's own body first yields, not a function, lambda or class inside it."""
        if not self._mentions(node, b"yield"):
            return None  # the usual case, decided without walking the body
        found = (self._pos(item) for item in _own_code(node.body) if isinstance(item, ast.Yield | ast.YieldFrom))
        return min(found, key=lambda pos: (pos.line, pos.col), default=None)

    def _mentions(self, function: ast.FunctionDef | ast.AsyncFunctionDef, text: bytes) -> bool:
        """Whether the source of ``function``'s body holds ``text`` (its code may use it only then)."""
        first, last = function.body[0].lineno, function.end_lineno or function.body[-1].lineno
        return any(text in line for line in self.lines[first - 1 : last])

    def _param(self, arg: ast.arg, kind: str, default: ast.expr | None) -> Param:
        return Param(
            name=arg.arg,
            kind=kind,  # type: ignore[arg-type]
            annotation=self._expr(arg.annotation) if arg.annotation is not None else None,
            default=self._expr(default) if default is not None else None,
            pos=self._pos(arg),
        )

    def _bindings(self, node: ast.Assign | ast.AnnAssign, pos: Pos, branch: str | None) -> list[ValueBinding]:
        value = self._expr(node.value) if node.value is not None else None
        if isinstance(node, ast.AnnAssign):
            annotation = self._expr(node.annotation)
            if isinstance(node.target, ast.Name):
                return [ValueBinding(node.target.id, value, annotation, pos, branch)]
            return []
        found: list[ValueBinding] = []
        for target in node.targets:
            # Unpacking binds each name to a part of the value, which is not known here.
            bound = value if isinstance(target, ast.Name) else None
            found.extend(ValueBinding(name, bound, None, pos, branch) for name in _target_names(target))
        return found


_GIVES_NOTHING = Gives("nothing")
_GIVES_ARGUMENT = Gives("argument")


def _does_nothing(statement: ast.stmt) -> bool:
    """A docstring, ``...`` or another constant on its own, ``pass``, or ``return`` / ``return None``."""
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr):
        return isinstance(statement.value, ast.Constant)
    if isinstance(statement, ast.Return):
        return statement.value is None or (isinstance(statement.value, ast.Constant) and statement.value.value is None)
    return False


def _target_names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _target_names(element)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


def _own_code(body: Sequence[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of a function's body that is its own code, in order: none of a function,
    lambda or class defined in it."""
    pending: list[ast.AST] = list(reversed(body))
    while pending:
        item = pending.pop()
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        yield item
        pending.extend(reversed(list(ast.iter_child_nodes(item))))
