"""Which pydantic the static schemas are written for, and what its minor version changes.

A schema must equal what ``model_json_schema()`` returns where the tool runs, and that
is the pydantic installed beside the compiler (skillc depends on it; the bundles run with
the same environment).  pydantic's JSON differs between minor versions in a few places,
each a named flag here, read once from the installed version; the version itself is part
of the key of every cached schema (``artifacts``).  A leaf: no other compiler module, and
not pydantic either.
"""

from __future__ import annotations

import re
import sys
from importlib.machinery import PathFinder
from pathlib import Path

__all__ = [
    "DATACLASS_TAKES_EXTRA",
    "DECIMAL_PATTERN",
    "PYDANTIC",
    "PYDANTIC_VERSION",
    "SORTS_SET_DEFAULTS",
    "STDLIB_DATACLASS_DOCSTRING",
    "decimal_pattern",
]

#: ``VERSION = '2.14.4'`` in ``pydantic/version.py``.
_VERSION_LINE = re.compile(r"""^VERSION\s*=\s*['"]([^'"]+)['"]\s*$""", re.MULTILINE)


def _installed_version() -> str:
    """The version of the pydantic that ``import pydantic`` finds, as it spells it.

    Read from the literal in its ``version.py`` without importing pydantic (a compile
    that builds no schema by itself never needs it); where that literal is not to be
    found, pydantic itself is asked.
    """
    if "pydantic.version" not in sys.modules:
        spec = PathFinder.find_spec("pydantic")
        for folder in (spec.submodule_search_locations or []) if spec is not None else []:
            try:
                found = _VERSION_LINE.search((Path(folder) / "version.py").read_text(encoding="utf-8"))
            except OSError:
                continue
            if found:
                return found.group(1)
    from pydantic.version import VERSION

    return VERSION


#: The installed pydantic's version, as it spells it.
PYDANTIC_VERSION: str = _installed_version()


def _minor(version: str) -> tuple[int, int]:
    found = re.match(r"(\d+)\.(\d+)", version)
    return (int(found.group(1)), int(found.group(2))) if found else (2, 0)


#: ``(major, minor)`` of the installed pydantic.
PYDANTIC: tuple[int, int] = _minor(PYDANTIC_VERSION)

#: 2.12 and 2.13 give a ``Decimal``'s string form a ``pattern`` of the digits it may hold.
DECIMAL_PATTERN = (2, 12) <= PYDANTIC < (2, 14)
#: From 2.13 a set default is written sorted; before, in the set's hash order, which for
#: strings changes from one process to the next (so such a default has no static schema).
SORTS_SET_DEFAULTS = PYDANTIC >= (2, 13)
#: From 2.13 a stdlib dataclass's docstring is its definition's ``description``.
STDLIB_DATACLASS_DOCSTRING = PYDANTIC >= (2, 13)
#: From 2.14 a stdlib dataclass takes ``extra=`` from the model around it.
DATACLASS_TAKES_EXTRA = PYDANTIC >= (2, 14)


def decimal_pattern(max_digits: object, decimal_places: object) -> str:
    """``GenerateJsonSchema.decimal_schema``'s pattern (2.12, 2.13) for a Decimal's string form."""
    pattern = r"^(?!^[-+.]*$)[+-]?0*"
    if isinstance(max_digits, int) and isinstance(decimal_places, int):
        integer = max(0, max_digits - decimal_places)
        pattern += (
            rf"(?:\d{{0,{integer}}}|(?=[\d.]{{1,{max_digits + 1}}}0*$)\d{{0,{integer}}}\.\d{{0,{decimal_places}}}0*$)"
        )
    elif isinstance(max_digits, int):
        pattern += rf"(?:\d{{0,{max_digits}}}|(?=[\d.]{{1,{max_digits + 1}}}0*$)\d*\.\d*0*$)"
    elif isinstance(decimal_places, int):
        pattern += rf"\d*\.?\d{{0,{decimal_places}}}0*$"
    else:
        pattern += r"\d*\.?\d*$"
    return pattern
