"""Which JSON arguments may go straight into pydantic's JSON mode, and which take the long way.

pydantic's JSON reader and skillc's (``arguments.decode_json``) disagree at the edges of
JSON: pydantic reads ``NaN``, ``Infinity`` and ``1e999`` (a float too large to be finite)
where a float is expected, and integers of any length; skillc refuses them all, as JSON
cannot spell the first three and Python cannot print the last.  So a call whose text may
hold one of them is read the long way, which refuses it with the message that says why.

``suspect`` tells such text cheaply (it runs on every call).  ``takes_floats`` tells,
once per tool, whether its input model could take a float at all: a model of strings,
integers, booleans and containers of them refuses ``NaN`` and ``1e999`` by itself, so
for it only the long-integer test remains.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from pydantic import BaseModel

__all__ = ["suspect", "takes_floats"]

#: A number too large to be finite (``1e999``) in JSON text.
_HUGE_EXPONENT: Final = re.compile(r"[eE][+-]?[0-9]{3}")
#: Hundreds of digits in a row: a number too large to be finite, or an integer too long to print.
_MANY_DIGITS: Final = re.compile(r"[0-9]{300}")

#: Core schema types that take no float from JSON and hold no other schema.
_LEAVES: Final = frozenset(
    {"str", "int", "bool", "none", "date", "datetime", "time", "uuid", "url", "multi-host-url", "bytes"}
)
#: Core schema types whose value is validated by the schema under ``"schema"`` alone.
_WRAPPERS: Final = frozenset(
    {"model", "default", "nullable", "function-after", "model-field", "typed-dict-field", "dataclass-field"}
)


def suspect(text: str, floats: bool = True) -> bool:
    """Whether JSON text may hold what the two readers disagree on; ``floats=False`` for a model
    that takes no float (``takes_floats``): then only a run of hundreds of digits is suspect.

    Plain substring tests and two small patterns: one pattern of all four alternatives
    costs three times as much.  Text that merely looks suspect (``"NaN"`` inside a string)
    only takes the long way, which accepts it.
    """
    if floats and ("NaN" in text or "Infinity" in text or _HUGE_EXPONENT.search(text) is not None):
        return True
    return len(text) >= 300 and _MANY_DIGITS.search(text) is not None


def takes_floats(model: type[BaseModel]) -> bool:
    """Whether validating JSON into ``model`` could accept a float anywhere (so ``NaN`` or ``1e999``).

    Read from the model's core schema: ``False`` only when every part of it is a known
    type that takes no float from JSON (strings, integers, booleans, dates, literals and
    enums of those; lists, tuples, sets, dicts, nested models, typed dicts, dataclasses
    and unions of them).  Anything else (a float, ``Any``, a validator that sees the raw
    input, extra fields of any type, a schema it does not know) counts as ``True``.
    """
    try:
        schema = model.__pydantic_core_schema__
    except AttributeError:  # not built (a model that is not complete): say yes, the safe answer
        return True
    return _Walk().takes_floats(schema)


class _Walk:
    """One walk of a core schema; ``definition-ref`` nodes are followed once each."""

    def __init__(self) -> None:
        self.definitions: dict[str, Any] = {}
        self.seen: set[str] = set()

    def takes_floats(self, node: Any) -> bool:
        if not isinstance(node, Mapping):
            return True
        kind = node.get("type")
        config = node.get("config")
        if isinstance(config, Mapping) and config.get("extra_fields_behavior") == "allow":
            return True  # extra fields, of any type
        if kind in _LEAVES:
            return False
        if kind in _WRAPPERS:
            return self.takes_floats(node.get("schema"))
        if kind == "literal":
            return not all(isinstance(value, str | int | bool) or value is None for value in node.get("expected", ()))
        if kind == "enum":
            return node.get("sub_type") not in ("str", "int")
        if kind in ("list", "set", "frozenset"):
            return self.takes_floats(node.get("items_schema"))
        if kind == "tuple":
            return any(self.takes_floats(item) for item in node.get("items_schema", [None]))
        if kind == "dict":
            return self.takes_floats(node.get("keys_schema")) or self.takes_floats(node.get("values_schema"))
        if kind in ("model-fields", "typed-dict", "dataclass-args"):
            return self._fields(node)
        if kind == "dataclass":
            return self.takes_floats(node.get("schema"))
        if kind == "union":
            return any(
                self.takes_floats(choice[0] if isinstance(choice, tuple) else choice) for choice in node["choices"]
            )
        if kind == "tagged-union":
            return any(self.takes_floats(choice) for choice in node["choices"].values())
        if kind == "definitions":
            for definition in node.get("definitions", ()):
                self.definitions[definition.get("ref")] = definition
            return self.takes_floats(node.get("schema"))
        if kind == "definition-ref":
            ref = str(node.get("schema_ref"))
            if ref in self.seen:
                return False  # being walked already, further up: its answer comes from there
            self.seen.add(ref)
            return self.takes_floats(self.definitions.get(ref))
        return True

    def _fields(self, node: Mapping[str, Any]) -> bool:
        if node.get("extra_behavior") == "allow" or node.get("extras_schema") is not None:
            return True  # extra fields: of any type, or of one not looked at here
        fields = node.get("fields", {})
        items = fields.values() if isinstance(fields, Mapping) else fields
        return any(self.takes_floats(field) for field in items)
