"""Attribute docstrings: the string written under a field, pydantic's ``use_attribute_docstrings``.

The module summaries keep no expression statements, so the class is read again from its
source, as pydantic reads it (``_docs_extraction``): a string statement right after an
annotated assignment to a name is that name's docstring, cleaned with
``inspect.cleandoc``; nested classes and functions are not looked into.  A leaf.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any

__all__ = ["attribute_docstrings"]


class _DocstringVisitor(ast.NodeVisitor):
    """pydantic's ``DocstringVisitor``, statement for statement."""

    def __init__(self) -> None:
        super().__init__()
        self.target: str | None = None
        self.attrs: dict[str, str] = {}
        self.previous_node_type: type[ast.AST] | None = None

    def visit(self, node: ast.AST) -> Any:
        result = super().visit(node)
        self.previous_node_type = type(node)
        return result

    def visit_AnnAssign(self, node: ast.AnnAssign) -> Any:
        if isinstance(node.target, ast.Name):
            self.target = node.target.id

    def visit_Expr(self, node: ast.Expr) -> Any:
        if (
            isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            and self.previous_node_type is ast.AnnAssign
        ):
            docstring = inspect.cleandoc(node.value.value)
            if self.target:
                self.attrs[self.target] = docstring
            self.target = None

    def visit_ClassDef(self, node: ast.ClassDef) -> Any:
        pass

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        pass

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> Any:
        pass


def attribute_docstrings(source: bytes, name: str, line: int) -> dict[str, str] | None:
    """The attribute docstrings of the module-level class ``name`` defined at ``line``
    (its ``class`` line or a decorator's), or ``None`` when it cannot be found."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == name]
    found = [
        node for node in classes if line in (node.lineno, *(decorator.lineno for decorator in node.decorator_list))
    ]
    if len(found) != 1:
        return None
    visitor = _DocstringVisitor()
    visitor.generic_visit(found[0])
    return visitor.attrs
