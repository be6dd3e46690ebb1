"""Report the model fields that pydantic refuses when the class is defined: named like its own members.

A field whose name starts with one of pydantic's protected namespaces (``model_validate``,
``model_dump``) and is the name of a member of ``BaseModel`` (``model_dump``,
``model_validate_json``...) makes pydantic raise ``ValueError`` while it builds the class: the
module does not import, so every tool whose bundle holds it fails when it is called.
``check_model_fields`` reports each such field of every model class of every module, as
``skill/model-field-conflict``, unless the model's configuration (along its bases) sets
``protected_namespaces``, which changes the rule.  Other names in those namespaces only make
pydantic warn.
"""

from __future__ import annotations

from .index_types import Call, Const, Container, Expr
from .resolve import Linker
from .schema_types import is_model
from .symbols import ClassSym

__all__ = ["CODE", "PROTECTED_MEMBERS", "check_model_fields"]

CODE = "skill/model-field-conflict"
#: The members of ``pydantic.BaseModel`` in its default protected namespaces, for every pydantic
#: skillc supports (tests/test_pydantic_versions.py compares them with the installed one's).
PROTECTED_MEMBERS = frozenset(
    {"model_dump", "model_dump_json", "model_validate", "model_validate_json", "model_validate_strings"}
)


def check_model_fields(linker: Linker) -> None:
    """Report every field of every model of every module that pydantic refuses (see the module docstring)."""
    for module in sorted(linker.modules):
        pending = [ClassSym(module, info) for info in linker.modules[module].classes]
        while pending:
            cls = pending.pop(0)
            pending.extend(ClassSym(module, inner, cls.qualname) for inner in cls.info.classes)
            conflicts = [
                binding
                for binding in cls.info.attributes
                if binding.annotation is not None and binding.name in PROTECTED_MEMBERS
            ]
            if not conflicts or not is_model(linker, cls) or _sets_protected_namespaces(linker, cls):
                continue
            for binding in conflicts:
                name = binding.name
                linker.report(
                    CODE,
                    module,
                    binding.pos,
                    f"field {name!r} of model {cls.info.name} is named like BaseModel.{name}: pydantic refuses "
                    "the class when the module is imported (it conflicts with a member of a protected "
                    "namespace), so the module does not import",
                    hint=f"rename the field and keep {name!r} as its name in JSON: `{name.removeprefix('model_')}: "
                    f'... = Field(alias="{name}")`',
                )


def _sets_protected_namespaces(linker: Linker, cls: ClassSym) -> bool:
    """Whether ``cls`` or a class it derives from may set ``protected_namespaces`` in its configuration."""
    for item in linker.mro(cls):
        if not isinstance(item, ClassSym):
            continue
        if any(name == "protected_namespaces" for name, _ in item.info.keywords):
            return True
        binding = item.info.attribute("model_config")
        if binding is not None and binding.value is not None and _may_set(binding.value):
            return True
    return False


def _may_set(config: Expr) -> bool:
    """Whether a ``model_config`` value may hold ``protected_namespaces`` (any value it does not spell out may)."""
    if isinstance(config, Call):
        return config.has_star or any(name == "protected_namespaces" for name, _ in config.kwargs)
    if isinstance(config, Container) and config.kind == "dict":
        return config.has_star or any(
            not (isinstance(key, Const) and key.value != "protected_namespaces") for key in config.keys
        )
    return True
