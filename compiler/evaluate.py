"""The one static evaluator: the value of a literal, or of a module-level constant bound to one.

Settings (``timeout = 10``, ``name = NAME``) and schema values (``Field(default=...)``,
``ge=0``, ``model_config``) are both read here, never by running the code.  They are
read in two dialects, because the SDK and pydantic accept different values:

- *settings*: any literal (``complex`` and ``...`` included); a set display is read as
  a list; names are looked up as module-level constants (``linker.constant``);
- *pydantic*: only what has a JSON form; sets stay sets, dict keys are strings, the
  builtin constructors (``set()``, ``list((1, 2))``) of literals are values, and so are
  the members of project enums (through ``member``); names resolve as any reference.

What has no such value raises ``Unsupported`` at the innermost expression that has
none, or at the name that is bound to it; the reader that asked reports it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .index_types import BinOp, Call, Const, Container, Expr, Ref, Subscript
from .resolve import Linker
from .symbols import ValueSym
from .types import Pos

__all__ = ["MISSING", "Evaluator", "Missing", "Unsupported", "describe"]

_MAX_DEPTH = 64
# Builtin constructors a pydantic value may call on a literal (or on nothing).
_CONSTRUCTORS: dict[str, Any] = {
    "builtins.list": list,
    "builtins.tuple": tuple,
    "builtins.set": set,
    "builtins.frozenset": frozenset,
    "builtins.dict": dict,
}


class Unsupported(Exception):
    """Raised where the compiler cannot read a construct statically; caught where it is reported."""

    def __init__(self, module: str, pos: Pos, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.module = module
        self.pos = pos
        self.message = message
        #: What to do about it, when the usual hint of the check that reports it does not fit.
        self.hint = hint


class Missing:
    """No value: a parameter without default, ``Field(...)``, an unset keyword, no enum member."""


MISSING = Missing()

#: The value of an enum member such as ``Color.RED`` in a module, or ``MISSING`` for a name that is none.
MemberValue = Callable[[str, Ref], object]


class Evaluator:
    """Computes the value running the code would give a literal or constant, or raises ``Unsupported``.

    ``Unsupported`` is raised at the innermost expression without a static value, or at
    the name bound to one; no value is ever approximated.
    """

    def __init__(self, linker: Linker, *, pydantic: bool = False, member: MemberValue | None = None) -> None:
        self.linker = linker
        self.pydantic = pydantic
        self.member = member

    def value(self, module: str, expr: Expr) -> object:
        """The value of ``expr`` in ``module``; raises ``Unsupported`` where there is none."""
        return self._value(module, expr, 0)

    def _value(self, module: str, expr: Expr, depth: int) -> object:
        if depth > _MAX_DEPTH:
            raise Unsupported(module, expr.pos, "the value refers to itself")
        if isinstance(expr, Const):
            if self.pydantic and (isinstance(expr.value, complex) or expr.value is ...):
                raise Unsupported(module, expr.pos, f"{expr.value!r} has no JSON form")
            return expr.value
        if isinstance(expr, Container) and not expr.has_star:
            return self._container(module, expr, depth)
        if self.pydantic and isinstance(expr, Call) and not expr.has_star and not expr.kwargs and len(expr.args) <= 1:
            constructor = _CONSTRUCTORS.get(self.linker.external_name(module, expr.func) or "")
            if constructor is not None:  # set() is the only way to write an empty set
                argument = self._value(module, expr.args[0], depth + 1) if expr.args else ()
                if not isinstance(argument, list | tuple | set | frozenset | dict):
                    raise Unsupported(module, expr.pos, f"{describe(expr)} converts a value that is not a collection")
                try:
                    return constructor(argument)
                except TypeError:
                    raise Unsupported(module, expr.pos, f"{describe(expr)} holds unhashable values") from None
        if isinstance(expr, Ref):
            return self._name(module, expr, depth)
        raise Unsupported(module, expr.pos, f"{describe(expr)} is not a literal or a constant bound to one")

    def _container(self, module: str, expr: Container, depth: int) -> object:
        items = [self._value(module, item, depth + 1) for item in expr.items]
        if expr.kind == "list" or (expr.kind == "set" and not self.pydantic):
            return items
        if expr.kind == "tuple":
            return tuple(items)
        if expr.kind == "set":
            try:
                return set(items)
            except TypeError:
                raise Unsupported(module, expr.pos, "a set of unhashable values") from None
        keys: list[object] = []
        for key in expr.keys:
            if key is None and not self.pydantic:
                raise Unsupported(module, expr.pos, "a dict display with ** has no static value")
            keys.append(self._value(module, key, depth + 1) if key is not None else None)
        if self.pydantic and not all(isinstance(key, str) for key in keys):
            raise Unsupported(module, expr.pos, "dict keys other than literal strings")
        try:
            return dict(zip(keys, items, strict=True))
        except TypeError:  # {[1]: 2}: Python itself refuses it when the module runs
            raise Unsupported(module, expr.pos, "a dict with unhashable keys") from None

    def _name(self, module: str, expr: Ref, depth: int) -> object:
        if self.pydantic:
            if self.member is not None:
                member = self.member(module, expr)
                if not isinstance(member, Missing):
                    return member
            symbol = self.linker.resolve_ref(module, expr.dotted)
        else:
            symbol = self.linker.constant(module, expr.dotted)
        if isinstance(symbol, ValueSym) and symbol.binding.value is not None:
            try:
                return self._value(symbol.module, symbol.binding.value, depth + 1)
            except Unsupported:  # report where the constant is used, not where it is bound
                raise Unsupported(module, expr.pos, f"{expr.dotted} is not bound to a literal") from None
        raise Unsupported(module, expr.pos, f"{describe(expr)} is not a literal or a constant bound to one")


def describe(expr: Expr | None) -> str:
    """Short source-like text of an expression, for messages."""
    if expr is None:
        return "nothing"
    if isinstance(expr, Ref):
        return expr.dotted
    if isinstance(expr, Const):
        return repr(expr.value)
    if isinstance(expr, Call):
        return f"{describe(expr.func)}(...)"
    if isinstance(expr, Subscript):
        return f"{describe(expr.value)}[{', '.join(describe(item) for item in expr.items)}]"
    if isinstance(expr, BinOp):
        return f"{describe(expr.left)} {expr.op} {describe(expr.right)}"
    if isinstance(expr, Container):
        return {"list": "[...]", "tuple": "(...)", "set": "{...}", "dict": "{...: ...}"}[expr.kind]
    return expr.text
