"""Build the JSON Schema of a pydantic model from its source, without importing it.

The schema must equal what pydantic's ``Model.model_json_schema()`` returns, key order
included, so this module retraces pydantic's own generator
(``pydantic.json_schema.GenerateJsonSchema``) instead of JSON Schema's semantics:

1. each annotation becomes a ``Node`` shaped like the core schema pydantic builds for
   it (nullable, union, literal, list, ...), constraints and ``Field`` metadata included
   (``schema_types``);
2. nodes become JSON with the keys in the order pydantic inserts them (``schema_json``);
3. models and enums become ``$defs`` under pydantic's long names (``schema_models``,
   ``schema_enums``), which are then shortened by pydantic's own collision rules (``Item``
   when one schema goes by that name, ``pkg__a__Item`` when two do);
4. the top ``$ref`` is unpacked, unused definitions dropped, and keys sorted the way
   pydantic sorts them (everything but ``properties`` and ``default``) (``schema_defs``).

pydantic's quirks are kept because they are what users get at runtime: ``Decimal`` is a
number or a string, set defaults are sorted, enum aliases stay in ``enum``, constraints
written on the ``Field`` assignment lose against those inside ``Annotated``, a title
comes from the alias, and a model reached only through ``Optional`` gets no title.

The subset translated:

- types: ``str``, ``int``, ``float``, ``bool``, ``None``, ``bytes``, ``datetime``,
  ``date``, ``time``, ``timedelta``, ``UUID``, ``Decimal``, ``Any``; ``Optional``,
  ``Union``, ``X | Y``, ``Literal`` (of literals and enum members); ``list``/``List``/
  ``Sequence``, ``set``/``Set``, ``frozenset``/``FrozenSet``, ``tuple``/``Tuple`` (``T,
  ...``, fixed, empty), ``dict``/``Dict`` with ``str``, ``int``, ``float``, ``UUID``,
  ``Literal``, enum or constrained-string keys; project enums (plain, ``str`` or ``int``
  mixins, ``IntEnum``, ``StrEnum``, values from ``enum.auto()``) and project models
  (nested, shared, recursive, inherited, and defined in a model's body: ``Tank.Shrimp``);
  module-level aliases; quoted forward references;
- the named types of ``schema_named``: URLs and DSNs (``AnyUrl``, ``HttpUrl``, ...),
  ``EmailStr``/``NameEmail``, ``SecretStr``/``SecretBytes``, ``Path``/``FilePath``/
  ``DirectoryPath``/``NewPath``, ``ipaddress`` and pydantic's ``IPvAny*`` types, ``UUID1``..
  ``UUID8``, base64 strings, past/future/aware/naive dates, the ``Strict*`` types and the
  constrained aliases (``PositiveInt``, ``NonNegativeFloat``, ...), ``ByteSize``,
  ``PaymentCardNumber``, ``ImportString``/``ImportString[T]``; ``Json``/``Json[T]``;
  ``Secret[T]`` of a scalar;
- ``conint``/``confloat``/``condecimal``/``constr``/``conbytes``/``conlist``/``conset``/
  ``confrozenset``/``condate(...)`` (its bounds never show); in ``Annotated``, ``annotated_types``' ``Gt``, ``Ge``,
  ``Lt``, ``Le``, ``MultipleOf``, ``MinLen``, ``MaxLen``, ``Len``, ``Interval``,
  pydantic's ``StringConstraints``, ``Strict``, ``AllowInfNan``, ``FailFast``, and plain
  values (ignored; on a ``@tool`` parameter a bare string is its description);
- project ``TypedDict``s (``total=``, ``Required``, ``NotRequired``, inheritance),
  ``NamedTuple``s and dataclasses (``dataclasses`` or ``pydantic.dataclasses``, inheriting
  from dataclasses, with ``frozen=``/``kw_only=``/... options, ``KW_ONLY``, a pydantic
  dataclass's ``config=``, ``dataclasses.field(default=..., default_factory=...)``) as
  fields (``schema_classes``); discriminated unions of models by a ``Literal`` field
  (``Field(discriminator=...)``, ``Discriminator("name")``), and unions whose members
  carry a ``Tag("...")`` under ``Discriminator(function)``;
- ``Field(...)`` and ``Annotated[T, Field(...)]``: ``default`` (a literal, a constant
  bound to one, an enum member, or ``set()``-like builtins of literals),
  ``default_factory`` (a name, ``list[int]``-like generics, or a lambda), ``alias``,
  ``validation_alias`` (a string), ``title``, ``description``, ``examples``,
  ``json_schema_extra`` (a literal dict), ``deprecated``, ``discriminator``,
  ``ge``/``gt``/``le``/``lt``/``multiple_of``, ``min_length``/``max_length``, ``pattern``,
  and the schema-neutral ``strict``, ``allow_inf_nan``, ``max_digits``, ``decimal_places``,
  ``fail_fast``, ``exclude``, ``repr``, ``frozen``, ``validate_default``,
  ``serialization_alias``, ``alias_priority``;
- ``model_config`` (``ConfigDict(...)``, a dict literal, a constant, class keywords):
  ``extra``, ``title``, ``json_schema_extra``, ``use_attribute_docstrings`` (with the
  docstrings under fields, ``schema_docs``) and the keys in ``_CONFIG_HARMLESS``;
  docstrings; ``ClassVar`` and private attributes (skipped, as pydantic does);
- validators that leave the schema alone (``field_validator`` in ``after``, ``before``
  or ``wrap`` mode, ``model_validator``), serializers, ``computed_field``, methods.

What pydantic writes differs between its minor versions in a few places; the compiler
writes what the installed one writes (``schema_versions``).

Anything else is reported as ``skill/schema-unsupported`` where it is written; nothing
is guessed, and ``[tool.skill] schema = "import"`` lets pydantic itself build the schema
instead.  Nothing here raises for user code.

Known limit: ``typing`` caches ``Optional[Literal[1, 2]]`` under a key equal to
``Optional[Literal[2, 1]]`` (and ``Union[A, B]`` under one equal to ``Union[B, A]``), so
when a process spells one set of members in two orders, pydantic lists them in the order
of the first spelling it met; the compiler follows each annotation as written.
"""

from __future__ import annotations

from ..contracts.docstrings import parse_docstring
from ..contracts.spec import function_input_model_name
from .evaluate import Unsupported, describe
from .index_types import FunctionInfo
from .model_field_check import CODE as MODEL_FIELD_CONFLICT
from .model_field_check import PROTECTED_MEMBERS
from .resolve import Linker
from .schema_defs import json_ref
from .schema_json import Node
from .schema_models import FieldSource, SchemaBuilder, SchemaResult
from .schema_types import generic_base, is_model
from .symbols import ClassSym
from .types import Finding, Pos

#: The code of a call the runtime cannot make (``check_table``).
CALL_SIGNATURE = "skill/call-signature"

__all__ = ["function_schema", "model_schema"]


def model_schema(linker: Linker, module: str, qualname: str) -> SchemaResult:
    """The JSON Schema pydantic gives for the project model ``module.qualname``: equal to its
    ``model_json_schema()``, key order included, or no schema and the findings that say why."""
    builder = SchemaBuilder(linker)
    symbol = linker.resolve_ref(module, qualname) if module in linker.modules else None
    pos = symbol.info.pos if isinstance(symbol, ClassSym) else Pos(1, 0)
    if module in linker.failed:
        builder.report(module, pos, f"{module} does not parse, so the schema of {qualname} cannot be read")
        return SchemaResult(None, tuple(builder.findings))
    generic = generic_base(linker, symbol) if isinstance(symbol, ClassSym) else None
    if generic is not None:
        base, parametrized = generic
        builder.report(
            module,
            base.pos,
            f"{qualname} derives from {describe(base)}, a parametrized generic model ({parametrized.qualname}), "
            "whose fields the static schema does not read",
        )
        return SchemaResult(None, tuple(builder.findings))
    if not isinstance(symbol, ClassSym) or not is_model(linker, symbol):
        builder.report(
            module,
            pos,
            f"{module}.{qualname} is not a pydantic model defined in the project"
            + ("" if module in linker.modules else " (it comes from outside the project)"),
        )
        return SchemaResult(None, tuple(builder.findings))
    try:
        top = builder.model_node(symbol, (module, pos))
    except Unsupported as error:
        builder.report_unsupported(error)
        return SchemaResult(None, tuple(builder.findings))
    return builder.finish(top)


def function_schema(linker: Linker, module: str, function: FunctionInfo) -> SchemaResult:
    """The schema of a ``@tool`` function's input, built as ``FunctionTool._input_model``
    builds it: one field per parameter but the context, described by the docstring's
    ``Args:`` (or, weaker, by a bare string in ``Annotated[T, "The city"]``), in a model
    named after the function with no config and no docstring."""
    builder = SchemaBuilder(linker)
    docs = parse_docstring(function.docstring).args
    sources = []
    context: str | None = None
    path = linker.path_of(module)
    for param in function.params:
        if param.kind not in ("normal", "keyword_only"):
            builder.report(module, param.pos, f"parameter {param.name!r} cannot be part of a tool's input")
            continue
        try:
            if param.annotation is not None and builder.is_context(module, param.annotation):
                if context is not None:
                    message = (
                        f"parameter {param.name!r} is a second ToolContext (after {context!r}): the runtime "
                        "passes the context to one parameter, so every call would miss this one"
                    )
                    builder.findings.append(Finding(CALL_SIGNATURE, message, path, param.pos, "keep one ToolContext"))
                context = param.name
                continue
        except Unsupported as error:
            builder.report_unsupported(error)
            continue
        if param.name.startswith("_"):
            builder.report(module, param.pos, f"parameter {param.name!r} starts with an underscore")
            continue
        if param.name in PROTECTED_MEMBERS or param.name == "model_config":
            refused = (
                "reads a field named model_config as the model's configuration"
                if param.name == "model_config"
                else f"refuses a field named like BaseModel.{param.name}"
            )
            message = (
                f"parameter {param.name!r} becomes a field of the tool's input model, and pydantic {refused}: "
                "the module does not import"
            )
            builder.findings.append(Finding(MODEL_FIELD_CONFLICT, message, path, param.pos, "rename the parameter"))
            continue
        try:
            note = builder.annotated_note(module, param.annotation)
        except Unsupported as error:
            builder.report_unsupported(error)
            continue
        sources.append(
            FieldSource(param.name, module, param.annotation, param.default, param.pos, docs.get(param.name), note)
        )
    name = function_input_model_name(function.name)
    try:
        ref, pending = builder.define(module, name, f"function:{module}:{function.name}", (module, function.pos))
    except Unsupported as error:
        builder.report_unsupported(error)
        return SchemaResult(None, tuple(builder.findings))
    if pending:
        builder.building.append(ref)
        schema = builder.fields_json(sources)
        schema.setdefault("title", name)
        builder.definitions[ref] = schema
    return builder.finish(Node("ref", ref=json_ref(ref)))
