"""Differential test: random models inside the subset, static schema versus pydantic's.

A hypothesis strategy writes a module of enums and pydantic models (nested, recursive,
inherited, with unions, Literal, collections, Field constraints, defaults, aliases,
docstrings and model_config), as a project; the compiler builds each model's schema from
the source and pydantic builds it from the imported module.  They must be equal, key
order included.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
from helpers import DEFAULT_PYPROJECT, write_project
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skillc.compiler.config import locate_config, read_config
from skillc.compiler.resolve import Linker
from skillc.compiler.schema import model_schema
from skillc.compiler.schema_versions import SORTS_SET_DEFAULTS
from skillc.compiler.source_tree import read_sources
from skillc.compiler.sources import index_sources

HEADER = """\
import dataclasses
import datetime
import decimal
import enum
import ipaddress
import pathlib
import uuid
from typing import Annotated, Any, Dict, FrozenSet, List, Literal, NamedTuple, Optional, Sequence, Set, Tuple, Union

import annotated_types
import pydantic
from pydantic import BaseModel, ConfigDict, Discriminator, Field, StringConstraints
from typing_extensions import NotRequired, Required, TypedDict
"""
#: Field names that shadow nothing on BaseModel.
NAMES = ["alpha", "beta_gamma", "delta", "eps_i_lon", "zeta", "eta9", "the_theta", "iota", "kappa_x", "lam"]
DOCSTRINGS = [
    '"""A model."""',
    '"""Two lines.\n\n    The second paragraph,\n        indented further.\n    """',
    "'''Quoted \"inside\".'''",
    '"""\n    Starts on the next line.\n    """',
]
PATTERNS = ["^[a-z]+$", r"\d+", "x"]
#: tests/test_pydantic_versions.py runs fewer examples under each older pydantic.
EXAMPLES = int(os.environ.get("SKILLC_DIFFERENTIAL_EXAMPLES", "300"))
_counter = itertools.count()


@dataclass(frozen=True)
class Kind:
    """A generated type: its source, literals it may default to, and what it constrains like."""

    source: str
    defaults: st.SearchStrategy[str] | None
    constrains: str = ""  # int, float, str, bytes, array, object or ""
    hashable: bool = False
    #: Whether its literals may sit inside other values (a set there is encoded in hash order).
    nestable: bool = True
    #: A recursive model: pydantic writes Field() metadata put on it inside a type into the
    #: model's own schema (a pydantic bug the compiler refuses), so none is generated.
    recursive: bool = False


def _text() -> st.SearchStrategy[str]:
    return st.text(alphabet="abcXYZ _-\u00e9", max_size=5)


SCALARS = [
    Kind("str", _text().map(repr), "str", True),
    Kind("int", st.integers(-1000, 10**20).map(repr), "int", True),
    Kind("float", st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(repr), "float", True),
    Kind("bool", st.sampled_from(["True", "False"]), "", True),
    Kind("bytes", st.text(alphabet="abc", max_size=3).map(lambda text: repr(text.encode())), "bytes", True),
    Kind("None", st.just("None")),
    Kind("datetime.datetime", st.just('"2024-01-02T03:04:05"')),
    Kind("datetime.date", st.just('"2024-01-02"')),
    Kind("datetime.time", st.just('"03:04"')),
    Kind("datetime.timedelta", st.just('"PT1H"')),
    Kind("uuid.UUID", st.just('"12345678-1234-5678-1234-567812345678"')),
    Kind("decimal.Decimal", st.integers(-5, 5).map(repr), "float"),
    Kind("Any", st.sampled_from(["None", "1", '"x"', "[1, 2]", '{"k": (1, None)}'])),
]
_URL = st.just('"https://example.com/a"')
#: Named types of pydantic and the standard library, and pydantic's constrained aliases.
NAMED = [
    Kind("pydantic.AnyUrl", _URL),
    Kind("pydantic.HttpUrl", _URL),
    Kind("pydantic.AnyHttpUrl", _URL),
    Kind("pydantic.PostgresDsn", st.just('"postgres://u@h/db"')),
    Kind("pydantic.SecretStr", None),
    Kind("pydantic.SecretBytes", None),
    Kind("pathlib.Path", st.just('"/tmp"')),
    Kind("pydantic.FilePath", None),
    Kind("pydantic.DirectoryPath", None),
    Kind("pydantic.NewPath", None),
    Kind("ipaddress.IPv4Address", st.just('"127.0.0.1"')),
    Kind("ipaddress.IPv6Network", st.just('"::/0"')),
    Kind("pydantic.IPvAnyAddress", st.just('"::1"')),
    Kind("pydantic.UUID4", None),
    Kind("pydantic.Base64Str", None),
    Kind("pydantic.AwareDatetime", None),
    Kind("pydantic.Json", None),
    Kind("pydantic.Json[list[int]]", None),
    Kind("pydantic.PositiveInt", st.integers(1, 9).map(repr), "int", True),
    Kind("pydantic.NonNegativeInt", st.integers(0, 9).map(repr), "int", True),
    Kind("pydantic.NegativeFloat", st.just("-1.5"), "float", True),
    Kind("pydantic.NonPositiveFloat", st.just("0.0"), "float", True),
    Kind("pydantic.FiniteFloat", st.just("1.0"), "float", True),
    Kind("pydantic.StrictStr", _text().map(repr), "str", True),
    Kind("pydantic.StrictBool", st.just("True")),
    Kind("pydantic.ByteSize", st.just("1024")),
    Kind("pydantic.types.PaymentCardNumber", None),
    Kind("pydantic.ImportString", st.just('"math"')),
    Kind("pydantic.Secret[int]", st.integers(0, 9).map(repr)),
    Kind("pydantic.Secret[datetime.date]", None),
]


@dataclass
class Module:
    """What has been declared so far in the generated module."""

    enums: list[tuple[str, list[str]]] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    recursive: set[str] = field(default_factory=set)
    lines: list[str] = field(default_factory=list)
    #: Models with a ``kind: Literal[...]`` field, for discriminated unions.
    tagged: list[str] = field(default_factory=list)
    #: TypedDicts, NamedTuples and dataclasses.
    classes: list[str] = field(default_factory=list)
    #: Dataclasses by name: their flavour and decorator options (a base must match both).
    dataclasses: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: The fields of each dataclass, inherited ones included (a subclass adds only new ones).
    dataclass_fields: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _one_of(*options: st.SearchStrategy[str] | None) -> st.SearchStrategy[str] | None:
    present = [option for option in options if option is not None]
    return st.one_of(present) if present else None


def _list_default(item: Kind, empty: str, wrap: Callable[[str], str], most: int = 2) -> st.SearchStrategy[str]:
    if item.defaults is None or not item.nestable:
        return st.just(empty)
    filled = st.lists(item.defaults, min_size=1, max_size=most).map(lambda items: wrap(", ".join(items)))
    return st.one_of(st.just(empty), filled)


@st.composite
def kinds(draw: st.DrawFn, module: Module, depth: int = 0, self_name: str | None = None) -> Kind:
    """A type expression the subset covers, built from what ``module`` declares."""
    choices = ["scalar", "scalar", "literal", "named", "con"]
    if len(module.tagged) >= 2:
        choices.append("tagged")
    if module.classes:
        choices.append("class")
    if module.enums:
        choices.append("enum")
    if module.models:
        choices.append("model")
    if self_name is not None and depth == 0:
        choices.append("self")
    if depth < 2:
        choices += ["optional", "union", "list", "set", "tuple", "fixed", "dict", "annotated"]
    choice = draw(st.sampled_from(choices))
    if choice == "scalar":
        return draw(st.sampled_from(SCALARS))
    if choice == "named":
        return draw(st.sampled_from(NAMED))
    if choice == "con":
        return draw(con_kinds(module, depth))
    if choice == "tagged":
        # typing caches Union[A, B] under a key equal to Union[B, A]: one order per set (see literal).
        members = sorted(draw(st.lists(st.sampled_from(module.tagged), min_size=2, max_size=3, unique=True)))
        union = f"Union[{', '.join(members)}]"
        tagged = ", ".join(f'Annotated[{member}, pydantic.Tag("{member.lower()}")]' for member in members)
        spelled = draw(
            st.sampled_from(
                [
                    f'Annotated[{union}, Field(discriminator="kind")]',
                    f'Annotated[{union}, Discriminator("kind")]',
                    f'Annotated[Union[{tagged}], Discriminator(lambda value: "{members[0].lower()}")]',
                ]
            )
        )
        return Kind(spelled, None)
    if choice == "class":
        return Kind(draw(st.sampled_from(module.classes)), None)
    if choice == "literal":
        values = draw(
            st.lists(st.one_of(st.integers(-3, 3), _text(), st.booleans(), st.none()), min_size=1, max_size=3)
        )
        # typing caches Optional[Literal[1, 2]] under a key equal to Optional[Literal[2, 1]], so
        # the first spelling made in a process wins for both; one order per set avoids that.
        rendered = sorted({repr(value) for value in values})
        return Kind(f"Literal[{', '.join(rendered)}]", st.sampled_from(rendered))
    if choice == "enum":
        name, members = draw(st.sampled_from(module.enums))
        return Kind(name, st.sampled_from([f"{name}.{member}" for member in members]), hashable=True)
    if choice == "model":
        name = draw(st.sampled_from(module.models))
        return Kind(name, st.just("{}") if draw(st.booleans()) else None, recursive=name in module.recursive)
    if choice == "self":
        assert self_name is not None
        module.recursive.add(self_name)
        spelled = draw(
            st.sampled_from([f'Optional["{self_name}"]', f'list["{self_name}"]', f'"Optional[{self_name}]"'])
        )
        return Kind(spelled, st.just("[]" if spelled.startswith("list") else "None"))
    inner = draw(kinds(module, depth + 1))
    if choice == "optional":
        spelled = draw(
            st.sampled_from([f"Optional[{inner.source}]", f"{inner.source} | None", f"Union[None, {inner.source}]"])
        )
        if inner.source.startswith(("Literal", "Annotated")) and "|" in spelled:
            spelled = f"Optional[{inner.source}]"
        if '"' in inner.source or inner.source == "None":  # `"M0" | None` fails at runtime
            spelled = f"Optional[{inner.source}]"
        return Kind(spelled, _one_of(st.just("None"), inner.defaults), inner.constrains, nestable=inner.nestable)
    if choice == "union":
        other = draw(kinds(module, depth + 1))
        defaults = _one_of(inner.defaults, other.defaults)
        return Kind(f"Union[{inner.source}, {other.source}]", defaults, nestable=inner.nestable and other.nestable)
    if choice == "list":
        spelled = draw(st.sampled_from(["list[{}]", "List[{}]", "Sequence[{}]"])).format(inner.source)
        return Kind(spelled, _list_default(inner, "[]", lambda items: f"[{items}]"), "array", nestable=inner.nestable)
    if choice == "set":
        item = inner if inner.hashable and inner.source in ("int", "str", "bool") else SCALARS[1]
        spelled = draw(st.sampled_from(["set[{}]", "Set[{}]", "frozenset[{}]", "FrozenSet[{}]"])).format(item.source)
        # Before 2.13 pydantic writes a set default in hash order (refused): one item at most.
        most = 2 if SORTS_SET_DEFAULTS else 1
        defaults = _list_default(item, "set()", lambda items: f"{{{items}}}", most)
        return Kind(spelled, defaults, "array", nestable=False)
    if choice == "tuple":
        spelled = draw(st.sampled_from(["tuple[{}, ...]", "Tuple[{}, ...]"])).format(inner.source)
        return Kind(spelled, _list_default(inner, "()", lambda items: f"({items},)"), "array", nestable=inner.nestable)
    if choice == "fixed":
        other = draw(kinds(module, depth + 1))
        defaults = None
        if inner.defaults is not None and other.defaults is not None and inner.nestable and other.nestable:
            defaults = st.tuples(inner.defaults, other.defaults).map(lambda pair: f"({pair[0]}, {pair[1]})")
        return Kind(f"tuple[{inner.source}, {other.source}]", defaults, "array")
    if choice == "dict":
        key = draw(
            st.sampled_from(
                [
                    "str",
                    "str",
                    "int",
                    'Literal["a", "b"]',
                    'pydantic.constr(pattern="^k")',
                    "Annotated[str, annotated_types.MinLen(1)]",
                    *(name for name, _ in module.enums),
                ]
            )
        )
        spelled = draw(st.sampled_from(["dict[{}, {}]", "Dict[{}, {}]"])).format(key, inner.source)
        defaults = st.just("{}")
        if inner.defaults is not None and inner.nestable:
            defaults = st.one_of(defaults, inner.defaults.map(lambda value: f'{{"k": {value}}}'))
        return Kind(spelled, defaults, "object")
    if inner.recursive or inner.source.startswith(("ipaddress.", "pydantic.IPvAny")):
        return inner  # Field() metadata inside a type: refused on IP addresses (pydantic drops it)
    metadata = draw(field_arguments(inner, nested=True))
    extra = draw(annotated_metadata(inner))
    spelled = f"Annotated[{', '.join([inner.source, *extra, f'Field({metadata})'])}]"
    return Kind(spelled, inner.defaults, inner.constrains, nestable=inner.nestable)


@st.composite
def annotated_metadata(draw: st.DrawFn, kind: Kind) -> list[str]:
    """annotated_types constraints and StringConstraints pydantic applies to ``kind``."""
    found: list[str] = []
    if kind.constrains == "int":
        for name in draw(st.lists(st.sampled_from(["Gt", "Ge", "Lt", "Le", "MultipleOf"]), unique=True, max_size=2)):
            found.append(f"annotated_types.{name}({draw(st.integers(1, 20))})")
        if draw(st.booleans()):
            found.append(f"annotated_types.Interval(ge={draw(st.integers(-5, 0))}, lt={draw(st.integers(1, 5))})")
    elif kind.constrains == "float":
        if draw(st.booleans()):
            found.append(f"annotated_types.Gt({draw(st.sampled_from(['0', '0.5']))})")
    elif kind.constrains in ("str", "bytes", "array"):
        length = draw(st.sampled_from(["MinLen({})", "MaxLen({})", "Len({}, 9)", "Len({})"]))
        found.append("annotated_types." + length.format(draw(st.integers(0, 3))))
        if kind.constrains == "str" and draw(st.booleans()):
            found.append(
                f"StringConstraints(min_length={draw(st.integers(0, 3))}, to_lower=True, pattern={draw(st.sampled_from(PATTERNS))!r})"
            )
    return found


@st.composite
def con_kinds(draw: st.DrawFn, module: Module, depth: int) -> Kind:
    """pydantic's con* functions, with random constraints."""
    function = draw(
        st.sampled_from(["conint", "confloat", "constr", "conbytes", "condecimal", "conlist", "conset", "condate"])
    )
    arguments: list[str] = []
    if function == "condate":  # bounds check values and never show in the schema
        for name in draw(st.lists(st.sampled_from(["gt", "ge", "lt", "le"]), unique=True, max_size=2)):
            arguments.append(f"{name}=datetime.date(20{draw(st.integers(10, 40))}, 1, 2)")
        return Kind(f"pydantic.condate({', '.join(arguments)})", st.just('"2024-01-02"'))
    if function in ("conint", "confloat", "condecimal"):
        for name in draw(st.lists(st.sampled_from(["gt", "ge", "lt", "le", "multiple_of"]), unique=True, max_size=2)):
            arguments.append(f"{name}={draw(st.integers(1, 9))}")
        if draw(st.booleans()):
            arguments.append("strict=True")
        defaults = st.integers(1, 9).map(repr)
        constrains = "int" if function == "conint" else "float"
    else:
        for name in draw(st.lists(st.sampled_from(["min_length", "max_length"]), unique=True, max_size=2)):
            arguments.append(f"{name}={draw(st.integers(0, 4))}")
        if function == "constr" and draw(st.booleans()):
            arguments.append(f"pattern={draw(st.sampled_from(PATTERNS))!r}")
        defaults = {
            "constr": _text().map(repr),
            "conbytes": st.just("b'ab'"),
            "conlist": st.just("[]"),
            "conset": st.just("set()"),
        }[function]
        constrains = {"constr": "str", "conbytes": "bytes"}.get(function, "array")
    if function in ("conlist", "conset"):
        item = SCALARS[1] if function == "conset" or depth >= 2 else draw(kinds(module, depth + 1))
        arguments.insert(0, item.source)
    arguments = (
        [arguments[0], *draw(st.permutations(arguments[1:]))]
        if function in ("conlist", "conset")
        else draw(st.permutations(arguments))
    )
    return Kind(f"pydantic.{function}({', '.join(arguments)})", defaults, constrains, nestable=function != "conset")


@st.composite
def constraints(draw: st.DrawFn, kind: Kind) -> list[str]:
    """Constraints that pydantic applies to ``kind`` (through Optional, as it does)."""
    found: list[str] = []
    if kind.constrains == "int":
        for name in draw(st.lists(st.sampled_from(["ge", "gt", "le", "lt", "multiple_of"]), unique=True, max_size=2)):
            found.append(f"{name}={draw(st.integers(1 if name == 'multiple_of' else -50, 50))}")
    elif kind.constrains == "float":
        for name in draw(st.lists(st.sampled_from(["ge", "gt", "le", "lt", "multiple_of"]), unique=True, max_size=2)):
            found.append(f"{name}={draw(st.sampled_from(['0.5', '2', '1.25', '10']))}")
    elif kind.constrains in ("str", "bytes", "array", "object"):
        for name in draw(st.lists(st.sampled_from(["min_length", "max_length"]), unique=True, max_size=2)):
            found.append(f"{name}={draw(st.integers(0, 5))}")
        if kind.constrains == "str" and draw(st.booleans()):
            found.append(f"pattern={draw(st.sampled_from(PATTERNS))!r}")
    return found


@st.composite
def field_arguments(draw: st.DrawFn, kind: Kind, nested: bool = False, name: str = "") -> str:
    """The keyword arguments of one Field(...)."""
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append(f"description={draw(_text())!r}")
    if draw(st.integers(0, 3)) == 0:
        parts.append(f"title={draw(_text())!r}")
    if not nested and draw(st.integers(0, 3)) == 0:
        parts.append(f"alias={name.upper() + 'Alias'!r}")
    if kind.defaults is not None and kind.nestable and draw(st.integers(0, 3)) == 0:
        parts.append(f"examples=[{draw(kind.defaults)}]")
    if draw(st.integers(0, 4)) == 0:
        parts.append(f"json_schema_extra={{'x-{draw(st.sampled_from(['a', 'b']))}': {draw(st.integers(0, 3))}}}")
    parts += draw(constraints(kind))
    return ", ".join(draw(st.permutations(parts)))


@st.composite
def model_field(draw: st.DrawFn, module: Module, name: str, owner: str) -> str:
    kind = draw(kinds(module, self_name=owner))
    default = draw(kind.defaults) if kind.defaults is not None and draw(st.booleans()) else None
    style = draw(st.sampled_from(["plain", "field", "annotated"]))
    if style == "plain":
        return f"    {name}: {kind.source}" + (f" = {default}" if default is not None else "")
    arguments = draw(field_arguments(kind, name=name))
    if style == "annotated" and '"' not in kind.source[:1]:
        assigned = f" = {default}" if default is not None else ""
        return f"    {name}: Annotated[{kind.source}, Field({arguments})]{assigned}"
    if default is None and kind.constrains == "array" and draw(st.booleans()):
        lists = ("default_factory=list", "default_factory=lambda: [1, 2]", "default_factory=list[int]")
        first = draw(st.sampled_from(lists)) if kind.source.startswith(("list", "List", "Sequence")) else "..."
    else:
        first = default if default is not None else "..."
    return f"    {name}: {kind.source} = Field({', '.join(item for item in (first, arguments) if item)})"


@st.composite
def enum_source(draw: st.DrawFn, module: Module) -> None:
    name = f"E{len(module.enums)}"
    flavour = draw(st.sampled_from(["str", "int", "IntEnum", "StrEnum", "plain", "auto-int", "auto-str", "auto"]))
    count = draw(st.integers(1, 3))
    if flavour == "auto-int":  # IntEnum, all values from enum.auto()
        values = ["enum.auto()"] * count
    elif flavour == "auto-str":  # StrEnum: the lowered name, or a value of its own
        values = [draw(st.sampled_from(["enum.auto()", repr(draw(_text()))])) for _ in range(count)]
    elif flavour == "auto":  # Enum: an integer, then one more for each auto()
        values = [repr(draw(st.integers(0, 5)))] + ["enum.auto()"] * (count - 1)
    elif flavour in ("int", "IntEnum"):
        values = [repr(value) for value in draw(st.lists(st.integers(-3, 9), min_size=count, max_size=count))]
    elif flavour == "plain":
        mixed = st.lists(st.one_of(st.integers(0, 3), _text()), min_size=count, max_size=count)
        values = [repr(value) for value in draw(mixed)]
    else:
        values = [repr(value) for value in draw(st.lists(_text(), min_size=count, max_size=count))]
    bases = {
        "str": "str, enum.Enum",
        "int": "int, enum.Enum",
        "IntEnum": "enum.IntEnum",
        "StrEnum": "enum.StrEnum",
        "plain": "enum.Enum",
        "auto-int": "enum.IntEnum",
        "auto-str": "enum.StrEnum",
        "auto": "enum.Enum",
    }[flavour]
    members = [f"M{index}" for index in range(count)]
    module.lines.append(f"class {name}({bases}):")
    if draw(st.booleans()):
        module.lines.append(f"    {draw(st.sampled_from(DOCSTRINGS))}")
    module.lines += [f"    {member} = {value}" for member, value in zip(members, values, strict=True)]
    module.lines.append("")
    module.enums.append((name, members))


@st.composite
def tagged_source(draw: st.DrawFn, module: Module) -> None:
    """A model with a ``kind`` Literal field of its own values, for discriminated unions."""
    name = f"T{len(module.tagged)}"
    tags = [
        repr(f"t{len(module.tagged)}{suffix}")
        for suffix in draw(st.lists(st.sampled_from("abc"), min_size=1, max_size=2, unique=True))
    ]
    default = f" = {tags[0]}" if draw(st.booleans()) else ""
    module.lines.append(f"class {name}(BaseModel):")
    module.lines.append(f"    kind: Literal[{', '.join(tags)}]{default}")
    if draw(st.booleans()):
        module.lines.append(f"    value: {draw(st.sampled_from(SCALARS)).source} = None")
    module.lines.append("")
    module.tagged.append(name)
    module.models.append(name)


@st.composite
def class_source(draw: st.DrawFn, module: Module) -> None:
    """A TypedDict, a NamedTuple or a dataclass of scalar fields."""
    flavour = draw(st.sampled_from(["typeddict", "namedtuple", "dataclass", "pydantic-dataclass"]))
    name = f"C{len(module.classes)}"
    fields = draw(st.lists(st.sampled_from(NAMES), unique=True, min_size=1, max_size=3))
    kinds_of = [draw(st.sampled_from(SCALARS[:5] + NAMED[:3])) for _ in fields]
    if flavour == "typeddict":
        total = draw(st.booleans())
        module.lines.append(f"class {name}(TypedDict{'' if total else ', total=False'}):")
        for field_name, kind in zip(fields, kinds_of, strict=True):
            wrapper = draw(st.sampled_from(["{}", "{}", "Required[{}]", "NotRequired[{}]"]))
            module.lines.append(f"    {field_name}: {wrapper.format(kind.source)}")
    else:
        base = ""
        if flavour == "namedtuple":
            module.lines.append(f"class {name}(NamedTuple):")
        else:
            decorator = "dataclasses.dataclass" if flavour == "dataclass" else "pydantic.dataclasses.dataclass"
            options = draw(st.sampled_from(["", "(frozen=True)", "(kw_only=True)", "(eq=False, kw_only=True)"]))
            if flavour == "pydantic-dataclass" and draw(st.booleans()):
                config = draw(st.sampled_from(['{"title": "Configured"}', 'ConfigDict(json_schema_extra={"x-c": 1})']))
                options = f"({options[1:-1]}{', ' if options else ''}config={config})"
            bases = [
                item
                for item, kind in module.dataclasses.items()
                if kind == (flavour, options) and len(module.dataclass_fields[item]) + len(fields) <= len(NAMES)
            ]
            inherited: tuple[str, ...] = ()
            if bases and draw(st.booleans()):
                chosen = draw(st.sampled_from(bases))
                base, inherited = f"({chosen})", module.dataclass_fields[chosen]
                # An inherited field given again keeps its place: a default there could come
                # before inherited fields without one, which Python refuses.  New names only.
                remaining = [item for item in NAMES if item not in inherited]
                fields = draw(
                    st.lists(st.sampled_from(remaining), unique=True, min_size=len(fields), max_size=len(fields))
                )
            module.lines += [f"@{decorator}{options}", f"class {name}{base}:"]
            module.dataclasses[name] = (flavour, options)
            module.dataclass_fields[name] = inherited + tuple(fields)
        if draw(st.booleans()):
            module.lines.append(f"    {draw(st.sampled_from(DOCSTRINGS))}")
        defaulted = bool(base)  # after inherited fields, which may have defaults, every field has one
        for field_name, kind in zip(fields, kinds_of, strict=True):
            defaulted = defaulted or (kind.defaults is not None and draw(st.booleans()))
            value = f" = {draw(kind.defaults)}" if defaulted and kind.defaults is not None else ""
            if defaulted and not value:  # a field without default cannot follow one with
                value = " = None"
            module.lines.append(f"    {field_name}: {kind.source}{value}")
    module.lines.append("")
    module.classes.append(name)


@st.composite
def config_source(draw: st.DrawFn, module: Module) -> str:
    items: dict[str, str] = {}
    # A TypedDict or a dataclass takes the extra= of the model around it: one per module.
    if draw(st.booleans()) and not module.classes:
        items["extra"] = repr(draw(st.sampled_from(["forbid", "allow", "ignore"])))
    if draw(st.integers(0, 2)) == 0:
        # Never a field's title: one equal to its model's beside a shared $ref is refused.
        items["title"] = repr("Title " + draw(_text()))
    if draw(st.integers(0, 3)) == 0:
        items["json_schema_extra"] = '{"examples": [{"a": 1}]}'
    if draw(st.integers(0, 3)) == 0:
        items["frozen"] = "True"
    if draw(st.integers(0, 2)) == 0:
        items["use_attribute_docstrings"] = "True"
    if draw(st.booleans()):
        return "ConfigDict(" + ", ".join(f"{key}={value}" for key, value in items.items()) + ")"
    return "{" + ", ".join(f"{key!r}: {value}" for key, value in items.items()) + "}"


@st.composite
def model_source(draw: st.DrawFn, module: Module) -> None:
    name = f"M{len(module.models)}"
    base = "BaseModel"
    if module.models and draw(st.integers(0, 3)) == 0:
        base = draw(st.sampled_from(module.models))
    module.lines.append(f"class {name}({base}):")
    body: list[str] = []
    if draw(st.booleans()):
        body.append(f"    {draw(st.sampled_from(DOCSTRINGS))}")
    if draw(st.integers(0, 2)) == 0:
        body.append(f"    model_config = {draw(config_source(module))}")
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=4))
    for field_name in names:
        body.append(draw(model_field(module, field_name, name)))
        if draw(st.integers(0, 2)) == 0:  # read with use_attribute_docstrings
            body.append(f"    {draw(st.sampled_from(DOCSTRINGS))}")
    module.lines += body or ["    pass"]
    module.lines.append("")
    module.models.append(name)


@st.composite
def modules(draw: st.DrawFn) -> Module:
    module = Module()
    if draw(st.booleans()):
        module.lines.append("from __future__ import annotations\n")
    module.lines.append(HEADER)
    for _ in range(draw(st.integers(0, 2))):
        draw(enum_source(module))
    for _ in range(draw(st.integers(0, 3))):
        draw(tagged_source(module))
    for _ in range(draw(st.integers(0, 2))):
        draw(class_source(module))
    for _ in range(draw(st.integers(1, 3))):
        draw(model_source(module))
    return module


def _import(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    imported = importlib.util.module_from_spec(spec)
    sys.modules[name] = imported  # pydantic resolves forward references through sys.modules
    spec.loader.exec_module(imported)
    return imported


@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(modules())
def test_static_schema_equals_pydantic_for_random_models(module: Module) -> None:
    name = f"generated_{next(_counter)}"
    source = "\n".join(module.lines) + "\n"
    with tempfile.TemporaryDirectory(prefix="skillc-differential-") as work:
        root = write_project(Path(work), {f"{name}.py": source}, DEFAULT_PYPROJECT.replace("agent.py", f"{name}.py"))
        config = read_config(locate_config(root))
        index = index_sources(config, read_sources(config), use_cache=False)
        linker = Linker(index.modules, config, index.failed)
        try:
            imported = _import(name, root / "src" / f"{name}.py")
            for model in module.models:
                result = model_schema(linker, name, model)
                expected = json.loads(json.dumps(getattr(imported, model).model_json_schema()))
                assert result.findings == (), (source, [finding.message for finding in result.findings])
                assert result.schema == expected, source
                assert json.dumps(result.schema) == json.dumps(expected), source
                jsonschema.Draft202012Validator.check_schema(result.schema)
        finally:
            sys.modules.pop(name, None)
