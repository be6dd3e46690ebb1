"""Build one schema from project models: their fields, configuration, checks and ``$defs``.

pydantic's ``model_schema`` is retraced for each model the schema reaches: the fields
in MRO order, each from its annotation (``schema_types``), its ``Field(...)`` and its
default; then the class-level keys (title, docstring, ``model_config``).  Models and
enums become definitions under pydantic's long names; ``finish`` then produces the
document as ``model_json_schema()`` would (``schema_defs``).  What leaves the subset is
a ``skill/schema-unsupported`` finding where it is written.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from .evaluate import MISSING, Evaluator, Missing, Unsupported, describe
from .index_types import Call, Const, Expr
from .resolve import Linker
from .schema_classes import FieldSource
from .schema_config import ConfigReader
from .schema_defs import RefSibling, assemble, check_references, def_name, json_ref, name_choices
from .schema_enums import enum_json, enum_member
from .schema_json import (
    CallableDiscriminator,
    Factory,
    FieldCall,
    JsonDict,
    Node,
    encode_default,
    field_alias,
    field_updates,
    merge_fields,
    node_json,
)
from .schema_types import BASE_MODEL, Where, is_model
from .symbols import ClassSym, ExternalSym, ValueSym
from .types import Finding, Pos

__all__ = ["HINT", "UNSUPPORTED", "FieldSource", "SchemaBuilder", "SchemaResult"]

UNSUPPORTED = "skill/schema-unsupported"
UNKNOWN_FIELD = "skill/unknown-field"
HINT = (
    'set [tool.skill] schema = "import" and compile with `skill compile --allow-import` to let pydantic '
    "build this schema (skillc then imports the tool's bundle in an isolated process), or stay within the static subset"
)
_MAX_DEPTH = 64
# Method decorators that leave the validation schema alone.
_SCHEMA_NEUTRAL_DECORATORS = frozenset(
    {
        "pydantic.model_validator",
        "pydantic.functional_validators.model_validator",
        "pydantic.field_serializer",
        "pydantic.functional_serializers.field_serializer",
        "pydantic.model_serializer",
        "pydantic.functional_serializers.model_serializer",
        "pydantic.computed_field",
        "pydantic.fields.computed_field",
    }
)
_FIELD_VALIDATOR = frozenset({"pydantic.field_validator", "pydantic.functional_validators.field_validator"})
#: The decorators whose field names pydantic checks when it builds the class.
_FIELD_DECORATORS = _FIELD_VALIDATOR | {"pydantic.field_serializer", "pydantic.functional_serializers.field_serializer"}
_SCHEMA_HOOKS = frozenset(
    {
        "__get_pydantic_json_schema__",
        "__get_pydantic_core_schema__",
        "model_json_schema",
        "__pydantic_init_subclass__",
        "__init_subclass__",
        "__class_getitem__",
    }
)


@dataclass(frozen=True)
class SchemaResult:
    """A model's JSON Schema, or ``None`` and the findings that say why there is none.

    ``schema`` is ``None`` exactly when ``findings`` is not empty.
    """

    schema: JsonDict | None
    findings: tuple[Finding, ...]


class SchemaBuilder(ConfigReader):
    """Builds a JSON Schema equal to pydantic's ``model_json_schema()`` key for key, or none and findings.

    Every construct that could make the two differ is a finding where it is written; one
    builder makes one schema (its definitions, names and findings are that schema's).  It is
    the ``TypeReader`` that also builds the definitions its ``$ref`` nodes point to.
    """

    def __init__(self, linker: Linker) -> None:
        super().__init__(linker, Evaluator(linker, pydantic=True, member=functools.partial(enum_member, linker)))
        self.findings: list[Finding] = []
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
        #: Field schemas that are a ``$ref`` with siblings: checked once every definition is known.
        self._ref_siblings: list[RefSibling] = []

    # --- findings ------------------------------------------------------------------

    def report(self, module: str, pos: Pos, message: str, hint: str = HINT) -> None:
        """Add a ``skill/schema-unsupported`` finding, unless the same one is already there."""
        path = self.linker.path_of(module)
        key = (path, pos.line, pos.col, message)
        if key not in self._reported:
            self._reported.add(key)
            self.findings.append(Finding(UNSUPPORTED, message, path, pos, hint))

    def report_unsupported(self, error: Unsupported) -> None:
        """Report what an ``Unsupported`` names."""
        self.report(error.module, error.pos, error.message, error.hint or HINT)

    # --- definitions ---------------------------------------------------------------

    def define(self, module: str, qualname: str, identity: str, where: Where) -> tuple[str, bool]:
        """The long name of a definition, and whether it still has to be built.

        pydantic names a definition ``module.Qualname`` plus an occurrence index for
        distinct classes of the same dotted name; that index depends on the order pydantic
        meets them, so two such classes in one schema are refused instead.
        """
        dotted = f"{module}.{qualname}"
        choices = name_choices(module, qualname)
        long_name = choices[-1]
        owner = self._owners.get(dotted)
        if owner is not None and owner != identity:
            raise Unsupported(
                where[0],
                where[1],
                f"two different models are named {dotted} in one schema; pydantic's $defs names "
                "for them depend on the order it meets them",
            )
        if owner is None:
            self._owners[dotted] = identity
            self.choices[long_name] = choices
        pending = long_name not in self.definitions and long_name not in self.active
        return long_name, pending

    def model_node(self, cls: ClassSym, where: Where) -> Node:
        """The ``$ref`` of a project model, its definition built on first use."""
        name, pending = self.define(cls.module, cls.qualname, f"class:{cls.module}:{cls.qualname}", where)
        if pending:
            self.store(name, self.model_json, cls)
        self.ref_classes[json_ref(name)] = cls
        return Node("ref", ref=json_ref(name))

    def store(self, name: str, build: Callable[[ClassSym], JsonDict], cls: ClassSym) -> None:
        """Build the definition ``name`` of ``cls``, a cycle back to it being a ``$ref``."""
        self.active.add(name)
        self.building.append(name)
        try:
            self.definitions[name] = build(cls)
        finally:
            self.active.discard(name)
            self.building.pop()

    def enum_node(self, cls: ClassSym, where: Where) -> Node:
        """The ``$ref`` of a project enum, its definition built on first use."""
        name, pending = self.define(cls.module, cls.qualname, f"class:{cls.module}:{cls.qualname}", where)
        if pending:
            try:
                self.definitions[name] = enum_json(self.linker, cls)
            except Unsupported as error:
                self.report_unsupported(error)
                self.definitions[name] = {}
        return Node("ref", ref=json_ref(name))

    def finish(self, top: Node) -> SchemaResult:
        """pydantic's ``generate``: the document whose top is ``top``, or the findings."""
        for module, pos, message in check_references(
            self.definitions, self.annotated_refs, self._ref_siblings, def_name(top.ref)
        ):
            self.report(module, pos, message)
        if self.findings:
            return SchemaResult(None, tuple(self.findings))
        return SchemaResult(assemble(top.ref, self.definitions, self.choices), ())

    # --- models --------------------------------------------------------------------

    def model_json(self, cls: ClassSym) -> JsonDict:
        """pydantic's ``model_schema`` for a project model: fields, then class-level keys."""
        self.check_model_class(cls)
        config = self.config(cls)
        self.contexts.append(config)  # what TypedDicts and dataclasses in its fields inherit
        try:
            schema = self.fields_json(self.class_fields(cls))
        finally:
            self.contexts.pop()
        title = config.get("title")
        schema.setdefault("title", title if isinstance(title, str) else cls.info.name)
        docstring = cls.info.docstring
        if docstring == "":
            self.report(
                cls.module,
                cls.info.pos,
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

    def check_model_class(self, cls: ClassSym) -> None:
        """Refuse what makes a model's schema depend on code: decorators, hooks, odd bases."""
        info, module = cls.info, cls.module
        for decorator in info.decorators:
            self.report(module, decorator.pos, f"class decorator {describe(decorator)} on model {info.name}")
        for base in info.bases:
            symbol = self.linker.resolve_base(cls, base)
            if isinstance(symbol, ClassSym) and is_model(self.linker, symbol):
                continue
            if isinstance(symbol, ExternalSym) and symbol.qualname in BASE_MODEL:
                continue
            self.report(module, base.pos, f"base class {describe(base)} of model {info.name} is not a project model")
        for nested in info.classes:  # other classes of the body are types its fields may use
            if nested.name == "Config":
                self.report(
                    module,
                    nested.pos,
                    f"class Config inside model {info.name} (pydantic v1's configuration; "
                    "use model_config = ConfigDict(...))",
                )
        for pos in info.skipped:
            self.report(module, pos, f"a statement in the body of model {info.name} that is not a field or method")
        for method in info.methods:
            if method.name in _SCHEMA_HOOKS:
                self.report(module, method.pos, f"{info.name}.{method.name} customises pydantic's schema")
            for decorator in method.decorators:
                if self.changes_schema(module, decorator):
                    self.report(module, decorator.pos, f"validator {describe(decorator)} can change the schema")
                self.check_decorated_fields(cls, decorator)

    def check_decorated_fields(self, cls: ClassSym, decorator: Expr) -> None:
        """Report a ``@field_validator("name")`` or ``@field_serializer("name")`` naming no field of
        the model (``skill/unknown-field``): pydantic refuses the class when it is defined, unless
        the decorator says ``check_fields=False``."""
        if not isinstance(decorator, Call) or decorator.has_star or decorator.keyword("check_fields") is not None:
            return
        if self.linker.external_name(cls.module, decorator.func) not in _FIELD_DECORATORS:
            return
        fields = {
            binding.name
            for item in self.linker.mro(cls)
            if isinstance(item, ClassSym)
            for binding in item.info.attributes
            if binding.annotation is not None
        }
        for argument in decorator.args:
            if isinstance(argument, Const) and isinstance(argument.value, str) and argument.value != "*":
                if argument.value not in fields:
                    self.findings.append(
                        Finding(
                            UNKNOWN_FIELD,
                            f"{describe(decorator.func)}({argument.value!r}) names no field of model "
                            f"{cls.info.name}: pydantic refuses the class when its module is imported",
                            self.linker.path_of(cls.module),
                            argument.pos,
                            "name one of the model's fields, or pass check_fields=False when a subclass defines it",
                        )
                    )

    def changes_schema(self, module: str, decorator: Expr, depth: int = 0) -> bool:
        """Whether a method decorator is a pydantic validator that can change the schema."""
        target = decorator.func if isinstance(decorator, Call) else decorator
        symbol = self.linker.resolve_expr(module, target)
        if isinstance(symbol, ValueSym) and isinstance(symbol.binding.value, Call) and depth < _MAX_DEPTH:
            # ``checked = field_validator("a", mode="plain")`` then ``@checked``
            return self.changes_schema(symbol.module, symbol.binding.value, depth + 1)
        if not isinstance(symbol, ExternalSym) or not symbol.qualname.startswith("pydantic."):
            return False
        if symbol.qualname in _SCHEMA_NEUTRAL_DECORATORS:
            return False
        if symbol.qualname in _FIELD_VALIDATOR and isinstance(decorator, Call):
            mode = decorator.keyword("mode")
            neutral = mode is None or (isinstance(mode, Const) and mode.value in ("after", "before", "wrap"))
            return not neutral or decorator.keyword("json_schema_input_type") is not None
        return True

    def class_fields(self, cls: ClassSym) -> list[FieldSource]:
        """The model's fields in pydantic's order: annotations along the reversed MRO."""
        mro = [item for item in self.linker.mro(cls) if isinstance(item, ClassSym)]
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
            except Unsupported as error:
                self.report_unsupported(error)
                continue
            source = self.field_source(cls, name)
            if source is not None:
                sources.append(source)
        return sources

    def check_class_body(self, cls: ClassSym) -> None:
        """Refuse class-level assignments without annotation: pydantic errors or skips them."""
        annotated = {binding.name for binding in cls.info.attributes if binding.annotation is not None}
        for binding in cls.info.attributes:
            if binding.annotation is None and binding.name not in annotated and binding.name != "model_config":
                if binding.name.startswith("_") and not binding.name.startswith("__"):
                    continue  # a private attribute
                self.report(
                    cls.module,
                    binding.pos,
                    f"{cls.info.name}.{binding.name} is assigned without a type annotation",
                )

    def field_source(self, cls: ClassSym, name: str) -> FieldSource | None:
        """Where a field is defined for ``cls``: its own annotation, else the first base's."""
        annotated = [b for b in cls.info.attributes if b.name == name and b.annotation is not None]
        if annotated:
            valued = [b for b in cls.info.attributes if b.name == name and b.value is not None]
            last = annotated[-1]
            value = valued[-1].value if valued else None
            return FieldSource(
                name, cls.module, last.annotation, value, last.pos, self.attribute_doc(cls, name), scope=cls
            )
        for base in self.project_bases(cls):
            ancestors = [item for item in self.linker.mro(base) if isinstance(item, ClassSym)]
            if any(_annotation(item, name) is not None for item in ancestors):
                return self.field_source(base, name)
        return None

    # --- fields --------------------------------------------------------------------

    def fields_json(self, sources: list[FieldSource]) -> JsonDict:
        """pydantic's ``_named_required_fields_schema``."""
        properties: JsonDict = {}
        required: list[str] = []
        for source in sources:
            try:
                key, schema, is_required = self.field_json(source)
            except Unsupported as error:
                self.report_unsupported(error)
                continue
            properties[key] = schema
            if is_required:
                required.append(key)
        schema = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        return schema

    def field_json(self, source: FieldSource) -> tuple[str, JsonDict, bool]:
        """One field's key, schema and whether it is required, its names read as its class body reads them."""
        with self.linker.class_scope(source.scope, source.pos):
            return self._field_json(source)

    def _field_json(self, source: FieldSource) -> tuple[str, JsonDict, bool]:
        module = source.module
        base, metadata = self.split_annotated(module, source.annotation)
        calls = self.metadata_calls(metadata)
        for description in (source.doc, source.note):  # the note is the weakest
            if description is not None:
                calls.insert(0, FieldCall({"description": description}, []))
        assigned = source.assigned
        if assigned is None and source.value is not None and self.is_field_call(module, source.value):
            assigned = self.field_call(module, source.value)
        attributes, constraints = merge_fields(calls, assigned)
        defaults = [
            call
            for call in (*calls, assigned)
            if call is not None and ({"default", "default_factory"} & set(call.attributes))
        ]
        if source.value is not None and assigned is None:
            if defaults:
                raise Unsupported(module, source.value.pos, f"field {source.name!r} has two defaults")
            attributes["default"] = self.default_value(module, source.value)
        elif len(defaults) > 1:
            raise Unsupported(module, source.pos, f"field {source.name!r} has two defaults")
        node = self.type_node(base[0], base[1]) if base is not None else Node("any")
        # A constrained type (PositiveInt, conint(...)) is an Annotated alias: its constraints
        # come after the assigned Field's in pydantic's metadata, so they win over those.
        own = set(node.constraints) if node.kind != "nullable" else set()
        for index, (name, value, expr) in enumerate(constraints):
            if index >= len(assigned.constraints if assigned else ()) or name not in own:
                node = self.constrain(node, name, value, expr, module)
        discriminator = attributes.get("discriminator")
        if isinstance(discriminator, str | CallableDiscriminator):
            node = self.discriminate(node, discriminator, module, source.value.pos if source.value else source.pos)
        schema = node_json(node)
        default = attributes.get("default", MISSING)
        factory = attributes.get("default_factory")
        if isinstance(factory, Factory) and not isinstance(default, Missing):
            raise Unsupported(module, source.pos, f"field {source.name!r} has both default and default_factory")
        if not isinstance(default, Missing):
            schema["default"] = encode_default(default, module, source.value or source.pos)
        schema = {**schema, **field_updates(attributes)}
        extra = attributes.get("json_schema_extra")
        if isinstance(extra, dict):
            schema.update(extra)
        key = field_alias(attributes) or source.name
        if "title" not in schema and node.titled:
            schema["title"] = key.title().replace("_", " ").strip()
        if "$ref" in schema and len(schema) > 1:
            sibling = RefSibling(schema, schema["$ref"], self.building[-1], module, source.pos, source.name)
            self._ref_siblings.append(sibling)
        required = isinstance(default, Missing) and not isinstance(factory, Factory) and not source.optional
        return key, schema, required


def _annotation(cls: ClassSym, name: str) -> Expr | None:
    found = None
    for binding in cls.info.attributes:
        if binding.name == name and binding.annotation is not None:
            found = binding.annotation
    return found


def _attribute_pos(cls: ClassSym, name: str) -> Pos:
    binding = cls.info.attribute(name)
    return binding.pos if binding is not None else cls.info.pos
