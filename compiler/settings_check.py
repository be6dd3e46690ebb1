"""Report settings that code run at import reads from the environment: ``settings = Settings()``.

A ``pydantic_settings.BaseSettings`` class reads each field from an environment variable
when it is made.  Made at import (a module-level ``settings = Settings()``, pydantic-settings'
own pattern), a required field whose variable is not set makes pydantic raise
``ValidationError``: the module fails to import, and every tool whose bundle holds it fails
to load, whatever it is called with, where ``os.environ["KEY"]`` would fail the same way
(``import_effects_check``).  ``check_settings_at_import`` reports each such assignment, as
``skill/environment-at-import``, naming the variables it needs.

Only what certainly runs and certainly fails is reported: an assignment at the top level of
the module (not under ``if`` or ``try``), of a project class that derives from
``BaseSettings``, made without ``*``/``**`` arguments, with at least one required field (no
default, no ``default_factory``, along the project's classes of its MRO) that no keyword
argument gives.  A field whose default only running the code would tell counts as having one.
"""

from __future__ import annotations

from .import_effects_check import ENVIRONMENT_AT_IMPORT
from .index_types import Call, Const, Container, Expr, Subscript, ValueBinding
from .resolve import Linker
from .schema_annotations import ANNOTATED, typing_names
from .schema_fields import FIELD_FUNCTIONS
from .symbols import ClassSym

__all__ = ["BASE_SETTINGS", "check_settings_at_import"]

#: pydantic-settings' base class, as it is imported.
BASE_SETTINGS = frozenset({"pydantic_settings.BaseSettings", "pydantic_settings.main.BaseSettings"})
_CLASS_VAR = typing_names("ClassVar")
#: Class-level names that are configuration, not fields.
_NOT_FIELDS = frozenset({"model_config", "Config"})
#: How many variables a message names at most.
_NAMED = 5


def check_settings_at_import(linker: Linker) -> None:
    """Report every settings object made at import that fails where its variables are not set (see the docstring)."""
    if not any(
        item.module.startswith("pydantic_settings") for index in linker.modules.values() for item in index.imports
    ):
        return  # no module imports pydantic-settings: no class can derive from BaseSettings
    for module in sorted(linker.modules):
        for binding in linker.modules[module].assignments:
            call = binding.value
            if binding.branch is not None or not isinstance(call, Call) or call.args or call.has_star:
                continue
            cls = linker.resolve_expr(module, call.func)
            if not isinstance(cls, ClassSym) or not any(linker.is_subclass(cls, name) for name in BASE_SETTINGS):
                continue
            given = {name for name, _ in call.kwargs}
            missing = [(name, alias) for name, alias in _required_fields(linker, cls) if not {name, alias} & given]
            if missing:
                _report(linker, module, binding, cls, missing)


def _report(
    linker: Linker, module: str, binding: ValueBinding, cls: ClassSym, missing: list[tuple[str, str | None]]
) -> None:
    variables = _variables(linker, cls, missing)
    shown = [*variables[:_NAMED], f"{len(variables) - _NAMED} more"] if len(variables) > _NAMED + 1 else variables
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
    verb = "is" if len(variables) == 1 else "are"
    assert binding.value is not None
    linker.report(
        ENVIRONMENT_AT_IMPORT,
        module,
        binding.value.pos,
        f"{cls.info.name}() reads its fields from the environment when the module is imported: where {listed} "
        f"{verb} not set, the import raises ValidationError, and every tool whose bundle holds the module fails "
        "to load, whatever it is called with",
        hint=f"make the settings when the tool runs (call {cls.info.name}() in execute, or in a function cached with "
        "functools.cache), where a missing variable is that call's error; or give the fields defaults",
    )


def _required_fields(linker: Linker, cls: ClassSym) -> list[tuple[str, str | None]]:
    """The fields of ``cls`` that have no default, each with its alias if it has a literal one, in order."""
    fields: dict[str, tuple[bool, str | None]] = {}
    for item in reversed(linker.mro(cls)):
        if not isinstance(item, ClassSym):
            continue
        for binding in item.info.attributes:
            if binding.annotation is None or binding.name.startswith("_") or binding.name in _NOT_FIELDS:
                continue
            if _is_class_var(linker, item.module, binding.annotation):
                continue
            fields.pop(binding.name, None)  # redefined: it takes its place in the subclass's order
            fields[binding.name] = _required(linker, item.module, binding)
    return [(name, alias) for name, (required, alias) in fields.items() if required]


def _is_class_var(linker: Linker, module: str, annotation: Expr) -> bool:
    head = annotation.value if isinstance(annotation, Subscript) else annotation
    return linker.external_name(module, head) in _CLASS_VAR


def _required(linker: Linker, module: str, binding: ValueBinding) -> tuple[bool, str | None]:
    """Whether a field has no default, and its literal alias (``alias=`` or ``validation_alias=``), if any."""
    calls = [binding.value] if binding.value is not None else []
    annotation = binding.annotation
    if isinstance(annotation, Subscript) and linker.external_name(module, annotation.value) in ANNOTATED:
        calls.extend(annotation.items[1:])
    fields = [
        call for call in calls if isinstance(call, Call) and linker.external_name(module, call.func) in FIELD_FUNCTIONS
    ]
    if binding.value is not None and binding.value not in fields:
        return False, None  # a plain default
    alias = None
    required = True
    for call in fields:
        for key in ("validation_alias", "alias"):
            value = call.keyword(key)
            if isinstance(value, Const) and isinstance(value.value, str) and alias is None:
                alias = value.value
        default = call.args[0] if call.args else call.keyword("default")
        if call.has_star or call.keyword("default_factory") is not None:
            required = False
        elif default is not None and not (isinstance(default, Const) and default.value is Ellipsis):
            required = False
    return required, alias


def _variables(linker: Linker, cls: ClassSym, fields: list[tuple[str, str | None]]) -> list[str]:
    """The environment variables ``fields`` (names and aliases) are read from: the alias, or the
    prefix and the name, upper case unless the settings are case-sensitive; "the variable of"
    each field when the configuration is not literal."""
    config = _config(linker, cls)
    prefix = config.get("env_prefix", "") if config is not None else None
    sensitive = config.get("case_sensitive", False) if config is not None else None
    if not isinstance(prefix, str) or not isinstance(sensitive, bool):
        return [f"the variable of {name}" for name, _ in fields]
    names = [alias or prefix + name for name, alias in fields]
    return names if sensitive else [name.upper() for name in names]


def _config(linker: Linker, cls: ClassSym) -> dict[str, object] | None:
    """``env_prefix`` and ``case_sensitive`` as the configuration sets them, merged along the MRO as
    pydantic merges it (``model_config = SettingsConfigDict(...)`` or a dict, or a ``class Config:``),
    or ``None`` when a configuration that may set them is not literal."""
    settings: dict[str, object] = {}
    for item in reversed(linker.mro(cls)):
        if not isinstance(item, ClassSym):
            continue
        pairs = _config_pairs(item)
        if pairs is None:
            return None
        for key, value in pairs:
            if key in ("env_prefix", "case_sensitive"):
                if not isinstance(value, Const):
                    return None
                settings[key] = value.value
    return settings


def _config_pairs(cls: ClassSym) -> list[tuple[str, Expr | None]] | None:
    """The keys and values the class's own configuration gives; ``None`` when it is not literal."""
    pairs: list[tuple[str, Expr | None]] = []
    nested = cls.info.nested_class("Config")
    if nested is not None:
        pairs.extend((binding.name, binding.value) for binding in nested.attributes)
    binding = cls.info.attribute("model_config")
    value = binding.value if binding is not None else None
    if binding is None:
        return pairs
    if isinstance(value, Call) and not value.args and not value.has_star:
        pairs.extend(value.kwargs)
    elif isinstance(value, Container) and value.kind == "dict" and not value.has_star:
        for written, item in zip(value.keys, value.items, strict=True):
            if not (isinstance(written, Const) and isinstance(written.value, str)):
                return None
            pairs.append((written.value, item))
    else:
        return None
    return pairs
