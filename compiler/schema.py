"""Build the JSON Schema of a pydantic model from its source, without importing it.

The schema must equal what pydantic's ``Model.model_json_schema()`` returns, key order
included, so this module retraces pydantic's own generator
(``pydantic.json_schema.GenerateJsonSchema``) instead of JSON Schema's semantics:

1. each annotation becomes a ``_Node`` shaped like the core schema pydantic builds for
   it (nullable, union, literal, list, ...), constraints and ``Field`` metadata included;
2. nodes become JSON with the keys in the order pydantic inserts them;
3. models and enums become ``$defs`` under pydantic's long names, which are then
   shortened by pydantic's own collision rules (``Item`` when one schema goes by that
   name, ``pkg__a__Item`` when two do);
4. the top ``$ref`` is unpacked, unused definitions dropped, and keys sorted the way
   pydantic sorts them (everything but ``properties`` and ``default``).

pydantic's quirks are kept because they are what users get at runtime: ``Decimal`` is a
number or a string, set defaults are sorted, enum aliases stay in ``enum``, constraints
written on the ``Field`` assignment lose against those inside ``Annotated``, a title
comes from the alias, and a model reached only through ``Optional`` gets no title.

The subset translated:

- types: ``str``, ``int``, ``float``, ``bool``, ``None``, ``bytes``, ``datetime``,
  ``date``, ``time``, ``timedelta``, ``UUID``, ``Decimal``, ``Any``; ``Optional``,
  ``Union``, ``X | Y``, ``Literal`` (of literals and enum members); ``list``/``List``/
  ``Sequence``, ``set``/``Set``, ``frozenset``/``FrozenSet``, ``tuple``/``Tuple`` (``T,
  ...``, fixed, empty), ``dict``/``Dict`` with ``str`` keys; project enums (plain, ``str``
  or ``int`` mixins, ``IntEnum``, ``StrEnum``) and project models (nested, shared,
  recursive, inherited); module-level aliases; quoted forward references;
- ``Field(...)`` and ``Annotated[T, Field(...)]``: ``default`` (a literal, a constant
  bound to one, an enum member, or ``set()``-like builtins of literals),
  ``default_factory`` (a name or a lambda), ``alias``, ``validation_alias`` (a string),
  ``title``, ``description``, ``examples``, ``json_schema_extra`` (a literal dict),
  ``deprecated``, ``ge``/``gt``/``le``/``lt``/``multiple_of``, ``min_length``/
  ``max_length``, ``pattern``, and the schema-neutral ``strict``, ``allow_inf_nan``,
  ``max_digits``, ``decimal_places``, ``fail_fast``, ``exclude``, ``repr``, ``frozen``,
  ``validate_default``, ``serialization_alias``, ``alias_priority``;
- ``model_config`` (``ConfigDict(...)``, a dict literal, a constant, class keywords):
  ``extra``, ``title``, ``json_schema_extra`` and the keys in ``_CONFIG_HARMLESS``;
  docstrings; ``ClassVar`` and private attributes (skipped, as pydantic does);
- validators that leave the schema alone (``field_validator`` in ``after``, ``before``
  or ``wrap`` mode, ``model_validator``), serializers, ``computed_field``, methods.

Anything else is reported as ``skill/schema-unsupported`` where it is written; nothing
is guessed, and ``[tool.skill] schema = "import"`` lets pydantic itself build the schema
instead.  Nothing here raises for user code.

Known limit: ``typing`` caches ``Optional[Literal[1, 2]]`` under a key equal to
``Optional[Literal[2, 1]]``, so when a process spells one set of literals in two orders,
pydantic lists them in the order of the first spelling it met; the compiler follows each
annotation as written.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ..runtime.docstrings import parse_docstring

# The module, not its names: checks.py imports this module at its end to register
# SCHEMA_CHECKS; link.py reads checks.py only when a finding's severity is asked for.
from ..runtime.spec import function_input_model_name
from . import link
from .types import (
    BinOp,
    Call,
    Check,
    Const,
    Container,
    Dynamic,
    Example,
    Expr,
    FunctionInfo,
    Pos,
    Ref,
    Severity,
    Subscript,
)

__all__ = ["SCHEMA_CHECKS", "SchemaResult", "function_schema", "model_schema"]

JsonDict: TypeAlias = dict[str, Any]

UNSUPPORTED = "skill/schema-unsupported"
STRICT_INCOMPATIBLE = "skill/strict-incompatible"
HINT = (
    'set [tool.skill] schema = "import" and compile with `skill compile --allow-import` to let pydantic '
    "build this schema (skillc then imports the tool's bundle in an isolated process), or stay within the static subset"
)
_MAX_DEPTH = 64


@dataclass(frozen=True)
class SchemaResult:
    """A model's JSON Schema, or ``None`` and the findings that say why there is none.

    ``schema`` is ``None`` exactly when ``findings`` is not empty.
    """

    schema: JsonDict | None
    findings: tuple[link.Finding, ...]


class _Unsupported(Exception):
    """Raised where a construct leaves the subset; caught per field, model or enum."""

    def __init__(self, module: str, pos: Pos, message: str) -> None:
        super().__init__(message)
        self.module = module
        self.pos = pos
        self.message = message


# --- The names of the subset, as the linker spells external symbols ----------------


def _typing(*names: str) -> frozenset[str]:
    """A typing name, also as re-exported by typing_extensions."""
    return frozenset(f"{module}.{name}" for name in names for module in ("typing", "typing_extensions"))


_OPTIONAL = _typing("Optional")
_UNION = _typing("Union")
_LITERAL = _typing("Literal")
_ANNOTATED = _typing("Annotated")
_CLASSVAR = _typing("ClassVar")
_TYPE_ALIAS = _typing("TypeAlias")
_BASE_MODEL = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel"})
_FIELD = frozenset({"pydantic.Field", "pydantic.fields.Field"})
_CONFIG_DICT = frozenset({"pydantic.ConfigDict", "pydantic.config.ConfigDict", "builtins.dict"})
_CONTEXT = "skillc.ToolContext"
_SCALARS = {
    "builtins.str": "str",
    "builtins.int": "int",
    "builtins.float": "float",
    "builtins.bool": "bool",
    "builtins.bytes": "bytes",
    "datetime.datetime": "datetime",
    "datetime.date": "date",
    "datetime.time": "time",
    "datetime.timedelta": "timedelta",
    "uuid.UUID": "uuid",
    "decimal.Decimal": "decimal",
    "types.NoneType": "none",
    **{name: "any" for name in _typing("Any")},
}
_COLLECTIONS = {
    "builtins.list": "list",
    "builtins.set": "set",
    "builtins.frozenset": "set",
    "builtins.tuple": "tuple",
    "builtins.dict": "dict",
    "collections.abc.Sequence": "list",
    **{name: "list" for name in _typing("List", "Sequence")},
    **{name: "set" for name in _typing("Set", "FrozenSet")},
    **{name: "tuple" for name in _typing("Tuple")},
    **{name: "dict" for name in _typing("Dict")},
}
_SCALAR_JSON: dict[str, JsonDict] = {
    "str": {"type": "string"},
    "bytes": {"type": "string", "format": "binary"},
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "none": {"type": "null"},
    "any": {},
    "datetime": {"type": "string", "format": "date-time"},
    "date": {"type": "string", "format": "date"},
    "time": {"type": "string", "format": "time"},
    "timedelta": {"type": "string", "format": "duration"},
    "uuid": {"type": "string", "format": "uuid"},
}
_NULL: JsonDict = {"type": "null"}

# Constraint -> JSON keyword, per kind, in the order pydantic writes them
# (GenerateJsonSchema.ValidationsMapping).
_NUMERIC = (("multiple_of", "multipleOf"), ("le", "maximum"), ("ge", "minimum"),
            ("lt", "exclusiveMaximum"), ("gt", "exclusiveMinimum"))
_STRING = (("min_length", "minLength"), ("max_length", "maxLength"), ("pattern", "pattern"))
_BYTES = (("min_length", "minLength"), ("max_length", "maxLength"))
_ARRAY = (("min_length", "minItems"), ("max_length", "maxItems"))
_OBJECT = (("min_length", "minProperties"), ("max_length", "maxProperties"))
_VALIDATIONS = {
    "int": _NUMERIC, "float": _NUMERIC, "decimal": _NUMERIC, "str": _STRING, "bytes": _BYTES,
    "list": _ARRAY, "set": _ARRAY, "tuple": _ARRAY, "dict": _OBJECT,
}
# Constraints that change validation but not the schema, with the kinds pydantic applies
# them to (its _known_annotated_metadata tables); on any other kind they leave the subset.
_SCALAR_KINDS = {"str", "bytes", "int", "float", "bool", "decimal", "uuid", "datetime", "date", "time", "timedelta"}
_SILENT = {
    "strict": _SCALAR_KINDS | {"list", "set", "tuple", "dict"},
    "allow_inf_nan": {"float", "decimal"},
    "max_digits": {"decimal"},
    "decimal_places": {"decimal"},
    "fail_fast": {"list", "set", "tuple", "dict"},
}
_CONSTRAINTS = frozenset(name for pairs in _VALIDATIONS.values() for name, _ in pairs) | frozenset(_SILENT)
# Field() arguments that only change validation or serialization, never the schema.
_FIELD_IGNORED = frozenset({"exclude", "repr", "frozen", "validate_default", "serialization_alias", "alias_priority"})
_FIELD_ATTRIBUTES = frozenset({
    "default", "default_factory", "alias", "validation_alias", "title", "description",
    "examples", "json_schema_extra", "deprecated",
})
# model_config keys that do not change the validation schema (checked against pydantic).
_CONFIG_HARMLESS = frozenset({
    "frozen", "str_strip_whitespace", "str_to_lower", "str_to_upper", "validate_assignment",
    "validate_default", "use_enum_values", "populate_by_name", "validate_by_name", "strict",
    "arbitrary_types_allowed", "from_attributes", "revalidate_instances", "protected_namespaces",
})
_CONFIG_KEYS = _CONFIG_HARMLESS | {"extra", "title", "json_schema_extra"}
# Method decorators that leave the validation schema alone.
_SCHEMA_NEUTRAL_DECORATORS = frozenset({
    "pydantic.model_validator", "pydantic.functional_validators.model_validator",
    "pydantic.field_serializer", "pydantic.functional_serializers.field_serializer",
    "pydantic.model_serializer", "pydantic.functional_serializers.model_serializer",
    "pydantic.computed_field", "pydantic.fields.computed_field",
})
_FIELD_VALIDATOR = frozenset({"pydantic.field_validator", "pydantic.functional_validators.field_validator"})
_SCHEMA_HOOKS = frozenset({
    "__get_pydantic_json_schema__", "__get_pydantic_core_schema__", "model_json_schema",
    "__pydantic_init_subclass__", "__init_subclass__", "__class_getitem__",
})
_ENUM_BASES = {
    "enum.Enum": None, "enum.IntEnum": int, "enum.StrEnum": str,
    "builtins.str": str, "builtins.int": int, "builtins.float": float,
}
_ENUM_DECORATORS = frozenset({"enum.unique"})
# Builtin constructors a default may call on a literal (or on nothing).
_CONSTRUCTORS: dict[str, Any] = {
    "builtins.list": list, "builtins.tuple": tuple, "builtins.set": set,
    "builtins.frozenset": frozenset, "builtins.dict": dict,
}
# Regular expression syntax that pydantic's Rust regex engine refuses at model creation.
_RUST_REGEX_GAPS = re.compile(r"\(\?<?[=!]|\(\?P=|\(\?>|\\[1-9]|[*+?}][+]")


# --- Values --------------------------------------------------------------------------


class _Missing:
    """No value: a parameter without default, ``Field(...)``, an unset keyword."""


_MISSING = _Missing()


@dataclass(frozen=True)
class _Factory:
    """A ``default_factory``: pydantic's schema omits the default, it never calls it."""


@dataclass
class _FieldCall:
    """One ``Field(...)``: its attributes in the order given, and its constraints."""

    attributes: dict[str, object]
    constraints: list[tuple[str, object, Expr]]


@dataclass
class _Node:
    """An annotation as pydantic's core schema sees it.

    ``kind`` is a scalar (``str``, ``int``, ``decimal``, ...), a collection (``list``,
    ``set``, ``tuple``, ``dict``), ``literal``, ``nullable``, ``union``, or ``ref`` (a
    model or enum under ``$defs``).  ``updates``/``extra`` come from a ``Field`` inside
    ``Annotated``; ``origin`` tells two such annotations apart, as ``typing`` does.
    """

    kind: str
    args: tuple[_Node, ...] = ()
    variadic: bool = False
    values: tuple[object, ...] = ()
    ref: str = ""
    constraints: dict[str, object] = field(default_factory=dict)
    updates: dict[str, object] = field(default_factory=dict)
    extra: dict[str, object] = field(default_factory=dict)
    origin: tuple[str, int, int] | None = None

    @property
    def identity(self) -> str:
        """What ``typing`` compares to deduplicate union members (``1`` is not ``True`` here)."""
        return json.dumps(dataclasses.asdict(self), sort_keys=True, default=str)

    @property
    def titled(self) -> bool:
        """Whether a field of this type gets a title (pydantic: not when it is a ``$ref``)."""
        if self.kind == "ref":
            return False
        return self.args[0].titled if self.kind == "nullable" else True


@dataclass(frozen=True)
class _Source:
    """One field as written: where, its annotation and its assigned value or default."""

    name: str
    module: str
    annotation: Expr | None
    value: Expr | None
    pos: Pos
    doc: str | None = None


# --- The generator ---------------------------------------------------------------------


class _Generator:
    """Builds one schema; models and enums it reaches become definitions."""

    def __init__(self, linker: link.Linker) -> None:
        self.linker = linker
        self.findings: list[link.Finding] = []
        self._reported: set[tuple[str, int, int, str]] = set()
        #: JSON schema of each definition, by its long name (pydantic's DefsRef).
        self.definitions: dict[str, JsonDict] = {}
        self.active: set[str] = set()
        #: pydantic's shorter names for each long name, best first.
        self.choices: dict[str, list[str]] = {}
        #: Which class or function each dotted name stands for.
        self._owners: dict[str, str] = {}
        #: The definitions being built, innermost last.
        self.building: list[str] = []
        #: Field schemas that are a ``$ref`` with siblings (with the definition holding the
        #: field), and ``Annotated`` metadata put on a ``$ref``: both checked once every
        #: definition is known.
        self._ref_siblings: list[tuple[JsonDict, str, str, str, Pos, str]] = []
        self._annotated_refs: list[tuple[str, str, Pos]] = []
        self._configs: dict[tuple[str, str], dict[str, object]] = {}

    # --- findings ------------------------------------------------------------------

    def report(self, module: str, pos: Pos, message: str) -> None:
        path = self.linker.path_of(module)
        key = (path, pos.line, pos.col, message)
        if key not in self._reported:
            self._reported.add(key)
            self.findings.append(link.Finding(UNSUPPORTED, message, path, pos, HINT))

    def attempt(self, error: _Unsupported) -> None:
        self.report(error.module, error.pos, error.message)

    # --- definitions ---------------------------------------------------------------

    def define(self, module: str, qualname: str, identity: str, where: tuple[str, Pos]) -> tuple[str, bool]:
        """The long name of a definition, and whether it still has to be built.

        pydantic names a definition ``module.Qualname`` plus an occurrence index for
        distinct classes of the same dotted name; that index depends on the order pydantic
        meets them, so two such classes in one schema are refused instead.
        """
        dotted = f"{module}.{qualname}"
        long_name = f"{_normalize(dotted)}-Input__1"
        owner = self._owners.get(dotted)
        if owner is not None and owner != identity:
            raise _Unsupported(
                where[0], where[1],
                f"two different models are named {dotted} in one schema; pydantic's $defs names "
                "for them depend on the order it meets them",
            )
        if owner is None:
            self._owners[dotted] = identity
            short = _normalize(qualname.rsplit(".", 1)[-1])
            long = _normalize(dotted)
            self.choices[long_name] = [
                short, f"{short}-Input", long, f"{long}-Input", f"{long}__1", long_name,
            ]
        pending = long_name not in self.definitions and long_name not in self.active
        return long_name, pending

    def model_node(self, cls: link.ClassSym, where: tuple[str, Pos]) -> _Node:
        name, pending = self.define(cls.module, cls.info.name, f"class:{cls.module}:{cls.info.name}", where)
        if pending:
            self.active.add(name)
            self.building.append(name)
            try:
                self.definitions[name] = self.model_json(cls)
            finally:
                self.active.discard(name)
                self.building.pop()
        return _Node("ref", ref=_json_ref(name))

    def enum_node(self, cls: link.ClassSym, where: tuple[str, Pos]) -> _Node:
        name, pending = self.define(cls.module, cls.info.name, f"class:{cls.module}:{cls.info.name}", where)
        if pending:
            try:
                self.definitions[name] = self.enum_json(cls)
            except _Unsupported as error:
                self.attempt(error)
                self.definitions[name] = {}
        return _Node("ref", ref=_json_ref(name))

    # --- models --------------------------------------------------------------------

    def model_json(self, cls: link.ClassSym) -> JsonDict:
        """pydantic's ``model_schema`` for a project model: fields, then class-level keys."""
        self.check_model_class(cls)
        config = self.config(cls)
        sources = self.class_fields(cls)
        schema = self.fields_json(sources)
        title = config.get("title")
        schema.setdefault("title", title if isinstance(title, str) else cls.info.name)
        docstring = cls.info.docstring
        if docstring == "":
            self.report(
                cls.module, cls.info.pos,
                f"model {cls.info.name} has a blank docstring; pydantic's description then "
                "depends on whitespace the compiler does not keep",
            )
        elif docstring:
            schema.setdefault("description", docstring)
        extra = config.get("extra")
        if "additionalProperties" not in schema and extra in ("allow", "forbid"):
            schema["additionalProperties"] = extra == "allow"
        schema_extra = config.get("json_schema_extra")
        if isinstance(schema_extra, dict):
            schema.update(schema_extra)
        return schema

    def check_model_class(self, cls: link.ClassSym) -> None:
        """Refuse what makes a model's schema depend on code: decorators, hooks, odd bases."""
        info, module = cls.info, cls.module
        for decorator in info.decorators:
            self.report(module, decorator.pos, f"class decorator {_describe(decorator)} on model {info.name}")
        for base in info.bases:
            symbol = self.linker.resolve_expr(module, base)
            if isinstance(symbol, link.ClassSym) and self.is_model(symbol):
                continue
            if isinstance(symbol, link.ExternalSym) and symbol.qualname in _BASE_MODEL:
                continue
            self.report(module, base.pos, f"base class {_describe(base)} of model {info.name} is not a project model")
        for name, pos in info.nested:
            self.report(
                module, pos,
                f"class {name} inside model {info.name}"
                + (" (pydantic v1's configuration; use model_config = ConfigDict(...))" if name == "Config" else ""),
            )
        for pos in info.skipped:
            self.report(module, pos, f"a statement in the body of model {info.name} that is not a field or method")
        for method in info.methods:
            if method.name in _SCHEMA_HOOKS:
                self.report(module, method.pos, f"{info.name}.{method.name} customises pydantic's schema")
            for decorator in method.decorators:
                if self.changes_schema(module, decorator):
                    self.report(module, decorator.pos, f"validator {_describe(decorator)} can change the schema")

    def changes_schema(self, module: str, decorator: Expr, depth: int = 0) -> bool:
        """Whether a method decorator is a pydantic validator that can change the schema."""
        target = decorator.func if isinstance(decorator, Call) else decorator
        symbol = self.linker.resolve_expr(module, target)
        if isinstance(symbol, link.ValueSym) and isinstance(symbol.binding.value, Call) and depth < _MAX_DEPTH:
            # ``checked = field_validator("a", mode="plain")`` then ``@checked``
            return self.changes_schema(symbol.module, symbol.binding.value, depth + 1)
        if not isinstance(symbol, link.ExternalSym) or not symbol.qualname.startswith("pydantic."):
            return False
        if symbol.qualname in _SCHEMA_NEUTRAL_DECORATORS:
            return False
        if symbol.qualname in _FIELD_VALIDATOR and isinstance(decorator, Call):
            mode = decorator.keyword("mode")
            neutral = mode is None or (isinstance(mode, Const) and mode.value in ("after", "before", "wrap"))
            return not neutral or decorator.keyword("json_schema_input_type") is not None
        return True

    def is_model(self, cls: link.ClassSym) -> bool:
        return any(self.linker.is_subclass(cls, name) for name in _BASE_MODEL)

    def is_enum(self, cls: link.ClassSym) -> bool:
        return any(
            isinstance(item, link.ExternalSym) and item.qualname in ("enum.Enum", "enum.IntEnum", "enum.StrEnum",
                                                                 "enum.Flag", "enum.IntFlag")
            for item in self.linker.mro(cls)
        )

    def project_bases(self, cls: link.ClassSym) -> list[link.ClassSym]:
        bases = []
        for base in cls.info.bases:
            symbol = self.linker.resolve_expr(cls.module, base)
            if isinstance(symbol, link.ClassSym):
                bases.append(symbol)
        return bases

    def config(self, cls: link.ClassSym) -> dict[str, object]:
        """The model's config as pydantic merges it: direct bases in order, then its own."""
        key = cls.key
        cached = self._configs.get(key)
        if cached is not None:
            return cached
        self._configs[key] = {}  # a cycle is reported by the linker; stop here
        merged: dict[str, object] = {}
        for base in self.project_bases(cls):
            merged.update(self.config(base))
        binding = cls.info.attribute("model_config")
        if binding is not None and binding.value is not None:
            try:
                merged.update(self.config_items(cls.module, binding.value))
            except _Unsupported as error:
                self.attempt(error)
        for name, value in cls.info.keywords:
            try:
                merged[name] = self.config_value(cls.module, name, value)
            except _Unsupported as error:
                self.attempt(error)
        self._configs[key] = merged
        return merged

    def config_items(self, module: str, expr: Expr, depth: int = 0) -> dict[str, object]:
        if depth > _MAX_DEPTH:
            raise _Unsupported(module, expr.pos, "model_config refers to itself")
        if isinstance(expr, Ref):
            symbol = self.linker.resolve_expr(module, expr)
            if isinstance(symbol, link.ValueSym) and symbol.binding.value is not None:
                return self.config_items(symbol.module, symbol.binding.value, depth + 1)
        if isinstance(expr, Call) and not expr.args and not expr.has_star:
            symbol = self.linker.resolve_expr(module, expr.func)
            if isinstance(symbol, link.ExternalSym) and symbol.qualname in _CONFIG_DICT:
                return {name: self.config_value(module, name, value) for name, value in expr.kwargs}
        if isinstance(expr, Container) and expr.kind == "dict" and not expr.has_star:
            items: dict[str, object] = {}
            for key, value in zip(expr.keys, expr.items, strict=True):
                if not isinstance(key, Const) or not isinstance(key.value, str):
                    raise _Unsupported(module, value.pos, "model_config keys must be literal strings")
                items[key.value] = self.config_value(module, key.value, value)
            return items
        raise _Unsupported(
            module, expr.pos, f"model_config = {_describe(expr)} is not a literal ConfigDict(...) or dict"
        )

    def config_value(self, module: str, name: str, expr: Expr) -> object:
        if name not in _CONFIG_KEYS:
            raise _Unsupported(module, expr.pos, f"config key {name!r} is outside the static subset")
        value = self.evaluate(module, expr)
        valid = {
            "extra": value in ("allow", "forbid", "ignore"),
            "title": isinstance(value, str),
            "json_schema_extra": isinstance(value, dict) and _plain_json(value),
        }.get(name, True)
        if not valid:
            raise _Unsupported(module, expr.pos, f"config {name}={_describe(expr)} is not a value skillc can read")
        return _to_json(value, module, expr) if name == "json_schema_extra" else value

    def class_fields(self, cls: link.ClassSym) -> list[_Source]:
        """The model's fields in pydantic's order: annotations along the reversed MRO."""
        mro = [item for item in self.linker.mro(cls) if isinstance(item, link.ClassSym)]
        for item in mro:
            self.check_class_body(item)
        names: dict[str, None] = {}
        for item in reversed(mro):
            for binding in item.info.attributes:
                if binding.annotation is not None:
                    names.setdefault(binding.name)
        sources = []
        for name in names:
            if name == "model_config":
                continue
            if name.startswith("_"):
                if name == "__pydantic_extra__":
                    owner = next(item for item in mro if item.info.attribute(name) is not None)
                    self.report(owner.module, _attribute_pos(owner, name), "__pydantic_extra__ types the extra fields")
                continue
            latest = next(item for item in mro if _annotation(item, name) is not None)
            annotation = _annotation(latest, name)
            assert annotation is not None
            try:
                if self.is_classvar(latest.module, annotation):
                    continue
            except _Unsupported as error:
                self.attempt(error)
                continue
            source = self.field_source(cls, name)
            if source is not None:
                sources.append(source)
        return sources

    def check_class_body(self, cls: link.ClassSym) -> None:
        """Refuse class-level assignments without annotation: pydantic errors or skips them."""
        annotated = {binding.name for binding in cls.info.attributes if binding.annotation is not None}
        for binding in cls.info.attributes:
            if binding.annotation is None and binding.name not in annotated and binding.name != "model_config":
                if binding.name.startswith("_") and not binding.name.startswith("__"):
                    continue  # a private attribute
                self.report(
                    cls.module, binding.pos,
                    f"{cls.info.name}.{binding.name} is assigned without a type annotation",
                )

    def field_source(self, cls: link.ClassSym, name: str) -> _Source | None:
        """Where a field is defined for ``cls``: its own annotation, else the first base's."""
        annotated = [b for b in cls.info.attributes if b.name == name and b.annotation is not None]
        if annotated:
            valued = [b for b in cls.info.attributes if b.name == name and b.value is not None]
            last = annotated[-1]
            value = valued[-1].value if valued else None
            return _Source(name, cls.module, last.annotation, value, last.pos)
        for base in self.project_bases(cls):
            ancestors = [item for item in self.linker.mro(base) if isinstance(item, link.ClassSym)]
            if any(_annotation(item, name) is not None for item in ancestors):
                return self.field_source(base, name)
        return None

    def is_classvar(self, module: str, annotation: Expr) -> bool:
        expr = self.unquote(module, annotation)
        head = expr.value if isinstance(expr, Subscript) else expr
        return self.qualname(module, head) in _CLASSVAR

    # --- enums ---------------------------------------------------------------------

    def enum_json(self, cls: link.ClassSym) -> JsonDict:
        """pydantic's ``enum_schema``: title, description, the members' values, a type."""
        info, module = cls.info, cls.module
        for decorator in info.decorators:
            if self.qualname(module, decorator) not in _ENUM_DECORATORS:
                raise _Unsupported(module, decorator.pos, f"decorator {_describe(decorator)} on enum {info.name}")
        if info.keywords:
            raise _Unsupported(module, info.keywords[0][1].pos, f"enum class keyword {info.keywords[0][0]}=")
        if info.method("__new__") is not None:
            raise _Unsupported(module, info.pos, f"enum {info.name} defines __new__, which changes its values")
        if info.docstring == "":
            raise _Unsupported(module, info.pos, f"enum {info.name} has a blank docstring")
        schema: JsonDict = {"title": info.name}
        if info.docstring:
            schema["description"] = info.docstring
        expected = [_to_json(value, module, info) for _, value in self.enum_members(cls)]
        schema["enum"] = expected
        json_type = _json_type_of(expected)
        if json_type is not None and json_type != "null":
            schema["type"] = json_type
        return schema

    def enum_members(self, cls: link.ClassSym) -> list[tuple[str, object]]:
        """An enum's members in order (pydantic keeps aliases), each with its value.

        An alias (a value equal to an earlier member's) is that earlier member, value included.
        """
        mixin = self.enum_mixin(cls)
        members: list[tuple[str, object]] = []
        for binding in cls.info.attributes:
            if binding.annotation is not None or binding.name.startswith("_"):
                raise _Unsupported(
                    cls.module, binding.pos, f"{cls.info.name}.{binding.name} is not a plain enum member"
                )
            value = self.member_value(cls.module, binding.value, mixin, binding.pos)
            members.append((binding.name, next((seen for _, seen in members if seen == value), value)))
        if not members:
            raise _Unsupported(cls.module, cls.info.pos, f"enum {cls.info.name} has no members")
        return members

    def enum_mixin(self, cls: link.ClassSym) -> type | None:
        """The data type the members are made of (``str`` for ``class C(str, Enum)``), if any."""
        mixin: type | None = None
        for item in self.linker.mro(cls):
            if isinstance(item, link.ClassSym):
                if item != cls and any(b.value is not None for b in item.info.attributes):
                    raise _Unsupported(cls.module, cls.info.pos, f"enum {cls.info.name} extends an enum with members")
                continue
            if item.qualname not in _ENUM_BASES:
                raise _Unsupported(cls.module, cls.info.pos, f"enum {cls.info.name} derives from {item.qualname}")
            mixin = mixin or _ENUM_BASES[item.qualname]
        return mixin

    def member_value(self, module: str, expr: Expr | None, mixin: type | None, pos: Pos) -> object:
        if not isinstance(expr, Const) or isinstance(expr.value, complex | bytes) or expr.value is ...:
            raise _Unsupported(module, expr.pos if expr else pos, f"enum value {_describe(expr)} is not a literal")
        if mixin is not None and type(expr.value) is not mixin:
            raise _Unsupported(module, expr.pos, f"enum value {expr.value!r} is not a {mixin.__name__}")
        return expr.value

    def enum_of(self, module: str, expr: Ref) -> link.ClassSym | None:
        """The project enum ``Color`` of ``Color.RED``, if ``expr`` names a member of one."""
        owner = expr.dotted.rpartition(".")[0]
        symbol = self.linker.resolve_ref(module, owner) if owner else None
        return symbol if isinstance(symbol, link.ClassSym) and self.is_enum(symbol) else None

    def enum_member(self, module: str, expr: Ref) -> object:
        """The value of ``Color.RED``, or ``_MISSING`` when ``expr`` is no enum member."""
        symbol = self.enum_of(module, expr)
        if symbol is None:
            return _MISSING
        member = expr.dotted.rpartition(".")[2]
        members = dict(self.enum_members(symbol))
        if member not in members:
            raise _Unsupported(module, expr.pos, f"{expr.dotted} is not a member of {symbol.info.name}")
        return members[member]

    # --- fields --------------------------------------------------------------------

    def fields_json(self, sources: list[_Source]) -> JsonDict:
        """pydantic's ``_named_required_fields_schema``."""
        properties: JsonDict = {}
        required: list[str] = []
        for source in sources:
            try:
                key, schema, is_required = self.field_json(source)
            except _Unsupported as error:
                self.attempt(error)
                continue
            properties[key] = schema
            if is_required:
                required.append(key)
        schema = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        return schema

    def field_json(self, source: _Source) -> tuple[str, JsonDict, bool]:
        module = source.module
        base, metadata = self.split_annotated(module, source.annotation)
        calls = [self.field_call(item_module, item) for item_module, item in metadata]
        if source.doc is not None:
            calls.insert(0, _FieldCall({"description": source.doc}, []))
        assigned = None
        if source.value is not None and self.is_field_call(module, source.value):
            assert isinstance(source.value, Call)
            assigned = self.field_call(module, source.value)
        attributes, constraints = _merge_fields(calls, assigned)
        defaults = [call for call in (*calls, assigned) if call is not None and
                    ({"default", "default_factory"} & set(call.attributes))]
        if source.value is not None and assigned is None:
            if defaults:
                raise _Unsupported(module, source.value.pos, f"field {source.name!r} has two defaults")
            attributes["default"] = self.default_value(module, source.value)
        elif len(defaults) > 1:
            raise _Unsupported(module, source.pos, f"field {source.name!r} has two defaults")
        node = self.type_node(base[0], base[1]) if base is not None else _Node("any")
        for name, value, expr in constraints:
            node = self.constrain(node, name, value, expr, module)
        schema = _node_json(node)
        default = attributes.get("default", _MISSING)
        factory = attributes.get("default_factory")
        if isinstance(factory, _Factory) and not isinstance(default, _Missing):
            raise _Unsupported(module, source.pos, f"field {source.name!r} has both default and default_factory")
        if not isinstance(default, _Missing):
            schema["default"] = _encode_default(default, module, source.value or source.pos)
        schema = {**schema, **_updates(attributes)}
        extra = attributes.get("json_schema_extra")
        if isinstance(extra, dict):
            schema.update(extra)
        key = _alias(attributes) or source.name
        if "title" not in schema and node.titled:
            schema["title"] = key.title().replace("_", " ").strip()
        if "$ref" in schema and len(schema) > 1:
            self._ref_siblings.append((schema, schema["$ref"], self.building[-1], module, source.pos, source.name))
        required = isinstance(default, _Missing) and not isinstance(factory, _Factory)
        return key, schema, required

    def split_annotated(
        self, module: str, annotation: Expr | None, depth: int = 0
    ) -> tuple[tuple[str, Expr] | None, list[tuple[str, Expr]]]:
        """``Annotated[T, a, b]`` -> ``T`` and ``[a, b]``, through aliases and nesting."""
        if annotation is None:
            return None, []
        if depth > _MAX_DEPTH:
            raise _Unsupported(module, annotation.pos, "the annotation refers to itself")
        expr = self.unquote(module, annotation)
        if isinstance(expr, Subscript) and self.qualname(module, expr.value) in _ANNOTATED:
            if len(expr.items) < 2:
                raise _Unsupported(module, expr.pos, "Annotated[...] needs a type and metadata")
            inner, metadata = self.split_annotated(module, expr.items[0], depth + 1)
            return inner, [*metadata, *((module, item) for item in expr.items[1:])]
        alias = self.alias(module, expr)
        if alias is not None:
            inner, metadata = self.split_annotated(alias[0], alias[1], depth + 1)
            if metadata:
                return inner, metadata
        return (module, expr), []

    def is_field_call(self, module: str, expr: Expr) -> bool:
        return isinstance(expr, Call) and self.qualname(module, expr.func) in _FIELD

    def field_call(self, module: str, expr: Expr) -> _FieldCall:
        """Read a ``Field(...)``; anything else in ``Annotated`` leaves the subset."""
        if not isinstance(expr, Call) or not self.is_field_call(module, expr):
            if isinstance(expr, Const) and not isinstance(expr.value, type(...)):
                return _FieldCall({}, [])  # pydantic ignores plain values
            raise _Unsupported(module, expr.pos, f"Annotated metadata {_describe(expr)} is not Field(...)")
        if expr.has_star or len(expr.args) > 1:
            raise _Unsupported(module, expr.pos, "Field(...) takes one positional argument, the default")
        attributes: dict[str, object] = {}
        constraints: list[tuple[str, object, Expr]] = []
        arguments = [("default", expr.args[0])] if expr.args else []
        for name, value in (*arguments, *expr.kwargs):
            if name in _FIELD_IGNORED:
                continue
            if name in _CONSTRAINTS:
                constrained = self.evaluate(module, value)
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
                raise _Unsupported(module, value.pos, f"Field({name}=...) is outside the static subset")
        return _FieldCall(attributes, constraints)

    def factory(self, module: str, expr: Expr) -> _Factory:
        if isinstance(expr, Ref) and self.linker.resolve_expr(module, expr) is not None:
            return _Factory()
        if isinstance(expr, Dynamic) and expr.kind == "Lambda":
            return _Factory()
        raise _Unsupported(module, expr.pos, f"default_factory={_describe(expr)} is not a function name or lambda")

    def default_value(self, module: str, expr: Expr) -> object:
        if isinstance(expr, Const) and expr.value is ...:
            return _MISSING
        try:
            return self.evaluate(module, expr)
        except _Unsupported as error:
            raise _Unsupported(error.module, error.pos, f"default {_describe(expr)}: {error.message}") from None

    def attribute_value(self, module: str, name: str, expr: Expr) -> object:
        value = self.evaluate(module, expr)
        if name in ("alias", "validation_alias", "title", "description"):
            if value is not None and not isinstance(value, str):
                raise _Unsupported(module, expr.pos, f"Field({name}=...) must be a literal string")
        elif name == "examples":
            if value is not None and not isinstance(value, list | tuple):
                raise _Unsupported(module, expr.pos, "Field(examples=...) must be a literal list")
        elif name == "json_schema_extra":
            if value is not None and not isinstance(value, dict):
                raise _Unsupported(module, expr.pos, "Field(json_schema_extra=...) must be a literal dict")
        elif name == "deprecated" and not isinstance(value, bool | str | None):
            raise _Unsupported(module, expr.pos, "Field(deprecated=...) must be True, False or a string")
        if name in ("examples", "json_schema_extra") and value is not None:
            return _to_json(value, module, expr)
        return value

    def evaluate(self, module: str, expr: Expr, depth: int = 0) -> object:
        """A literal, a module-level constant bound to one, or an enum member's value."""
        if depth > _MAX_DEPTH:
            raise _Unsupported(module, expr.pos, "the value refers to itself")
        if isinstance(expr, Const):
            if isinstance(expr.value, complex) or expr.value is ...:
                raise _Unsupported(module, expr.pos, f"{expr.value!r} has no JSON form")
            return expr.value
        if isinstance(expr, Container) and not expr.has_star:
            items = [self.evaluate(module, item, depth + 1) for item in expr.items]
            if expr.kind == "list":
                return items
            if expr.kind == "tuple":
                return tuple(items)
            if expr.kind == "set":
                try:
                    return set(items)
                except TypeError:
                    raise _Unsupported(module, expr.pos, "a set of unhashable values") from None
            keys = [self.evaluate(module, key, depth + 1) if key is not None else None for key in expr.keys]
            if not all(isinstance(key, str) for key in keys):
                raise _Unsupported(module, expr.pos, "dict keys other than literal strings")
            return dict(zip(keys, items, strict=True))
        if isinstance(expr, Call) and not expr.has_star and not expr.kwargs and len(expr.args) <= 1:
            constructor = _CONSTRUCTORS.get(self.qualname(module, expr.func) or "")
            if constructor is not None:  # set() is the only way to write an empty set
                argument = self.evaluate(module, expr.args[0], depth + 1) if expr.args else ()
                if not isinstance(argument, list | tuple | set | frozenset | dict):
                    raise _Unsupported(module, expr.pos, f"{_describe(expr)} converts a value that is not a collection")
                try:
                    return constructor(argument)
                except TypeError:
                    raise _Unsupported(module, expr.pos, f"{_describe(expr)} holds unhashable values") from None
        if isinstance(expr, Ref):
            member = self.enum_member(module, expr)
            if not isinstance(member, _Missing):
                return member
            symbol = self.linker.resolve_expr(module, expr)
            if isinstance(symbol, link.ValueSym) and symbol.binding.value is not None:
                try:
                    return self.evaluate(symbol.module, symbol.binding.value, depth + 1)
                except _Unsupported:  # report where the constant is used, not where it is bound
                    raise _Unsupported(module, expr.pos, f"{expr.dotted} is not bound to a literal") from None
        raise _Unsupported(module, expr.pos, f"{_describe(expr)} is not a literal or a constant bound to one")

    # --- types ---------------------------------------------------------------------

    def qualname(self, module: str, expr: Expr) -> str | None:
        symbol = self.linker.resolve_expr(module, expr)
        return symbol.qualname if isinstance(symbol, link.ExternalSym) else None

    def unquote(self, module: str, expr: Expr) -> Expr:
        """A string annotation (a forward reference) as the expression it holds."""
        if not isinstance(expr, Const) or not isinstance(expr.value, str):
            return expr
        parsed = _parse_annotation(expr.value, expr.pos)
        if parsed is None:
            raise _Unsupported(module, expr.pos, f"annotation {expr.value!r} is not a valid expression")
        return parsed

    def alias(self, module: str, expr: Expr) -> tuple[str, Expr] | None:
        """What a module-level alias (``Ids = list[int]``) stands for."""
        if not isinstance(expr, Ref):
            return None
        symbol = self.linker.resolve_expr(module, expr)
        if not isinstance(symbol, link.ValueSym) or symbol.binding.value is None:
            return None
        annotation = symbol.binding.annotation
        if annotation is not None and self.qualname(symbol.module, annotation) not in _TYPE_ALIAS:
            return None
        return symbol.module, symbol.binding.value

    def type_node(self, module: str, expr: Expr, depth: int = 0) -> _Node:
        """The node of one annotation; ``_Unsupported`` names what is outside the subset."""
        if depth > _MAX_DEPTH:
            raise _Unsupported(module, expr.pos, "the annotation nests too deep or refers to itself")
        expr = self.unquote(module, expr)
        if isinstance(expr, Const) and expr.value is None:
            return _Node("none")
        if self.is_union(module, expr):
            return self.union_node(module, expr, depth)
        if isinstance(expr, Subscript):
            return self.generic_node(module, expr, depth)
        if isinstance(expr, Ref):
            return self.named_node(module, expr, depth)
        raise _Unsupported(module, expr.pos, f"type {_describe(expr)} is outside the static schema subset")

    def named_node(self, module: str, expr: Ref, depth: int) -> _Node:
        symbol = self.linker.resolve_expr(module, expr)
        if isinstance(symbol, link.ExternalSym):
            kind = _SCALARS.get(symbol.qualname) or _COLLECTIONS.get(symbol.qualname)
            if kind in ("list", "set"):
                return _Node(kind, args=(_Node("any"),))
            if kind == "tuple":
                return _Node("tuple", args=(_Node("any"),), variadic=True)
            if kind == "dict":
                return _Node("dict", args=(_Node("str"), _Node("any")))
            if kind is not None:
                return _Node(kind)
            raise _Unsupported(
                module, expr.pos,
                f"type {expr.dotted} ({symbol.qualname}, from outside the project) is not in the static schema subset",
            )
        if isinstance(symbol, link.ClassSym):
            if self.is_enum(symbol):
                return self.enum_node(symbol, (module, expr.pos))
            if self.is_model(symbol):
                return self.model_node(symbol, (module, expr.pos))
            raise _Unsupported(module, expr.pos, f"class {expr.dotted} is neither a pydantic model nor an Enum")
        alias = self.alias(module, expr)
        if alias is not None:
            return self.type_node(alias[0], alias[1], depth + 1)
        if isinstance(symbol, link.UnknownSym):
            raise _Unsupported(module, expr.pos, f"{expr.dotted} cannot be read statically: {symbol.reason}")
        raise _Unsupported(
            module, expr.pos, f"{_describe_symbol(expr.dotted, symbol)} is not a type the compiler can read"
        )

    def union_node(self, module: str, expr: Expr, depth: int) -> _Node:
        """``Optional``/``Union``/``|``, flattened and deduplicated as ``typing`` does."""
        members: list[_Node] = []
        nullable = False
        for item_module, item in self.union_members(module, expr, depth):
            node = self.type_node(item_module, item, depth + 1)
            if node == _Node("none"):  # Annotated[None, Field(...)] is a member of its own
                nullable = True
            elif node.identity not in {member.identity for member in members}:
                members.append(node)
        if not members:
            return _Node("none")
        inner = members[0] if len(members) == 1 else _Node("union", args=tuple(members))
        return _Node("nullable", args=(inner,)) if nullable else inner

    def union_members(self, module: str, expr: Expr, depth: int) -> Iterator[tuple[str, Expr]]:
        if depth > _MAX_DEPTH:
            raise _Unsupported(module, expr.pos, "the annotation nests too deep or refers to itself")
        expr = self.unquote(module, expr)
        if isinstance(expr, BinOp) and expr.op == "|":
            yield from self.union_members(module, expr.left, depth + 1)
            yield from self.union_members(module, expr.right, depth + 1)
            return
        if isinstance(expr, Subscript):
            head = self.qualname(module, expr.value)
            if head in _OPTIONAL:
                if len(expr.items) != 1:
                    raise _Unsupported(module, expr.pos, "Optional[...] takes one type")
                yield from self.union_members(module, expr.items[0], depth + 1)
                yield module, Const(None, expr.pos)
                return
            if head in _UNION:
                for item in expr.items:
                    yield from self.union_members(module, item, depth + 1)
                return
        alias = self.alias(module, expr)
        if alias is not None and self.is_union(alias[0], alias[1]):
            yield from self.union_members(alias[0], alias[1], depth + 1)
            return
        yield module, expr

    def is_context(self, module: str, annotation: Expr) -> bool:
        """``ToolContext``, ``ToolContext | None`` or ``Optional[ToolContext]``: not an input."""
        names = []
        for item_module, item in self.union_members(module, annotation, 0):
            none = isinstance(item, Const) and item.value is None
            names.append("None" if none else self.qualname(item_module, item) or "")
        return _CONTEXT in names and all(name in (_CONTEXT, "None") for name in names)

    def is_union(self, module: str, expr: Expr) -> bool:
        expr = self.unquote(module, expr)
        if isinstance(expr, BinOp):
            return expr.op == "|"
        return isinstance(expr, Subscript) and self.qualname(module, expr.value) in _OPTIONAL | _UNION

    def generic_node(self, module: str, expr: Subscript, depth: int) -> _Node:
        head = self.qualname(module, expr.value)
        items = expr.items
        if head in _LITERAL:
            return self.literal_node(module, expr)
        if head in _ANNOTATED:
            return self.annotated_node(module, expr, depth)
        kind = _COLLECTIONS.get(head or "")
        if kind in ("list", "set") and len(items) == 1:
            return _Node(kind, args=(self.type_node(module, items[0], depth + 1),))
        if kind == "tuple":
            if len(items) == 2 and isinstance(items[1], Const) and items[1].value is ...:
                return _Node("tuple", args=(self.type_node(module, items[0], depth + 1),), variadic=True)
            if len(items) == 1 and isinstance(items[0], Container) and items[0].kind == "tuple" and not items[0].items:
                return _Node("tuple")
            return _Node("tuple", args=tuple(self.type_node(module, item, depth + 1) for item in items))
        if kind == "dict" and len(items) == 2:
            key = self.type_node(module, items[0], depth + 1)
            if key != _Node("str"):
                raise _Unsupported(module, items[0].pos, "dict keys other than plain str are outside the static subset")
            return _Node("dict", args=(key, self.type_node(module, items[1], depth + 1)))
        raise _Unsupported(module, expr.pos, f"type {_describe(expr)} is outside the static schema subset")

    def literal_node(self, module: str, expr: Subscript) -> _Node:
        """``Literal[...]``: values deduplicated by value and type, as ``typing`` does."""
        seen: list[tuple[object, object]] = []
        for item in expr.items:
            value: object = _MISSING
            kind: object = None
            if isinstance(item, Const) and (item.value is None or isinstance(item.value, str | bytes | int | bool)):
                value, kind = item.value, type(item.value)
            elif isinstance(item, Ref):
                value, kind = self.enum_member(module, item), self.enum_of(module, item)
            if isinstance(value, _Missing):
                raise _Unsupported(module, item.pos, f"Literal value {_describe(item)} is not a literal or enum member")
            if (kind, value) not in seen:  # an enum member is of its enum's type, not its value's
                seen.append((kind, value))
        return _Node("literal", values=tuple(_to_json(value, module, expr) for _, value in seen))

    def annotated_node(self, module: str, expr: Subscript, depth: int) -> _Node:
        """``Annotated[T, Field(...)]`` inside a type: constraints and schema updates on ``T``."""
        base, metadata = self.split_annotated(module, expr, depth + 1)
        assert base is not None
        node = self.type_node(base[0], base[1], depth + 1)
        extras = 0
        for item_module, item in metadata:
            call = self.field_call(item_module, item)
            for name in call.attributes:
                if name not in ("title", "description", "examples", "deprecated", "json_schema_extra"):
                    raise _Unsupported(
                        item_module, item.pos, f"Field({name}=...) inside a type has no effect pydantic documents"
                    )
            for name, value, where in call.constraints:
                node = self.constrain(node, name, value, where, item_module)
            extra = call.attributes.get("json_schema_extra")
            extras += extra is not None
            if extras > 1:
                raise _Unsupported(item_module, item.pos, "two json_schema_extra inside one Annotated")
            updates = _updates(call.attributes)
            if node.kind == "ref" and (updates or extra):
                self._annotated_refs.append((node.ref, item_module, item.pos))
            node = dataclasses.replace(
                node,
                updates={**node.updates, **updates},
                extra={**node.extra, **(extra if isinstance(extra, dict) else {})},
                origin=(module, expr.pos.line, expr.pos.col),
            )
        return node

    def constrain(self, node: _Node, name: str, value: object, expr: Expr, module: str) -> _Node:
        """Apply one constraint where pydantic applies it: through ``Optional``, onto ``T``."""
        if node.kind == "nullable":
            return dataclasses.replace(node, args=(self.constrain(node.args[0], name, value, expr, module),))
        if name in _SILENT:
            if node.kind not in _SILENT[name] or isinstance(value, float) or not isinstance(value, int):
                raise _Unsupported(
                    module, expr.pos, f"{name}={value!r} on a {node.kind} value is outside the static subset"
                )
            return node
        allowed = dict(_VALIDATIONS.get(node.kind, ()))
        if name not in allowed:
            raise _Unsupported(
                module, expr.pos, f"constraint {name}= on a {node.kind} value is outside the static subset"
            )
        if name == "pattern":
            if not isinstance(value, str) or not _valid_pattern(value):
                raise _Unsupported(module, expr.pos, f"pattern {value!r} is not one pydantic's regex engine accepts")
        elif name in ("min_length", "max_length"):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _Unsupported(module, expr.pos, f"{name}={value!r} is not a whole number >= 0")
        elif node.kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
            raise _Unsupported(module, expr.pos, f"{name}={value!r} on an int must be an int")
        elif isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise _Unsupported(module, expr.pos, f"{name}={value!r} is not a finite number")
        return dataclasses.replace(node, constraints={**node.constraints, name: value})

    # --- the whole document --------------------------------------------------------

    def check_references(self, top: str) -> None:
        """Reproduce, or refuse, what pydantic does depending on how definitions are shared.

        pydantic keeps a definition used once and in no cycle inline, where it is used, and
        builds the others (shared or recursive) first, in an order of its own, then the top
        model.  Two of its behaviours depend on that:

        - ``handle_ref_overrides`` drops a key beside a field's ``$ref`` that equals the
          definition's own, but only if that definition was complete at that moment;
        - ``Field`` metadata in ``Annotated`` on a recursive model is written into that
          model's own cached schema (a pydantic bug), changing it for every user.
        """
        graph = _Graph(self.definitions)
        for ref, module, pos in self._annotated_refs:
            if ref in graph.cyclic:
                self.report(
                    module, pos,
                    "Field(...) metadata on a recursive model inside a type: pydantic writes it into "
                    "the model's own schema",
                )
        for schema, ref, owner, module, pos, name in self._ref_siblings:
            target = graph.schemas.get(ref, {})
            same = [key for key, value in schema.items() if key != "$ref" and key in target and target[key] == value]
            if not same:
                continue
            built_in = graph.built_in(_json_ref(owner), _json_ref(top))
            if ref in graph.shared and built_in not in ("", ref):
                self.report(
                    module, pos,
                    f"field {name!r} repeats {same[0]!r} of a model that is used more than once or "
                    "recursively; whether pydantic keeps it depends on the order it builds definitions",
                )
            elif ref not in graph.shared or built_in == "":
                for key in same:
                    del schema[key]

    def finish(self, top: _Node) -> SchemaResult:
        """pydantic's ``generate``: unpack the top reference, collect garbage, rename, sort."""
        self.check_references(_def_name(top.ref))
        if self.findings:
            return SchemaResult(None, tuple(self.findings))
        definitions = deepcopy(self.definitions)
        json_to_defs = {_json_ref(name): name for name in definitions}
        schema: JsonDict = {"$ref": top.ref}
        if _ref_counts(schema, definitions, json_to_defs)[top.ref] == 1:
            schema = definitions[json_to_defs[top.ref]].copy()  # not recursive: the model itself
        definitions = _collect_garbage(schema, definitions, json_to_defs)
        remapping = _remapping(self.choices, definitions)
        if definitions:
            schema["$defs"] = definitions
        schema = remapping.remap(schema)
        return SchemaResult(_sort(schema), ())


# --- Entry points ----------------------------------------------------------------------


def model_schema(linker: link.Linker, module: str, qualname: str) -> SchemaResult:
    """The JSON Schema pydantic gives for the project model ``module.qualname``."""
    generator = _Generator(linker)
    symbol = linker.resolve_name(module, qualname) if module in linker.modules else None
    pos = symbol.info.pos if isinstance(symbol, link.ClassSym) else Pos(1, 0)
    if module in linker.failed:
        generator.report(module, pos, f"{module} does not parse, so the schema of {qualname} cannot be read")
        return SchemaResult(None, tuple(generator.findings))
    if not isinstance(symbol, link.ClassSym) or not generator.is_model(symbol):
        generator.report(
            module, pos,
            f"{module}.{qualname} is not a pydantic model defined in the project"
            + ("" if module in linker.modules else " (it comes from outside the project)"),
        )
        return SchemaResult(None, tuple(generator.findings))
    try:
        top = generator.model_node(symbol, (module, pos))
    except _Unsupported as error:
        generator.attempt(error)
        return SchemaResult(None, tuple(generator.findings))
    return generator.finish(top)


def function_schema(linker: link.Linker, module: str, function: FunctionInfo) -> SchemaResult:
    """The schema of a ``@tool`` function's input, built as ``FunctionTool._input_model``
    builds it: one field per parameter but the context, described by the docstring's
    ``Args:``, in a model named after the function with no config and no docstring."""
    generator = _Generator(linker)
    docs = parse_docstring(function.docstring).args
    sources = []
    for param in function.params:
        if param.kind not in ("normal", "keyword_only"):
            generator.report(module, param.pos, f"parameter {param.name!r} cannot be part of a tool's input")
            continue
        try:
            if param.annotation is not None and generator.is_context(module, param.annotation):
                continue
        except _Unsupported as error:
            generator.attempt(error)
            continue
        if param.name.startswith("_"):
            generator.report(module, param.pos, f"parameter {param.name!r} starts with an underscore")
            continue
        sources.append(_Source(param.name, module, param.annotation, param.default, param.pos, docs.get(param.name)))
    name = function_input_model_name(function.name)
    try:
        ref, pending = generator.define(module, name, f"function:{module}:{function.name}", (module, function.pos))
    except _Unsupported as error:
        generator.attempt(error)
        return SchemaResult(None, tuple(generator.findings))
    if pending:
        generator.building.append(ref)
        schema = generator.fields_json(sources)
        schema.setdefault("title", name)
        generator.definitions[ref] = schema
    return generator.finish(_Node("ref", ref=_json_ref(ref)))


# --- pydantic's helpers, reproduced --------------------------------------------------


def _node_json(node: _Node) -> JsonDict:
    """pydantic's JSON for one node, keys in pydantic's order."""
    schema = _kind_json(node)
    for name, keyword in _VALIDATIONS.get(node.kind, ()) if node.kind != "decimal" else ():
        if name in node.constraints:
            schema[keyword] = node.constraints[name]
    schema = {**schema, **node.updates}
    schema.update(node.extra)
    return schema

def _kind_json(node: _Node) -> JsonDict:
    kind = node.kind
    if kind == "nullable":
        inner = _node_json(node.args[0])
        return dict(_NULL) if inner == _NULL else _union_of([inner, dict(_NULL)])
    if kind == "union":
        members = [_node_json(item) for item in node.args]
        return members[0] if len(members) == 1 else _union_of(members)
    if kind == "ref":
        return {"$ref": node.ref}
    if kind == "literal":
        return _literal_json(list(node.values))
    if kind == "decimal":
        number: JsonDict = {"type": "number"}
        for name, keyword in _NUMERIC:
            if name in node.constraints:
                number[keyword] = float(node.constraints[name])  # type: ignore[arg-type]
        return {"anyOf": [number, {"type": "string"}]}
    if kind in ("list", "set"):
        items = _node_json(node.args[0])
        return {"type": "array", "items": items} if kind == "list" else {
            "type": "array", "uniqueItems": True, "items": items}
    if kind == "tuple":
        return _tuple_json(node)
    if kind == "dict":
        values = dict(_node_json(node.args[1]))
        values.pop("title", None)
        return {"type": "object", "additionalProperties": values or True}
    return dict(_SCALAR_JSON[kind])

def _tuple_json(node: _Node) -> JsonDict:
    if node.variadic:
        return {"type": "array", "items": _node_json(node.args[0])}
    schema: JsonDict = {"type": "array"}
    if node.args:
        schema["prefixItems"] = [_node_json(item) for item in node.args]
    schema["minItems"] = len(node.args)
    schema["maxItems"] = len(node.args)
    return schema



def _normalize(name: str) -> str:
    """``GenerateJsonSchema.normalize_name``."""
    return re.sub(r"[^a-zA-Z0-9.\-_]", "_", name).replace(".", "__")


def _json_ref(defs_name: str) -> str:
    return f"#/$defs/{defs_name}"


def _def_name(json_ref: str) -> str:
    return json_ref.removeprefix("#/$defs/")


def _hashable(value: object) -> object:
    """``_make_json_hashable``: how pydantic tells equal schemas apart (``1 == True``)."""
    if isinstance(value, dict):
        return tuple(sorted((key, _hashable(item)) for key, item in value.items()))
    if isinstance(value, list):
        return tuple(_hashable(item) for item in value)
    return value


def _deduplicate(schemas: list[JsonDict]) -> list[JsonDict]:
    return list({_hashable(schema): schema for schema in schemas}.values())


def _union_of(schemas: list[JsonDict]) -> JsonDict:
    """``get_union_of_schemas`` (``anyOf`` format): flattened and deduplicated."""
    members: list[JsonDict] = []
    for schema in schemas:
        if len(schema) == 1 and "anyOf" in schema:
            members.extend(schema["anyOf"])
        else:
            members.append(schema)
    members = _deduplicate(members)
    return members[0] if len(members) == 1 else {"anyOf": members}


def _json_type_of(values: list[object]) -> str | None:
    types = {type(value) for value in values}
    return {
        frozenset({str}): "string", frozenset({int}): "integer", frozenset({float}): "number",
        frozenset({bool}): "boolean", frozenset({list}): "array", frozenset({type(None)}): "null",
    }.get(frozenset(types))


def _literal_json(values: list[object]) -> JsonDict:
    schema: JsonDict = {"const": values[0]} if len(values) == 1 else {"enum": values}
    json_type = _json_type_of(values)
    if json_type is not None:
        schema["type"] = json_type
    return schema


def _all_refs(item: object) -> set[str]:
    """``_get_all_json_refs``: every ``$ref`` outside ``examples``."""
    refs: set[str] = set()
    stack = [item]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            for key, value in current.items():
                if key == "examples" and isinstance(value, list):
                    continue
                if key == "$ref" and isinstance(value, str):
                    refs.add(value)
                elif isinstance(value, dict):
                    stack.append(value)
                elif isinstance(value, list):
                    stack.extend(value)
        elif isinstance(current, list):
            stack.extend(current)
    return refs


def _ref_counts(schema: JsonDict, definitions: dict[str, JsonDict], json_to_defs: dict[str, str]) -> Counter[str]:
    """``get_json_ref_counts``."""
    counts: Counter[str] = Counter()

    def add(item: object) -> None:
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str):
                visited = ref in counts
                counts[ref] += 1
                if visited:
                    return
                add(definitions.get(json_to_defs.get(ref, ""), {}))
            for key, value in item.items():
                if not (key == "examples" and isinstance(value, list)):
                    add(value)
        elif isinstance(item, list):
            for value in item:
                add(value)

    add(schema)
    return counts


class _Graph:
    """Which definitions use which, as pydantic's core schema sees them."""

    def __init__(self, definitions: dict[str, JsonDict]) -> None:
        self.schemas = {_json_ref(name): schema for name, schema in definitions.items()}
        self.edges = {ref: _all_ref_uses(schema) for ref, schema in self.schemas.items()}
        uses = Counter(target for targets in self.edges.values() for target in targets)
        self.cyclic = {ref for ref in self.schemas if self.reaches(ref, ref)}
        #: Kept by pydantic as core definitions: used twice or more, or in a cycle.
        self.shared = {ref for ref, count in uses.items() if count > 1} | self.cyclic
        self.user = {target: owner for owner, targets in self.edges.items() for target in targets}

    def reaches(self, start: str, goal: str) -> bool:
        seen: set[str] = set()
        pending = list(self.edges.get(start, ()))
        while pending:
            current = pending.pop()
            if current == goal:
                return True
            if current not in seen:
                seen.add(current)
                pending.extend(self.edges.get(current, ()))
        return False

    def built_in(self, ref: str, top: str) -> str:
        """The core definition whose schema holds ``ref``'s inline, or "" for the top's."""
        while ref not in self.shared:
            if ref == top or ref not in self.user:
                return ""
            ref = self.user[ref]
        return ref


def _all_ref_uses(item: object) -> list[str]:
    """Every ``$ref`` in a schema, once per use."""
    if isinstance(item, dict):
        found = [item["$ref"]] if isinstance(item.get("$ref"), str) else []
        return found + [ref for value in item.values() for ref in _all_ref_uses(value)]
    if isinstance(item, list):
        return [ref for value in item for ref in _all_ref_uses(value)]
    return []


def _collect_garbage(
    schema: JsonDict, definitions: dict[str, JsonDict], json_to_defs: dict[str, str]
) -> dict[str, JsonDict]:
    """``_garbage_collect_definitions``: keep the definitions ``schema`` reaches."""
    visited: set[str] = set()
    pending = _all_refs(schema)
    while pending:
        name = json_to_defs[pending.pop()]
        if name not in visited:
            visited.add(name)
            pending.update(_all_refs(definitions[name]))
    return {name: value for name, value in definitions.items() if name in visited}


@dataclass
class _Remapping:
    """``_DefinitionsRemapping``: long definition names to pydantic's shortest unique ones."""

    defs: dict[str, str]
    refs: dict[str, str]

    def remap(self, schema: Any) -> Any:
        if isinstance(schema, str):
            return self.refs.get(schema, schema)
        if isinstance(schema, list):
            return [self.remap(item) for item in schema]
        if isinstance(schema, dict):
            for key, value in schema.items():
                if key == "$ref" and isinstance(value, str):
                    schema["$ref"] = self.refs.get(value, value)
                elif key == "$defs":
                    schema["$defs"] = {self.defs.get(name, name): self.remap(item) for name, item in value.items()}
                else:
                    schema[key] = self.remap(value)
        return schema


def _remapping(choices: dict[str, list[str]], definitions: dict[str, JsonDict]) -> _Remapping:
    """``from_prioritized_choices``: simplify names until nothing changes any more."""
    defs_to_json = {name: _json_ref(name) for options in choices.values() for name in options}
    copied = deepcopy(definitions)
    document: JsonDict = {"$defs": copied}
    for _ in range(100):
        schemas: dict[str, list[JsonDict]] = defaultdict(list)
        for name in copied:
            for option in choices[name]:
                schemas[option].append(copied[name])
        for option in schemas:
            if len(schemas[option]) > 1:
                schemas[option] = _deduplicate(schemas[option])
        defs: dict[str, str] = {}
        refs: dict[str, str] = {}
        for name in definitions:
            options = choices[name]
            chosen = next(option for option in options if len(schemas[option]) == 1)
            defs[name] = chosen
            for option in options[options.index(chosen):]:
                refs[defs_to_json[option]] = defs_to_json[chosen]
        remapping = _Remapping(defs, refs)
        renamed = remapping.remap({"$defs": deepcopy(copied)})
        if renamed == document:
            return remapping
        document = renamed
    return remapping  # pydantic raises here; 100 rounds are never needed for real schemas


def _sort(value: JsonDict, parent: str | None = None) -> JsonDict:
    """``GenerateJsonSchema.sort``: keys sorted except under ``properties`` and ``default``."""
    keys = value.keys() if parent in ("properties", "default") else sorted(value)
    return {key: _sort_value(value[key], key) for key in keys}


def _sort_value(value: object, parent: str | None) -> object:
    if isinstance(value, dict):
        return _sort(value, parent)
    if isinstance(value, list):
        return [_sort_value(item, parent) for item in value]
    return value


# --- Values as pydantic encodes them -------------------------------------------------


def _to_json(value: object, module: str, where: object) -> Any:
    """``to_jsonable_python`` for literal values: tuples become lists, bytes text."""
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _Unsupported(module, _pos_of(where), f"{value!r} is not a finite number")
        return value
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise _Unsupported(module, _pos_of(where), "bytes that are not UTF-8 have no JSON form") from None
    if isinstance(value, list | tuple):
        return [_to_json(item, module, where) for item in value]
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {key: _to_json(item, module, where) for key, item in value.items()}
    if isinstance(value, set | frozenset):
        raise _Unsupported(module, _pos_of(where), "a set inside a value is serialized in hash order")
    raise _Unsupported(module, _pos_of(where), f"{value!r} has no literal JSON form skillc can predict")


def _encode_default(value: object, module: str, where: object) -> Any:
    """``default_schema``: sets are sorted first, then the value is encoded."""
    if isinstance(value, set | frozenset):
        try:
            value = sorted(value)
        except TypeError:
            raise _Unsupported(module, _pos_of(where), "a set default whose items cannot be sorted") from None
    return _to_json(value, module, where)


def _plain_json(value: object) -> bool:
    """Whether a value is JSON as written (model ``json_schema_extra`` is not encoded)."""
    if isinstance(value, bool | int | str) or value is None:
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list | tuple):
        return all(_plain_json(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and _plain_json(item) for key, item in value.items())
    return False


def _pos_of(where: object) -> Pos:
    pos = getattr(where, "pos", where)
    return pos if isinstance(pos, Pos) else Pos(1, 0)


def _updates(attributes: dict[str, object]) -> JsonDict:
    """``_extract_json_schema_info_from_field_info``: title, description, deprecated, examples."""
    deprecated = attributes.get("deprecated")
    updates = {
        "title": attributes.get("title"),
        "description": attributes.get("description"),
        "deprecated": True if (bool(deprecated) or deprecated == "") and deprecated is not None else None,
        "examples": attributes.get("examples"),
    }
    return {key: value for key, value in updates.items() if value is not None}


def _alias(attributes: dict[str, object]) -> str | None:
    """The name a field has in validation mode: ``validation_alias``, else ``alias``."""
    for name in ("validation_alias", "alias"):
        value = attributes.get(name)
        if isinstance(value, str):
            return value
    return None


def _merge_fields(
    calls: list[_FieldCall], assigned: _FieldCall | None
) -> tuple[dict[str, object], list[tuple[str, object, Expr]]]:
    """``FieldInfo._construct``: attributes later-wins (``json_schema_extra`` dicts merged);
    the assigned ``Field``'s constraints go first, so ``Annotated``'s win (pydantic's HACK 1)."""
    attributes: dict[str, object] = {}
    for call in (*calls, *([assigned] if assigned else [])):
        extra = call.attributes.get("json_schema_extra")
        existing = attributes.get("json_schema_extra")
        attributes.update(call.attributes)
        if isinstance(existing, dict) and isinstance(extra, dict):
            attributes["json_schema_extra"] = {**existing, **extra}
    constraints = [*(assigned.constraints if assigned else []), *(c for call in calls for c in call.constraints)]
    return attributes, constraints


def _valid_pattern(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return _RUST_REGEX_GAPS.search(pattern) is None


# --- Reading source ---------------------------------------------------------------------


def _annotation(cls: link.ClassSym, name: str) -> Expr | None:
    found = None
    for binding in cls.info.attributes:
        if binding.name == name and binding.annotation is not None:
            found = binding.annotation
    return found


def _attribute_pos(cls: link.ClassSym, name: str) -> Pos:
    binding = cls.info.attribute(name)
    return binding.pos if binding is not None else cls.info.pos


def _parse_annotation(text: str, pos: Pos) -> Expr | None:
    """A forward reference's text as an expression, every node placed at the string."""
    from .index import IndexFailure, index_source  # LibCST, imported only for quoted annotations

    try:
        ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    index = index_source(f"_: (\n{text.strip()}\n)\n".encode(), "<annotation>", "_annotation", False)
    if isinstance(index, IndexFailure) or len(index.assignments) != 1:
        return None
    annotation = index.assignments[0].annotation
    return _moved(annotation, pos) if annotation is not None else None


def _moved(expr: Expr, pos: Pos) -> Expr:
    """``expr`` with every position replaced by ``pos``."""
    if isinstance(expr, Call):
        return dataclasses.replace(
            expr, func=_moved(expr.func, pos), args=tuple(_moved(item, pos) for item in expr.args),
            kwargs=tuple((name, _moved(item, pos)) for name, item in expr.kwargs), pos=pos,
        )
    if isinstance(expr, Container):
        return dataclasses.replace(
            expr, items=tuple(_moved(item, pos) for item in expr.items),
            keys=tuple(_moved(key, pos) if key is not None else None for key in expr.keys), pos=pos,
        )
    if isinstance(expr, Subscript):
        return dataclasses.replace(
            expr, value=_moved(expr.value, pos), items=tuple(_moved(item, pos) for item in expr.items), pos=pos
        )
    if isinstance(expr, BinOp):
        return dataclasses.replace(expr, left=_moved(expr.left, pos), right=_moved(expr.right, pos), pos=pos)
    return dataclasses.replace(expr, pos=pos)


def _describe(expr: Expr | None) -> str:
    """Short source-like text of an expression, for messages."""
    if expr is None:
        return "nothing"
    if isinstance(expr, Ref):
        return expr.dotted
    if isinstance(expr, Const):
        return repr(expr.value)
    if isinstance(expr, Call):
        return f"{_describe(expr.func)}(...)"
    if isinstance(expr, Subscript):
        return f"{_describe(expr.value)}[{', '.join(_describe(item) for item in expr.items)}]"
    if isinstance(expr, BinOp):
        return f"{_describe(expr.left)} {expr.op} {_describe(expr.right)}"
    if isinstance(expr, Container):
        return {"list": "[...]", "tuple": "(...)", "set": "{...}", "dict": "{...: ...}"}[expr.kind]
    return expr.text


def _describe_symbol(dotted: str, symbol: link.Symbol | None) -> str:
    if symbol is None:
        return f"{dotted} (not defined)"
    return f"{dotted} ({type(symbol).__name__.removesuffix('Sym').lower()})"




# --- The checks this module reports, with their examples --------------------------------

_AGENT = (
    "from skillc import Agent, Skill\n"
    "from tools import Lookup\n"
    'orders = Skill(name="orders", description="Orders.", tools=[Lookup()])\n'
    'agent = Agent(name="shop", persona="Helpful.", skills=[orders])\n'
)


def _tools(model: str, imports: str = "", code: str = "", settings: str = "") -> str:
    """A tools module: the model ``LookupInput`` (body ``model``) and a class tool using it."""
    return (
        f"{imports}from pydantic import BaseModel, Field\n"
        "from skillc import Tool\n"
        "\n"
        "\n"
        f"{code}"
        f"class LookupInput(BaseModel):\n{model}"
        "\n"
        "\n"
        "class Lookup(Tool):\n"
        '    name = "lookup"\n'
        '    description = "Look up an order."\n'
        "    input_schema = LookupInput\n"
        f"{settings}"
        "\n"
        "    def execute(self, input, ctx):\n"
        "        return input.order_id\n"
    )


_SUPPORTED_MODEL = (
    '    """Which order to look up."""\n'
    "\n"
    '    order_id: str = Field(pattern=r"^A\\d{4}$", description="The order id, like A1001.")\n'
    '    carrier: Optional[Literal["ups", "dhl"]] = None\n'
    "    tags: list[str] = []\n"
)
_TYPING = "from typing import Literal, Optional\n"

SCHEMA_CHECKS: tuple[Check, ...] = (
    Check(
        UNSUPPORTED,
        Severity.ERROR,
        "A model uses a construct outside the subset of pydantic that skillc translates to "
        'JSON Schema statically; [tool.skill] schema = "import" lets pydantic build it instead.',
        valid=(Example({"agent.py": _AGENT, "tools.py": _tools(_SUPPORTED_MODEL, imports=_TYPING)}),),
        invalid=(
            Example(
                {
                    "agent.py": _AGENT,
                    "tools.py": _tools("    order_id: str\n    address: IPv4Address\n",
                                       imports="from ipaddress import IPv4Address\n"),
                },
                ("src/tools.py", 8, 13),
            ),
            Example(
                {
                    "agent.py": _AGENT,
                    "tools.py": _tools("    order_id: str\n    since: str = Field(default=today())\n",
                                       code='def today() -> str:\n    return "2024-01-01"\n\n\n'),
                },
                ("src/tools.py", 11, 31),
            ),
        ),
    ),
    Check(
        STRICT_INCOMPATIBLE,
        Severity.ERROR,
        "A tool with strict = True has an input schema that OpenAI's strict mode cannot express "
        "(a free-form dict, a value of any type, a tuple of mixed types, open extra fields).",
        valid=(
            Example({
                "agent.py": _AGENT,
                "tools.py": _tools('    order_id: str\n    note: str = ""\n', settings="    strict = True\n"),
            }),
        ),
        invalid=(
            Example(
                {
                    "agent.py": _AGENT,
                    "tools.py": _tools("    order_id: str\n    tags: dict[str, str] = {}\n",
                                       settings="    strict = True\n"),
                },
                ("src/tools.py", 10, 0),
            ),
        ),
    ),
)
