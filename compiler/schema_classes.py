"""Classes other than models that pydantic validates, and discriminated unions of models.

pydantic gives a project ``TypedDict`` (``total=``, ``Required``/``NotRequired``), a
``NamedTuple`` and a dataclass (of the standard library or ``pydantic.dataclasses``) a
definition under ``$defs``, as it does models: an object with a title and the class's
docstring, or for a ``NamedTuple`` an array of ``prefixItems``.  A union of models with
``Field(discriminator=...)`` or ``Discriminator("name")`` becomes the ``oneOf`` of a
tagged union whose ``mapping`` comes from each model's ``Literal`` field; with a callable
``Discriminator(function)``, the ``oneOf`` of the members ``Tag("...")`` names.  What falls
outside (a dataclass with ``InitVar``, say) is ``Unsupported`` where it is written.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from dataclasses import dataclass

from .evaluate import Evaluator, Unsupported, describe
from .index_types import Call, Const, Expr, Subscript
from .resolve import Linker
from .schema_defs import json_ref
from .schema_json import CallableDiscriminator, FieldCall, JsonDict, Node
from .schema_types import TypeReader, Where
from .schema_versions import DATACLASS_TAKES_EXTRA, STDLIB_DATACLASS_DOCSTRING
from .symbols import ClassSym, ExternalSym
from .types import Pos

__all__ = ["ClassReader", "FieldSource"]

_TYPED_DICT = frozenset(
    {"typing_extensions.TypedDict"} | ({"typing.TypedDict"} if sys.version_info >= (3, 12) else set())
)
_NAMED_TUPLE = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})
_DATACLASS = frozenset({"dataclasses.dataclass", "pydantic.dataclasses.dataclass"})
_DATACLASS_FIELD = frozenset({"dataclasses.field"})
_REQUIRED = frozenset(f"{module}.Required" for module in ("typing", "typing_extensions"))
_NOT_REQUIRED = frozenset(f"{module}.NotRequired" for module in ("typing", "typing_extensions"))
# Arguments of @dataclass(...) and dataclasses.field(...) that leave the schema alone.
_DATACLASS_OPTIONS = frozenset(
    {"frozen", "order", "eq", "repr", "unsafe_hash", "slots", "match_args", "weakref_slot", "kw_only"}
)
_KW_ONLY = frozenset({"dataclasses.KW_ONLY"})
_FIELD_OPTIONS = frozenset({"repr", "hash", "compare", "metadata"})


@dataclass(frozen=True)
class FieldSource:
    """One field as written: where, its annotation and its assigned value or default.

    ``note`` is a bare string in ``Annotated`` (a ``@tool`` parameter's description,
    weaker than ``doc``, the docstring's); ``optional`` marks a ``TypedDict`` key that
    may be left out although it has no default.
    """

    name: str
    module: str
    annotation: Expr | None
    value: Expr | None
    pos: Pos
    doc: str | None = None
    note: str | None = None
    optional: bool = False
    #: The class whose body holds the annotation, whose own classes its names may mean.
    scope: ClassSym | None = None
    #: What ``dataclasses.field(...)`` says, read as a ``Field(...)``.
    assigned: FieldCall | None = None


class ClassReader(TypeReader):
    """Definitions for TypedDicts, NamedTuples and dataclasses; tagged unions of models."""

    def __init__(self, linker: Linker, values: Evaluator) -> None:
        super().__init__(linker, values)
        #: The project class each model ``$ref`` stands for.
        self.ref_classes: dict[str, ClassSym] = {}
        #: The configurations of the models being built, innermost last: a TypedDict or a
        #: stdlib dataclass without one of its own takes the enclosing model's.
        self.contexts: list[dict[str, object]] = []
        self._class_contexts: dict[str, tuple[object, bool]] = {}

    # --- provided by the schema being built ------------------------------------------

    def define(self, module: str, qualname: str, identity: str, where: Where) -> tuple[str, bool]:
        raise NotImplementedError

    def fields_json(self, sources: list[FieldSource]) -> JsonDict:
        raise NotImplementedError

    def field_json(self, source: FieldSource) -> tuple[str, JsonDict, bool]:
        raise NotImplementedError

    def class_fields(self, cls: ClassSym) -> list[FieldSource]:
        raise NotImplementedError

    def store(self, name: str, build: Callable[[ClassSym], JsonDict], cls: ClassSym) -> None:
        raise NotImplementedError

    def source_docs(self, cls: ClassSym) -> dict[str, str]:
        raise NotImplementedError

    def config_items(self, module: str, expr: Expr, depth: int = 0) -> dict[str, object]:
        raise NotImplementedError

    def context(self) -> tuple[object, bool]:
        """What a class without a configuration inherits from the model around it: ``extra``
        and ``use_attribute_docstrings``."""
        config = self.contexts[-1] if self.contexts else {}
        return config.get("extra"), config.get("use_attribute_docstrings") is True

    def annotated_note(self, module: str, annotation: Expr | None) -> str | None:
        """The first bare string in a parameter's ``Annotated`` metadata, as the SDK reads it."""
        _, metadata = self.split_annotated(module, annotation)
        for _, item in metadata:
            if isinstance(item, Const) and isinstance(item.value, str):
                return item.value
        return None

    # --- classes ---------------------------------------------------------------------

    def class_node(self, cls: ClassSym, where: Where) -> Node | None:
        kind = self.class_kind(cls)
        if kind is None:
            return None
        name, pending = self.define(cls.module, cls.qualname, f"class:{cls.module}:{cls.qualname}", where)
        if kind in ("typeddict", "dataclass"):
            extra, documented = self.context()
            context = (extra, documented and bool(self.source_docs(cls)))
            if self._class_contexts.setdefault(name, context) != context:
                raise Unsupported(
                    where[0],
                    where[1],
                    f"{cls.info.name} is used by models whose extra= or use_attribute_docstrings differ, "
                    "which pydantic writes as one definition",
                )
        if pending:
            build = {
                "typeddict": self.typed_dict_json,
                "namedtuple": self.named_tuple_json,
                "dataclass": self.dataclass_json,
            }.get(kind, self.pydantic_dataclass_json)
            self.store(name, build, cls)
        return Node("ref", ref=json_ref(name))

    def class_kind(self, cls: ClassSym) -> str | None:
        names = {item.qualname for item in self.linker.mro(cls) if isinstance(item, ExternalSym)}
        if names & _TYPED_DICT:
            return "typeddict"
        if any(self.linker.external_name(cls.module, base) in _NAMED_TUPLE for base in cls.info.bases):
            return "namedtuple"
        for decorator in cls.info.decorators:
            target = decorator.func if isinstance(decorator, Call) else decorator
            found = self.linker.external_name(cls.module, target)
            if found in _DATACLASS:
                return "dataclass" if found == "dataclasses.dataclass" else "pydantic-dataclass"
        if any(self.linker.external_name(cls.module, base) == "typing.TypedDict" for base in cls.info.bases):
            raise Unsupported(
                cls.module,
                cls.info.pos,
                "pydantic takes typing_extensions.TypedDict, not typing.TypedDict, before 3.12",
                # pydantic itself refuses it: building the schema by importing cannot help.
                hint="import TypedDict from typing_extensions (`from typing_extensions import TypedDict`)",
            )
        return None

    def plain_body(self, cls: ClassSym, what: str, values: bool) -> list[FieldSource]:
        """The annotated attributes of a class body, in order; nothing that would change them."""
        info, module = cls.info, cls.module
        for pos in info.skipped:
            raise Unsupported(module, pos, f"a statement in the body of {what} {info.name} that is not a field")
        for nested in info.classes:
            raise Unsupported(module, nested.pos, f"class {nested.name} inside {what} {info.name}")
        if info.docstring == "":
            raise Unsupported(module, info.pos, f"{what} {info.name} has a blank docstring")
        sources = []
        for binding in info.attributes:
            if (
                what == "dataclass"
                and binding.annotation is not None
                and self.linker.external_name(module, binding.annotation) in _KW_ONLY
            ):
                continue  # `_: KW_ONLY` marks the fields after it keyword-only: no field itself
            if binding.annotation is None or binding.name.startswith("_"):
                raise Unsupported(module, binding.pos, f"{info.name}.{binding.name} is not a field pydantic reads")
            if binding.value is not None and not values:
                raise Unsupported(module, binding.value.pos, f"a value for {what} key {binding.name!r}")
            if self.is_classvar(module, binding.annotation):
                if what != "dataclass":
                    raise Unsupported(module, binding.annotation.pos, f"ClassVar in {what} {info.name}")
                continue
            sources.append(FieldSource(binding.name, module, binding.annotation, binding.value, binding.pos))
        return sources

    def typed_dict_json(self, cls: ClassSym) -> JsonDict:
        """``typed_dict_schema``: keys of the bases first, each required unless ``total=False``
        or ``NotRequired``; title and docstring as for models."""
        info, module = cls.info, cls.module
        bases = [self.linker.resolve_base(cls, base) for base in info.bases]
        sources: dict[str, FieldSource] = {}
        for base, symbol in zip(info.bases, bases, strict=True):
            if isinstance(symbol, ClassSym) and self.class_kind(symbol) == "typeddict":
                for source in self.typed_dict_sources(symbol):
                    sources.setdefault(source.name, source)
            elif not (isinstance(symbol, ExternalSym) and symbol.qualname in _TYPED_DICT):
                raise Unsupported(module, base.pos, f"base {describe(base)} of TypedDict {info.name}")
        for source in self.typed_dict_sources(cls):
            sources[source.name] = source
        for item in info.methods:
            raise Unsupported(module, item.pos, f"method {item.name} in TypedDict {info.name}")
        return self.class_json(cls, list(sources.values()), inherits=True)

    def class_json(
        self,
        cls: ClassSym,
        sources: list[FieldSource],
        inherits: bool,
        stdlib_dataclass: bool = False,
        config: dict[str, object] | None = None,
    ) -> JsonDict:
        """The fields, then ``_update_class_schema``: title, docstring, and the ``extra`` of the
        model around it (when the class ``inherits`` that model's configuration; a stdlib
        dataclass takes its ``extra`` from pydantic 2.14 on, its docstring from 2.13 on), or
        of its own ``config`` (a pydantic dataclass's)."""
        extra, documented = self.context() if inherits else (None, False)
        if stdlib_dataclass and not DATACLASS_TAKES_EXTRA:
            extra = None
        config = config or {}
        if not inherits:
            extra, documented = config.get("extra"), config.get("use_attribute_docstrings") is True
        if documented:
            docs = self.source_docs(cls)
            sources = [dataclasses.replace(source, doc=docs.get(source.name, source.doc)) for source in sources]
        schema = self.fields_json(sources)
        if extra in ("allow", "forbid"):
            schema["additionalProperties"] = extra == "allow"
        title = config.get("title")
        schema.setdefault("title", title if isinstance(title, str) else cls.info.name)
        docstring = cls.info.docstring if STDLIB_DATACLASS_DOCSTRING or not stdlib_dataclass else None
        if docstring and not docstring.startswith(f"{cls.info.name}("):  # dataclasses' generated one
            schema.setdefault("description", docstring)
        schema_extra = config.get("json_schema_extra")
        if isinstance(schema_extra, dict):
            schema.update(schema_extra)
        return schema

    def typed_dict_sources(self, cls: ClassSym) -> list[FieldSource]:
        total = True
        for name, value in cls.info.keywords:
            found = self.values.value(cls.module, value)
            if name != "total" or not isinstance(found, bool):
                raise Unsupported(cls.module, value.pos, f"TypedDict keyword {name}={describe(value)}")
            total = found
        sources = []
        for source in self.plain_body(cls, "TypedDict", values=False):
            annotation, optional = source.annotation, not total
            if isinstance(annotation, Subscript) and len(annotation.items) == 1:
                head = self.linker.external_name(source.module, annotation.value)
                if head in _REQUIRED | _NOT_REQUIRED:
                    annotation, optional = annotation.items[0], head in _NOT_REQUIRED
            sources.append(dataclasses.replace(source, annotation=annotation, optional=optional))
        return sources

    def named_tuple_json(self, cls: ClassSym) -> JsonDict:
        """``arguments_schema`` of a NamedTuple: ``prefixItems``, ``minItems`` for the required ones."""
        items: list[JsonDict] = []
        required = 0
        for source in self.plain_body(cls, "NamedTuple", values=True):
            if source.value is not None and self.is_field_call(source.module, source.value):
                raise Unsupported(source.module, source.value.pos, "Field(...) as a NamedTuple default")
            _, schema, is_required = self.field_json(source)
            items.append(schema)
            required += is_required
        schema = {"type": "array"}
        if items:
            schema["prefixItems"] = items
        if required:
            schema["minItems"] = required
        schema["maxItems"] = len(items)
        return schema

    def pydantic_dataclass_json(self, cls: ClassSym) -> JsonDict:
        """A pydantic dataclass: configured by itself, never by the model around it."""
        return self.dataclass_json(cls, inherits=False)

    def dataclass_json(self, cls: ClassSym, inherits: bool = True) -> JsonDict:
        """``dataclass_schema``: the fields of the dataclass bases first, then its own (one
        redefined keeps its place, as ``dataclasses.fields`` has it), title, the docstring
        written in the source; a pydantic dataclass's ``config=``, else its nearest
        pydantic dataclass base's."""
        chain = [item for item in reversed(self.linker.mro(cls)) if isinstance(item, ClassSym)]
        fields: dict[str, FieldSource] = {}
        config: dict[str, object] | None = None
        for item in chain:
            own = self.dataclass_decorator(item)
            if self.class_kind(item) == "pydantic-dataclass" and (own is not None or config is None):
                config = own if own is not None else {}
            for source in self.plain_body(item, "dataclass", values=True):
                fields[source.name] = self.dataclass_field(source)
        own_config = None if inherits else config
        return self.class_json(cls, list(fields.values()), inherits, stdlib_dataclass=inherits, config=own_config)

    def dataclass_decorator(self, cls: ClassSym) -> dict[str, object] | None:
        """Check a dataclass's decorator and bases; the ``config=`` it gives, if it gives one."""
        info, module = cls.info, cls.module
        config = None
        for decorator in info.decorators:
            if isinstance(decorator, Call):
                for name, value in decorator.kwargs:
                    pydantic = self.linker.external_name(module, decorator.func) == "pydantic.dataclasses.dataclass"
                    if name == "config" and pydantic and not decorator.args and not decorator.has_star:
                        config = self.config_items(module, value)
                    elif name not in _DATACLASS_OPTIONS or decorator.args or decorator.has_star:
                        raise Unsupported(module, value.pos, f"@dataclass({name}=...) is outside the static subset")
            elif self.linker.external_name(module, decorator) not in _DATACLASS:
                raise Unsupported(module, decorator.pos, f"decorator {describe(decorator)} on dataclass {info.name}")
        for base in info.bases:
            symbol = self.linker.resolve_base(cls, base)
            if not isinstance(symbol, ClassSym) or self.class_kind(symbol) not in ("dataclass", "pydantic-dataclass"):
                raise Unsupported(module, base.pos, f"base class {describe(base)} of dataclass {info.name}")
        return config

    def dataclass_field(self, source: FieldSource) -> FieldSource:
        """``dataclasses.field(default=..., default_factory=...)`` read as ``Field`` would be."""
        value = source.value
        if isinstance(value, Call) and self.linker.external_name(source.module, value.func) in _DATACLASS_FIELD:
            kwargs = []
            for name, item in value.kwargs:
                if name in ("default", "default_factory"):
                    kwargs.append((name, item))
                elif name not in _FIELD_OPTIONS or value.args or value.has_star:
                    raise Unsupported(source.module, item.pos, f"dataclasses.field({name}=...) is outside the subset")
            assigned = self.field_call(source.module, Call(value.func, (), tuple(kwargs), value.pos), force=True)
            return dataclasses.replace(source, assigned=assigned)
        return source

    # --- discriminated unions ----------------------------------------------------------

    def discriminate(self, node: Node, name: str | CallableDiscriminator, module: str, pos: Pos) -> Node:
        if isinstance(name, CallableDiscriminator):
            return self.discriminate_by_tags(node, module, pos)
        if node.kind == "nullable":
            return dataclasses.replace(node, args=(self.discriminate(node.args[0], name, module, pos),))
        if node.kind != "union" or any(
            member.kind != "ref" or member.ref not in self.ref_classes for member in node.args
        ):
            raise Unsupported(module, pos, f"discriminator {name!r} on a type that is not a union of models")
        tags: list[tuple[object, int]] = []
        keys: set[str] = set()
        for index, member in enumerate(node.args):
            cls = self.ref_classes[member.ref]
            source = next((item for item in self.class_fields(cls) if item.name == name), None)
            if source is None:
                raise Unsupported(module, pos, f"model {cls.info.name} has no field {name!r} to discriminate by")
            key, schema, _ = self.field_json(source)
            values = [schema["const"]] if "const" in schema else schema.get("enum")
            if schema.get("type") not in ("string", "integer") or not isinstance(values, list):
                raise Unsupported(
                    source.module, source.pos, f"discriminator field {name!r} is not a Literal of str or int"
                )
            keys.add(key)
            for value in values:
                if any(value == seen for seen, _ in tags):
                    raise Unsupported(module, pos, f"discriminator value {value!r} maps to two models")
                tags.append((value, index))
        if len(keys) > 1:
            raise Unsupported(module, pos, f"the models spell discriminator {name!r} with different aliases")
        return Node("tagged", args=node.args, values=tuple(tags), ref=keys.pop(), origin=node.origin)

    def discriminate_by_tags(self, node: Node, module: str, pos: Pos) -> Node:
        """``Discriminator(function)``: every member of the union tagged with ``Tag("...")``,
        as pydantic requires; the schema is the ``oneOf`` of the members, by tag."""
        if node.kind != "union":
            raise Unsupported(module, pos, "a callable Discriminator(...) on a type that is not a union")
        tags: list[tuple[object, int]] = []
        for index, member in enumerate(node.args):
            if member.tag is None:
                raise Unsupported(
                    module, pos, "every member of a union with a callable Discriminator(...) needs a Tag(...)"
                )
            if any(member.tag == seen for seen, _ in tags):
                raise Unsupported(module, pos, f"Tag({member.tag!r}) is on two members of the union")
            tags.append((member.tag, index))
        return Node("tagged", args=node.args, values=tuple(tags), origin=node.origin)
