"""Project enums as pydantic sees them: which classes are enums, their members, their schema.

Members must be plain literals (of the mixin type, for ``class C(str, Enum)``); an alias
(a value equal to an earlier member's) is that earlier member, as in Python.  What
makes the values depend on code (``__new__``, a decorator, members inherited) is
``Unsupported``.
"""

from __future__ import annotations

import typing

from .evaluate import MISSING, Unsupported, describe
from .index_types import Call, Const, Expr, Ref
from .resolve import Linker
from .schema_json import JsonDict, json_type_of, to_json
from .symbols import ClassSym, ExternalSym
from .types import Pos

__all__ = ["enum_json", "enum_member", "enum_members", "enum_of", "is_enum"]

_ENUM_BASES = {
    "enum.Enum": None,
    "enum.IntEnum": int,
    "enum.StrEnum": str,
    "builtins.str": str,
    "builtins.int": int,
    "builtins.float": float,
}
_ENUM_DECORATORS = frozenset({"enum.unique"})


def is_enum(linker: Linker, cls: ClassSym) -> bool:
    """Whether ``cls`` derives from ``enum.Enum`` (or another enum of the standard library)."""
    return any(
        isinstance(item, ExternalSym)
        and item.qualname in ("enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag")
        for item in linker.mro(cls)
    )


def enum_of(linker: Linker, module: str, expr: Ref) -> ClassSym | None:
    """The project enum ``Color`` of ``Color.RED``, if ``expr`` names a member of one."""
    owner = expr.dotted.rpartition(".")[0]
    symbol = linker.resolve_ref(module, owner) if owner else None
    return symbol if isinstance(symbol, ClassSym) and is_enum(linker, symbol) else None


def enum_member(linker: Linker, module: str, expr: Ref) -> object:
    """The value of ``Color.RED``, or ``MISSING`` when ``expr`` is no enum member."""
    symbol = enum_of(linker, module, expr)
    if symbol is None:
        return MISSING
    member = expr.dotted.rpartition(".")[2]
    members = dict(enum_members(linker, symbol))
    if member not in members:
        raise Unsupported(module, expr.pos, f"{expr.dotted} is not a member of {symbol.info.name}")
    return members[member]


def enum_json(linker: Linker, cls: ClassSym) -> JsonDict:
    """pydantic's ``enum_schema``: title, description, the members' values, a type."""
    info, module = cls.info, cls.module
    for decorator in info.decorators:
        if linker.external_name(module, decorator) not in _ENUM_DECORATORS:
            raise Unsupported(module, decorator.pos, f"decorator {describe(decorator)} on enum {info.name}")
    if info.keywords:
        raise Unsupported(module, info.keywords[0][1].pos, f"enum class keyword {info.keywords[0][0]}=")
    if info.method("__new__") is not None:
        raise Unsupported(module, info.pos, f"enum {info.name} defines __new__, which changes its values")
    if info.docstring == "":
        raise Unsupported(module, info.pos, f"enum {info.name} has a blank docstring")
    schema: JsonDict = {"title": info.name}
    if info.docstring:
        schema["description"] = info.docstring
    expected = [to_json(value, module, info) for _, value in enum_members(linker, cls)]
    schema["enum"] = expected
    json_type = json_type_of(expected)
    if json_type is not None and json_type != "null":
        schema["type"] = json_type
    return schema


def enum_members(linker: Linker, cls: ClassSym) -> list[tuple[str, object]]:
    """An enum's members in order (pydantic keeps aliases), each with its value.

    An alias (a value equal to an earlier member's) is that earlier member, value included.
    """
    mixin = _enum_mixin(linker, cls)
    members: list[tuple[str, object]] = []
    for binding in cls.info.attributes:
        if binding.annotation is not None or binding.name.startswith("_"):
            raise Unsupported(cls.module, binding.pos, f"{cls.info.name}.{binding.name} is not a plain enum member")
        if _is_auto(linker, cls.module, binding.value):
            value = _auto_value(linker, cls, binding.name, binding.value, [value for _, value in members])
        else:
            value = _member_value(cls.module, binding.value, mixin, binding.pos)
        members.append((binding.name, next((seen for _, seen in members if seen == value), value)))
    if not members:
        raise Unsupported(cls.module, cls.info.pos, f"enum {cls.info.name} has no members")
    return members


def _enum_mixin(linker: Linker, cls: ClassSym) -> type | None:
    """The data type the members are made of (``str`` for ``class C(str, Enum)``), if any."""
    mixin: type | None = None
    for item in linker.mro(cls):
        if isinstance(item, ClassSym):
            if item != cls and any(b.value is not None for b in item.info.attributes):
                raise Unsupported(cls.module, cls.info.pos, f"enum {cls.info.name} extends an enum with members")
            continue
        if item.qualname not in _ENUM_BASES:
            raise Unsupported(cls.module, cls.info.pos, f"enum {cls.info.name} derives from {item.qualname}")
        mixin = mixin or _ENUM_BASES[item.qualname]
    return mixin


def _is_auto(linker: Linker, module: str, expr: Expr | None) -> bool:
    return isinstance(expr, Call) and linker.external_name(module, expr.func) == "enum.auto"


def _auto_value(linker: Linker, cls: ClassSym, name: str, expr: Expr | None, before: list[object]) -> object:
    """``enum.auto()``: the member's name in lower case for a ``StrEnum``, else the last
    integer value plus one (1 first), as ``Enum._generate_next_value_`` gives it."""
    assert isinstance(expr, Call)
    if expr.args or expr.kwargs or cls.info.method("_generate_next_value_") is not None:
        raise Unsupported(cls.module, expr.pos, f"enum.auto() in {cls.info.name} with arguments or a custom generator")
    mixin = _enum_mixin(linker, cls)
    if any(isinstance(item, ExternalSym) and item.qualname == "enum.StrEnum" for item in linker.mro(cls)):
        return name.lower()
    if mixin not in (None, int) or not all(type(value) is int for value in before):
        raise Unsupported(cls.module, expr.pos, f"enum.auto() in {cls.info.name} after values that are not integers")
    if not before:
        return 1
    last = before[-1]
    assert isinstance(last, int)
    if last != max(typing.cast("list[int]", before)):
        raise Unsupported(cls.module, expr.pos, f"enum.auto() in {cls.info.name} after a smaller value than before")
    return last + 1


def _member_value(module: str, expr: Expr | None, mixin: type | None, pos: Pos) -> object:
    if not isinstance(expr, Const) or isinstance(expr.value, complex | bytes) or expr.value is ...:
        raise Unsupported(module, expr.pos if expr else pos, f"enum value {describe(expr)} is not a literal")
    if mixin is not None and type(expr.value) is not mixin:
        raise Unsupported(module, expr.pos, f"enum value {expr.value!r} is not a {mixin.__name__}")
    return expr.value
