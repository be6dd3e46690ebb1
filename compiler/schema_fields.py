"""Read ``Field(...)`` calls and constraints the way pydantic reads them, or raise ``Unsupported``.

A ``FieldCall`` holds what a ``Field(...)`` says that the schema shows (default,
alias, title, description, examples, ...) and its constraints (``ge=``, ``pattern=``,
...); arguments that change only validation or serialization are dropped.
``constrain`` puts one constraint on a node where pydantic applies it, and refuses
those pydantic would refuse, or apply to a kind of value it ignores them on.
``schema_types.TypeReader`` extends ``FieldReader`` with the annotations around them.
"""

from __future__ import annotations

import dataclasses
import math
import re

from .evaluate import MISSING, Evaluator, Unsupported, describe
from .index_types import Call, Const, Dynamic, Expr, Ref, Subscript
from .resolve import Linker
from .schema_json import VALIDATIONS, CallableDiscriminator, Factory, FieldCall, Node, to_json
from .symbols import FunctionSym

__all__ = ["DISCRIMINATOR", "FIELD_FUNCTIONS", "FieldReader"]

#: pydantic's ``Field``, as it is imported.
FIELD_FUNCTIONS = frozenset({"pydantic.Field", "pydantic.fields.Field"})
# Constraints that change validation but not the schema, with the kinds pydantic applies
# them to (its _known_annotated_metadata tables); on any other kind they leave the subset.
_SCALAR_KINDS = {"str", "bytes", "int", "float", "bool", "decimal", "uuid", "datetime", "date", "time", "timedelta"}
_SILENT = {
    "strict": _SCALAR_KINDS | {"list", "set", "tuple", "dict"},
    "allow_inf_nan": {"float", "decimal"},
    "max_digits": {"decimal"},
    "decimal_places": {"decimal"},
    "fail_fast": {"list", "set", "tuple", "dict"},
    "strip_whitespace": {"str"},
    "to_lower": {"str"},
    "to_upper": {"str"},
}
# annotated_types constraints of one bound, by the constraint pydantic maps each to.
_ANNOTATED_TYPES = {
    "annotated_types.Gt": "gt",
    "annotated_types.Ge": "ge",
    "annotated_types.Lt": "lt",
    "annotated_types.Le": "le",
    "annotated_types.MultipleOf": "multiple_of",
    "annotated_types.MinLen": "min_length",
    "annotated_types.MaxLen": "max_length",
}
_LEN = "annotated_types.Len"
_INTERVAL = "annotated_types.Interval"
_PYDANTIC_TYPES = ("pydantic", "pydantic.types")
_PYDANTIC_METADATA = {
    **{f"{module}.Strict": "strict" for module in _PYDANTIC_TYPES},
    **{f"{module}.AllowInfNan": "allow_inf_nan" for module in _PYDANTIC_TYPES},
    **{f"{module}.FailFast": "fail_fast" for module in _PYDANTIC_TYPES},
}
_STRING_CONSTRAINTS = frozenset(f"{module}.StringConstraints" for module in _PYDANTIC_TYPES)
_STRING_KEYWORDS = ("min_length", "max_length", "strict", "strip_whitespace", "to_upper", "to_lower", "pattern")
DISCRIMINATOR = frozenset(f"{module}.Discriminator" for module in _PYDANTIC_TYPES)
_TAG = frozenset(f"{module}.Tag" for module in _PYDANTIC_TYPES)
#: Validators in ``Annotated`` that run around the type's own validation and leave its input
#: schema alone (unless ``json_schema_input_type`` says otherwise): after, before, wrap.
_NEUTRAL_VALIDATORS = frozenset(
    f"{module}.{name}"
    for module in ("pydantic", "pydantic.functional_validators")
    for name in ("AfterValidator", "BeforeValidator", "WrapValidator")
)
_DISCRIMINATOR_ERRORS = ("custom_error_type", "custom_error_message", "custom_error_context")
_CONSTRAINTS = frozenset(name for pairs in VALIDATIONS.values() for name, _ in pairs) | frozenset(_SILENT)
# Field() arguments that only change validation or serialization, never the schema.
_FIELD_IGNORED = frozenset({"exclude", "repr", "frozen", "validate_default", "serialization_alias", "alias_priority"})
_FIELD_ATTRIBUTES = frozenset(
    {
        "default",
        "default_factory",
        "alias",
        "validation_alias",
        "title",
        "description",
        "examples",
        "json_schema_extra",
        "deprecated",
        "discriminator",
    }
)
# Generic collections a default_factory may be written as (``list[int]``).
_FACTORY_GENERICS = frozenset(
    {"builtins.list", "builtins.dict", "builtins.set", "builtins.frozenset", "builtins.tuple"}
    | {f"{module}.{name}" for module in ("typing", "typing_extensions") for name in ("List", "Dict", "Set")}
)
# Regular expression syntax that pydantic's Rust regex engine refuses at model creation.
_RUST_REGEX_GAPS = re.compile(r"\(\?<?[=!]|\(\?P=|\(\?>|\\[1-9]|[*+?}][+]")


class FieldReader:
    """Reads ``Field(...)`` calls and the constraints in them, through the linker and the evaluator."""

    def __init__(self, linker: Linker, values: Evaluator) -> None:
        self.linker = linker
        self.values = values

    # --- constraints -----------------------------------------------------------------

    def constrain(self, node: Node, name: str, value: object, expr: Expr, module: str) -> Node:
        """Apply one constraint where pydantic applies it: through ``Optional``, onto ``T``."""
        if node.kind == "nullable":
            return dataclasses.replace(node, args=(self.constrain(node.args[0], name, value, expr, module),))
        if name in _SILENT:
            if node.kind not in _SILENT[name] or isinstance(value, float) or not isinstance(value, int):
                raise Unsupported(
                    module, expr.pos, f"{name}={value!r} on a {node.kind} value is outside the static subset"
                )
            if name in ("max_digits", "decimal_places"):  # the pattern of a Decimal's string form (2.12, 2.13)
                return dataclasses.replace(node, constraints={**node.constraints, name: value})
            return node
        allowed = dict(VALIDATIONS.get(node.kind, ()))
        if name not in allowed:
            raise Unsupported(
                module, expr.pos, f"constraint {name}= on a {node.kind} value is outside the static subset"
            )
        if name == "pattern":
            if not isinstance(value, str) or not _valid_pattern(value):
                raise Unsupported(module, expr.pos, f"pattern {value!r} is not one pydantic's regex engine accepts")
        elif name in ("min_length", "max_length"):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise Unsupported(module, expr.pos, f"{name}={value!r} is not a whole number >= 0")
        elif node.kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
            raise Unsupported(module, expr.pos, f"{name}={value!r} on an int must be an int")
        elif isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise Unsupported(module, expr.pos, f"{name}={value!r} is not a finite number")
        if name == "multiple_of" and isinstance(value, int | float) and value <= 0:  # pydantic-core refuses it
            raise Unsupported(
                module,
                expr.pos,
                f"multiple_of={value!r} is not above 0: pydantic refuses the model when its module is imported",
                hint="give multiple_of a number above 0",
            )
        return dataclasses.replace(node, constraints={**node.constraints, name: value})

    # --- Field(...) ------------------------------------------------------------------

    def metadata_calls(self, metadata: list[tuple[str, Expr]]) -> list[FieldCall]:
        """Each ``Annotated`` metadata item read as ``field_call`` reads it, refusing a constraint
        after a validator: pydantic then writes some under their own names (``le``), not as JSON
        Schema keywords."""
        calls = []
        after_validator = False
        for module, item in metadata:
            call = self.field_call(module, item)
            if after_validator and call.constraints:
                raise Unsupported(module, item.pos, f"a constraint after a validator in Annotated ({describe(item)})")
            after_validator |= call.validator
            calls.append(call)
        return calls

    def is_field_call(self, module: str, expr: Expr) -> bool:
        return isinstance(expr, Call) and self.linker.external_name(module, expr.func) in FIELD_FUNCTIONS

    def field_call(self, module: str, expr: Expr, force: bool = False) -> FieldCall:
        """Read a ``Field(...)`` (or, with ``force``, any call as one); pydantic's known metadata
        in ``Annotated`` is read as the ``Field`` it stands for, anything else leaves the subset."""
        if not isinstance(expr, Call) or not (force or self.is_field_call(module, expr)):
            if isinstance(expr, Const) and not isinstance(expr.value, type(...)):
                return FieldCall({}, [])  # pydantic ignores plain values
            found = self.metadata_call(module, expr)
            if found is None:
                raise Unsupported(
                    module,
                    expr.pos,
                    f"Annotated metadata {describe(expr)} is not Field(...), an annotated_types constraint, "
                    "StringConstraints(...), Discriminator(...) or an after, before or wrap validator",
                )
            return found
        if expr.has_star or len(expr.args) > 1:
            raise Unsupported(module, expr.pos, "Field(...) takes one positional argument, the default")
        attributes: dict[str, object] = {}
        constraints: list[tuple[str, object, Expr]] = []
        arguments = [("default", expr.args[0])] if expr.args else []
        for name, value in (*arguments, *expr.kwargs):
            if name in _FIELD_IGNORED:
                continue
            if name in _CONSTRAINTS:
                constrained = self.values.value(module, value)
                if constrained is not None:
                    constraints.append((name, constrained, value))
            elif name == "default_factory":
                if not (isinstance(value, Const) and value.value is None):
                    attributes[name] = self.factory(module, value)
            elif name == "default":
                attributes[name] = self.default_value(module, value)
            elif name in _FIELD_ATTRIBUTES:
                attributes[name] = self.attribute_value(module, name, value)
            else:
                raise Unsupported(module, value.pos, f"Field({name}=...) is outside the static subset")
        return FieldCall(attributes, constraints)

    def metadata_call(self, module: str, expr: Expr) -> FieldCall | None:
        """``Gt(0)``, ``Len(1, 5)``, ``Interval(...)``, ``Strict()``, ``StringConstraints(...)``,
        ``Discriminator("kind")`` or ``AfterValidator(check)`` in ``Annotated``, as pydantic's known
        metadata; else ``None``."""
        target = expr.func if isinstance(expr, Call) else expr
        name = self.linker.external_name(module, target) or ""
        if name in _PYDANTIC_METADATA and not isinstance(expr, Call):  # Annotated[int, Strict]
            return FieldCall({}, [(_PYDANTIC_METADATA[name], True, expr)])
        if not isinstance(expr, Call):
            return None
        if expr.has_star:
            raise Unsupported(module, expr.pos, f"{describe(expr)} with * or ** arguments")
        if name in DISCRIMINATOR:
            given = expr.args[0] if expr.args else expr.keyword("discriminator")
            if (isinstance(given, Dynamic) and given.kind == "Lambda") or (
                isinstance(given, Ref) and isinstance(self.linker.resolve_expr(module, given), FunctionSym)
            ):
                # A function picks the member by its Tag; what it returns never shows in the schema.
                rest = Call(expr.func, (), tuple(pair for pair in expr.kwargs if pair[0] != "discriminator"), expr.pos)
                self.call_arguments(module, rest, (), _DISCRIMINATOR_ERRORS)
                return FieldCall({"discriminator": CallableDiscriminator()}, [])
            if not isinstance(given, Const | Ref):
                raise Unsupported(module, expr.pos, "Discriminator(...) other than a field name or a function")
            value = self.call_arguments(module, expr, ("discriminator",), ("custom_error_type",)).get("discriminator")
            if not isinstance(value, str):
                raise Unsupported(module, expr.pos, "Discriminator(...) other than a field name or a function")
            return FieldCall({"discriminator": value}, [])
        if name in _NEUTRAL_VALIDATORS and len(expr.args) == 1 and not expr.kwargs:
            return FieldCall({}, [], validator=True)  # the function runs; the schema is the type's
        if name in _TAG:
            tag = self.call_arguments(module, expr, ("tag",)).get("tag")
            if not isinstance(tag, str):
                raise Unsupported(module, expr.pos, "Tag(...) takes a literal string")
            return FieldCall({"tag": tag}, [])
        if name in _ANNOTATED_TYPES:
            keyword = _ANNOTATED_TYPES[name]
            value = self.call_arguments(module, expr, (keyword,)).get(keyword)
            return FieldCall({}, [(keyword, value, expr)] if value is not None else [])
        if name == _LEN:
            values = self.call_arguments(module, expr, ("min_length", "max_length"))
            low, high = values.get("min_length", 0), values.get("max_length")
            found: list[tuple[str, object, Expr]] = []
            if not isinstance(low, int) or low > 0:
                found.append(("min_length", low, expr))
            return FieldCall({}, found + ([("max_length", high, expr)] if high is not None else []))
        if name == _INTERVAL:
            values = self.call_arguments(module, expr, ("gt", "ge", "lt", "le"))
            return FieldCall({}, [(key, value, expr) for key, value in values.items() if value is not None])
        if name in _PYDANTIC_METADATA:
            keyword = _PYDANTIC_METADATA[name]
            value = self.call_arguments(module, expr, (keyword,)).get(keyword, True)
            return FieldCall({}, [(keyword, value, expr)] if value is not None else [])
        if name in _STRING_CONSTRAINTS:
            values = self.call_arguments(module, expr, (), _STRING_KEYWORDS)
            return FieldCall({}, [(key, value, expr) for key, value in values.items() if value is not None])
        return None

    def call_arguments(
        self, module: str, call: Call, positional: tuple[str, ...], keywords: tuple[str, ...] = ()
    ) -> dict[str, object]:
        """The literal arguments of a call, by parameter name, in the order pydantic lists them."""
        if len(call.args) > len(positional):
            raise Unsupported(
                module, call.pos, f"{describe(call)} takes at most {len(positional)} positional arguments"
            )
        values = {name: self.values.value(module, arg) for name, arg in zip(positional, call.args, strict=False)}
        for name, arg in call.kwargs:
            if name not in positional and name not in keywords or name in values:
                raise Unsupported(module, arg.pos, f"{describe(call)} argument {name}= is outside the static subset")
            values[name] = self.values.value(module, arg)
        order = (*positional, *keywords)
        return {name: values[name] for name in order if name in values}

    def factory(self, module: str, expr: Expr) -> Factory:
        if isinstance(expr, Ref) and self.linker.resolve_expr(module, expr) is not None:
            return Factory()
        if isinstance(expr, Subscript) and self.linker.external_name(module, expr.value) in _FACTORY_GENERICS:
            return Factory()  # default_factory=list[int]
        if isinstance(expr, Dynamic) and expr.kind == "Lambda":
            return Factory()
        raise Unsupported(module, expr.pos, f"default_factory={describe(expr)} is not a function name or lambda")

    def default_value(self, module: str, expr: Expr) -> object:
        if isinstance(expr, Const) and expr.value is ...:
            return MISSING
        try:
            return self.values.value(module, expr)
        except Unsupported as error:
            raise Unsupported(error.module, error.pos, f"default {describe(expr)}: {error.message}") from None

    def attribute_value(self, module: str, name: str, expr: Expr) -> object:
        value = self.values.value(module, expr)
        if name in ("alias", "validation_alias", "title", "description"):
            if value is not None and not isinstance(value, str):
                raise Unsupported(module, expr.pos, f"Field({name}=...) must be a literal string")
        elif name == "examples":
            if value is not None and not isinstance(value, list | tuple):
                raise Unsupported(module, expr.pos, "Field(examples=...) must be a literal list")
        elif name == "json_schema_extra":
            if value is not None and not isinstance(value, dict):
                raise Unsupported(module, expr.pos, "Field(json_schema_extra=...) must be a literal dict")
        elif name == "discriminator" and not isinstance(value, str):
            raise Unsupported(module, expr.pos, "Field(discriminator=...) must be a field name (a literal string)")
        elif name == "deprecated" and not isinstance(value, bool | str | None):
            raise Unsupported(module, expr.pos, "Field(deprecated=...) must be True, False or a string")
        if name in ("examples", "json_schema_extra") and value is not None:
            return to_json(value, module, expr)
        return value


def _valid_pattern(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return _RUST_REGEX_GAPS.search(pattern) is None
