"""What attributes an instance of a project's pydantic model has, when the sources say it all.

``model_members`` gathers, along the model's MRO, every name its project classes bind
in their bodies (fields, class attributes, methods, properties, private attributes,
nested classes) or assign on ``self`` in a method, and what every pydantic model has
(``model_dump``...).  It answers ``None`` whenever an instance may have more than that:
a base from outside the project other than pydantic's own, a base the compiler cannot
resolve, a class body with statements the index does not read (``if``, ``for``...), a
``__getattr__``, or a configuration that allows extra fields (``extra="allow"``, or one
it cannot read).
"""

from __future__ import annotations

from collections.abc import Iterator

from .index_types import Call, ClassInfo, Const, Container, Expr
from .resolve import Linker
from .schema_types import BASE_MODEL, BASE_MODEL_MEMBERS, ROOT_MODEL
from .symbols import ClassSym, ExternalSym

__all__ = ["bases_resolved", "instance_names", "model_fields", "model_members"]

#: The external bases whose instances add nothing a project model's code could misspell.
_PLAIN_BASES = frozenset({"builtins.object", "object", "typing.Generic"})


def model_members(linker: Linker, model: ClassSym) -> frozenset[str] | None:
    """Every attribute an instance of ``model`` has, or ``None`` when the sources cannot tell."""
    names = set(BASE_MODEL_MEMBERS)
    for item in linker.mro(model):
        if isinstance(item, ExternalSym):
            if item.qualname in ROOT_MODEL:
                names.add("root")
            elif item.qualname not in BASE_MODEL and item.qualname not in _PLAIN_BASES:
                return None
            continue
        info = item.info
        if info.skipped or not bases_resolved(linker, item) or _may_have_extra(info):
            return None
        names.update(instance_names(info))
        if "__getattr__" in names or "__getattribute__" in names:
            return None
    return frozenset(names)


def instance_names(info: ClassInfo) -> Iterator[str]:
    """What one project class gives its instances: every name its body binds (attributes, methods,
    nested classes) and every attribute its methods assign on ``self``."""
    yield from (binding.name for binding in info.attributes)
    yield from (method.name for method in info.methods)
    yield from (inner.name for inner in info.classes)
    yield from (name for name, _ in info.self_assignments)


def model_fields(linker: Linker, model: ClassSym) -> list[str]:
    """The names ``model``'s project classes annotate in their bodies, base classes first (its fields)."""
    fields: list[str] = []
    for item in reversed(linker.mro(model)):
        if isinstance(item, ClassSym):
            for binding in item.info.attributes:
                if binding.annotation is not None and binding.name not in fields and not binding.name.startswith("_"):
                    fields.append(binding.name)
    return fields


def bases_resolved(linker: Linker, cls: ClassSym) -> bool:
    """Whether every base ``cls`` is written with resolves to a class, of the project or from outside it."""
    return all(isinstance(linker.resolve_base(cls, base), ClassSym | ExternalSym) for base in cls.info.bases)


def _may_have_extra(info: ClassInfo) -> bool:
    """Whether the class's configuration allows extra fields, or says something the compiler cannot read."""
    if any(name == "extra" and not _is_not_allow(value) for name, value in info.keywords):
        return True
    binding = info.attribute("model_config")
    if binding is not None:
        value = binding.value
        if isinstance(value, Call) and not value.has_star:
            extra = value.keyword("extra")
            if extra is not None and not _is_not_allow(extra):
                return True
        elif isinstance(value, Container) and value.kind == "dict" and not value.has_star:
            for key, item in zip(value.keys, value.items, strict=True):
                if not isinstance(key, Const) or (key.value == "extra" and not _is_not_allow(item)):
                    return True
        else:
            return True
    for inner in info.classes:
        if inner.name == "Config":  # pydantic v1's configuration class
            found = inner.attribute("extra")
            if found is not None and not _is_not_allow(found.value):
                return True
    return False


def _is_not_allow(value: Expr | None) -> bool:
    """Whether ``value`` is a literal other than ``"allow"``."""
    return isinstance(value, Const) and value.value != "allow"
