"""A model's configuration as pydantic merges it, and the docstrings under its fields.

``model_config`` (``ConfigDict(...)``, a dict literal, a constant bound to one) and class
keywords are read for the keys that shape the schema (``extra``, ``title``,
``json_schema_extra``, ``use_attribute_docstrings``) and those known to leave it alone;
any other key leaves the subset.  Bases' configurations are merged first, as pydantic does.
"""

from __future__ import annotations

from .evaluate import Evaluator, Unsupported, describe
from .index_types import Call, Const, Container, Expr, Ref
from .resolve import Linker
from .schema_classes import ClassReader
from .schema_docs import attribute_docstrings
from .schema_json import plain_json, to_json
from .symbols import ClassSym, ExternalSym, ValueSym
from .types import Pos

__all__ = ["ConfigReader"]

_MAX_DEPTH = 64

_CONFIG_DICT = frozenset({"pydantic.ConfigDict", "pydantic.config.ConfigDict", "builtins.dict"})
# model_config keys that do not change the validation schema (checked against pydantic).
_CONFIG_HARMLESS = frozenset(
    {
        "frozen",
        "str_strip_whitespace",
        "str_to_lower",
        "str_to_upper",
        "validate_assignment",
        "validate_default",
        "use_enum_values",
        "populate_by_name",
        "validate_by_name",
        "strict",
        "arbitrary_types_allowed",
        "from_attributes",
        "revalidate_instances",
        "protected_namespaces",
    }
)
_CONFIG_KEYS = _CONFIG_HARMLESS | {"extra", "title", "json_schema_extra", "use_attribute_docstrings"}


class ConfigReader(ClassReader):
    """Reads ``model_config`` and attribute docstrings; findings go to ``report``."""

    def __init__(self, linker: Linker, values: Evaluator) -> None:
        super().__init__(linker, values)
        self._configs: dict[tuple[str, str], dict[str, object]] = {}
        self._attribute_docs: dict[tuple[str, str], dict[str, str]] = {}

    def report(self, module: str, pos: Pos, message: str) -> None:
        raise NotImplementedError

    def report_unsupported(self, error: Unsupported) -> None:
        raise NotImplementedError

    def project_bases(self, cls: ClassSym) -> list[ClassSym]:
        bases = []
        for base in cls.info.bases:
            symbol = self.linker.resolve_base(cls, base)
            if isinstance(symbol, ClassSym):
                bases.append(symbol)
        return bases

    def config(self, cls: ClassSym) -> dict[str, object]:
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
            except Unsupported as error:
                self.report_unsupported(error)
        for name, value in cls.info.keywords:
            try:
                merged[name] = self.config_value(cls.module, name, value)
            except Unsupported as error:
                self.report_unsupported(error)
        self._configs[key] = merged
        return merged

    def config_items(self, module: str, expr: Expr, depth: int = 0) -> dict[str, object]:
        if depth > _MAX_DEPTH:
            raise Unsupported(module, expr.pos, "model_config refers to itself")
        if isinstance(expr, Ref):
            symbol = self.linker.resolve_expr(module, expr)
            if isinstance(symbol, ValueSym) and symbol.binding.value is not None:
                return self.config_items(symbol.module, symbol.binding.value, depth + 1)
        if isinstance(expr, Call) and not expr.args and not expr.has_star:
            symbol = self.linker.resolve_expr(module, expr.func)
            if isinstance(symbol, ExternalSym) and symbol.qualname in _CONFIG_DICT:
                return {name: self.config_value(module, name, value) for name, value in expr.kwargs}
        if isinstance(expr, Container) and expr.kind == "dict" and not expr.has_star:
            items: dict[str, object] = {}
            for key, value in zip(expr.keys, expr.items, strict=True):
                if not isinstance(key, Const) or not isinstance(key.value, str):
                    raise Unsupported(module, value.pos, "model_config keys must be literal strings")
                items[key.value] = self.config_value(module, key.value, value)
            return items
        raise Unsupported(module, expr.pos, f"model_config = {describe(expr)} is not a literal ConfigDict(...) or dict")

    def config_value(self, module: str, name: str, expr: Expr) -> object:
        if name not in _CONFIG_KEYS:
            raise Unsupported(module, expr.pos, f"config key {name!r} is outside the static subset")
        value = self.values.value(module, expr)
        valid = {
            "extra": value in ("allow", "forbid", "ignore"),
            "title": isinstance(value, str),
            "json_schema_extra": isinstance(value, dict) and plain_json(value),
            "use_attribute_docstrings": isinstance(value, bool),
        }.get(name, True)
        if not valid:
            raise Unsupported(module, expr.pos, f"config {name}={describe(expr)} is not a value skillc can read")
        return to_json(value, module, expr) if name == "json_schema_extra" else value

    def attribute_doc(self, cls: ClassSym, name: str) -> str | None:
        """The docstring under field ``name`` of ``cls``, with ``use_attribute_docstrings``."""
        if self.config(cls).get("use_attribute_docstrings") is not True:
            return None
        return self.source_docs(cls).get(name)

    def source_docs(self, cls: ClassSym) -> dict[str, str]:
        """The docstrings written under the fields of ``cls``, read from its source."""
        docs = self._attribute_docs.get(cls.key)
        if docs is None:
            path = self.linker.config.root / self.linker.path_of(cls.module)
            try:
                found = attribute_docstrings(path.read_bytes(), cls.info.name, cls.info.pos.line)
            except OSError:
                found = None
            if found is None:
                self.report(cls.module, cls.info.pos, f"the attribute docstrings of {cls.info.name} cannot be read")
            docs = self._attribute_docs[cls.key] = found or {}
        return docs
