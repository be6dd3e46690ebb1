"""pydantic's ``$defs``: definition names, references, garbage collection, renaming, key order.

Pure functions on JSON, each retracing a step of pydantic's ``GenerateJsonSchema``:
definitions are built under long names (``module__Qualname-Input__1``), then the top
``$ref`` is unpacked, unused definitions dropped, names shortened by pydantic's own
collision rules (``Item`` when one schema goes by that name, ``pkg__a__Item`` when two
do), and keys sorted the way pydantic sorts them (everything but ``properties`` and
``default``).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

from .schema_json import JsonDict, deduplicate
from .types import Pos

__all__ = [
    "AnnotatedRef",
    "RefSibling",
    "assemble",
    "check_references",
    "def_name",
    "json_ref",
    "name_choices",
    "normalize",
]


@dataclass(frozen=True)
class RefSibling:
    """A field schema that is a ``$ref`` with other keys beside it, and where it is written."""

    schema: JsonDict
    ref: str
    #: The long name of the definition that holds the field.
    owner: str
    module: str
    pos: Pos
    name: str


@dataclass(frozen=True)
class AnnotatedRef:
    """``Field`` metadata put on a ``$ref`` inside ``Annotated``, and where it is written."""

    ref: str
    module: str
    pos: Pos


def normalize(name: str) -> str:
    """``GenerateJsonSchema.normalize_name``."""
    return re.sub(r"[^a-zA-Z0-9.\-_]", "_", name).replace(".", "__")


def name_choices(module: str, qualname: str) -> list[str]:
    """pydantic's names for the definition of ``module.qualname``, best first; the last is
    its long name (``DefsRef``), the one it is built under."""
    dotted = f"{module}.{qualname}"
    short = normalize(qualname.rsplit(".", 1)[-1])
    long = normalize(dotted)
    return [short, f"{short}-Input", long, f"{long}-Input", f"{long}__1", f"{long}-Input__1"]


def json_ref(defs_name: str) -> str:
    return f"#/$defs/{defs_name}"


def def_name(ref: str) -> str:
    return ref.removeprefix("#/$defs/")


def assemble(top: str, definitions: dict[str, JsonDict], choices: dict[str, list[str]]) -> JsonDict:
    """pydantic's ``generate`` once every definition is built: unpack the top reference,
    collect garbage, rename, sort.  ``definitions`` is not modified."""
    definitions = deepcopy(definitions)
    json_to_defs = {json_ref(name): name for name in definitions}
    schema: JsonDict = {"$ref": top}
    if _ref_counts(schema, definitions, json_to_defs)[top] == 1:
        schema = definitions[json_to_defs[top]].copy()  # not recursive: the model itself
    definitions = _collect_garbage(schema, definitions, json_to_defs)
    remapping = _remapping(choices, definitions)
    if definitions:
        schema["$defs"] = definitions
    return sort_schema(remapping.remap(schema))


def check_references(
    definitions: dict[str, JsonDict], annotated: list[AnnotatedRef], siblings: list[RefSibling], top: str
) -> list[tuple[str, Pos, str]]:
    """Reproduce, or refuse, what pydantic does depending on how definitions are shared.

    pydantic keeps a definition used once and in no cycle inline, where it is used, and
    builds the others (shared or recursive) first, in an order of its own, then the top
    model.  Two of its behaviours depend on that:

    - ``handle_ref_overrides`` drops a key beside a field's ``$ref`` that equals the
      definition's own, but only if that definition was complete at that moment;
    - ``Field`` metadata in ``Annotated`` on a recursive model is written into that
      model's own cached schema (a pydantic bug), changing it for every user.

    The keys pydantic drops are deleted from the field schemas (in ``definitions``);
    what depends on pydantic's order is returned, as (module, position, message).
    """
    graph = RefGraph(definitions)
    problems: list[tuple[str, Pos, str]] = []
    for item in annotated:
        if item.ref in graph.cyclic:
            problems.append(
                (
                    item.module,
                    item.pos,
                    "Field(...) metadata on a recursive model inside a type: pydantic writes it into "
                    "the model's own schema",
                )
            )
    for sibling in siblings:
        schema, ref = sibling.schema, sibling.ref
        target = graph.schemas.get(ref, {})
        same = [key for key, value in schema.items() if key != "$ref" and key in target and target[key] == value]
        if not same:
            continue
        built_in = graph.built_in(json_ref(sibling.owner), json_ref(top))
        if ref in graph.shared and built_in not in ("", ref):
            problems.append(
                (
                    sibling.module,
                    sibling.pos,
                    f"field {sibling.name!r} repeats {same[0]!r} of a model that is used more than once or "
                    "recursively; whether pydantic keeps it depends on the order it builds definitions",
                )
            )
        elif ref not in graph.shared or built_in == "":
            for key in same:
                del schema[key]
    return problems


def _all_refs(item: object) -> set[str]:
    """``_get_all_json_refs``: every ``$ref`` outside ``examples``."""
    refs: set[str] = set()
    stack = [item]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            for key, value in current.items():
                if key == "examples" and isinstance(value, list):
                    continue
                if key == "$ref" and isinstance(value, str):
                    refs.add(value)
                elif isinstance(value, dict):
                    stack.append(value)
                elif isinstance(value, list):
                    stack.extend(value)
        elif isinstance(current, list):
            stack.extend(current)
    return refs


def _ref_counts(schema: JsonDict, definitions: dict[str, JsonDict], json_to_defs: dict[str, str]) -> Counter[str]:
    """``get_json_ref_counts``."""
    counts: Counter[str] = Counter()

    def add(item: object) -> None:
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str):
                visited = ref in counts
                counts[ref] += 1
                if visited:
                    return
                add(definitions.get(json_to_defs.get(ref, ""), {}))
            for key, value in item.items():
                if not (key == "examples" and isinstance(value, list)):
                    add(value)
        elif isinstance(item, list):
            for value in item:
                add(value)

    add(schema)
    return counts


class RefGraph:
    """Which definitions use which, as pydantic's core schema sees them."""

    def __init__(self, definitions: dict[str, JsonDict]) -> None:
        self.schemas = {json_ref(name): schema for name, schema in definitions.items()}
        self.edges = {ref: _all_ref_uses(schema) for ref, schema in self.schemas.items()}
        uses = Counter(target for targets in self.edges.values() for target in targets)
        self.cyclic = {ref for ref in self.schemas if self.reaches(ref, ref)}
        #: Kept by pydantic as core definitions: used twice or more, or in a cycle.
        self.shared = {ref for ref, count in uses.items() if count > 1} | self.cyclic
        self.user = {target: owner for owner, targets in self.edges.items() for target in targets}

    def reaches(self, start: str, goal: str) -> bool:
        seen: set[str] = set()
        pending = list(self.edges.get(start, ()))
        while pending:
            current = pending.pop()
            if current == goal:
                return True
            if current not in seen:
                seen.add(current)
                pending.extend(self.edges.get(current, ()))
        return False

    def built_in(self, ref: str, top: str) -> str:
        """The core definition whose schema holds ``ref``'s inline, or "" for the top's."""
        while ref not in self.shared:
            if ref == top or ref not in self.user:
                return ""
            ref = self.user[ref]
        return ref


def _all_ref_uses(item: object) -> list[str]:
    """Every ``$ref`` in a schema, once per use."""
    if isinstance(item, dict):
        found = [item["$ref"]] if isinstance(item.get("$ref"), str) else []
        return found + [ref for value in item.values() for ref in _all_ref_uses(value)]
    if isinstance(item, list):
        return [ref for value in item for ref in _all_ref_uses(value)]
    return []


def _collect_garbage(
    schema: JsonDict, definitions: dict[str, JsonDict], json_to_defs: dict[str, str]
) -> dict[str, JsonDict]:
    """``_garbage_collect_definitions``: keep the definitions ``schema`` reaches."""
    visited: set[str] = set()
    pending = _all_refs(schema)
    while pending:
        name = json_to_defs[pending.pop()]
        if name not in visited:
            visited.add(name)
            pending.update(_all_refs(definitions[name]))
    return {name: value for name, value in definitions.items() if name in visited}


@dataclass
class _Remapping:
    """``_DefinitionsRemapping``: long definition names to pydantic's shortest unique ones."""

    defs: dict[str, str]
    refs: dict[str, str]

    def remap(self, schema: Any) -> Any:
        if isinstance(schema, str):
            return self.refs.get(schema, schema)
        if isinstance(schema, list):
            return [self.remap(item) for item in schema]
        if isinstance(schema, dict):
            for key, value in schema.items():
                if key == "$ref" and isinstance(value, str):
                    schema["$ref"] = self.refs.get(value, value)
                elif key == "$defs":
                    schema["$defs"] = {self.defs.get(name, name): self.remap(item) for name, item in value.items()}
                else:
                    schema[key] = self.remap(value)
        return schema


def _remapping(choices: dict[str, list[str]], definitions: dict[str, JsonDict]) -> _Remapping:
    """``from_prioritized_choices``: simplify names until nothing changes any more."""
    defsto_json = {name: json_ref(name) for options in choices.values() for name in options}
    copied = deepcopy(definitions)
    document: JsonDict = {"$defs": copied}
    for _ in range(100):
        schemas: dict[str, list[JsonDict]] = defaultdict(list)
        for name in copied:
            for option in choices[name]:
                schemas[option].append(copied[name])
        for option in schemas:
            if len(schemas[option]) > 1:
                schemas[option] = deduplicate(schemas[option])
        defs: dict[str, str] = {}
        refs: dict[str, str] = {}
        for name in definitions:
            options = choices[name]
            chosen = next(option for option in options if len(schemas[option]) == 1)
            defs[name] = chosen
            for option in options[options.index(chosen) :]:
                refs[defsto_json[option]] = defsto_json[chosen]
        remapping = _Remapping(defs, refs)
        renamed = remapping.remap({"$defs": deepcopy(copied)})
        if renamed == document:
            return remapping
        document = renamed
    return remapping  # pydantic raises here; 100 rounds are never needed for real schemas


def sort_schema(value: JsonDict, parent: str | None = None) -> JsonDict:
    """``GenerateJsonSchema.sort``: keys sorted except under ``properties`` and ``default``."""
    keys = value.keys() if parent in ("properties", "default") else sorted(value)
    return {key: _sort_value(value[key], key) for key in keys}


def _sort_value(value: object, parent: str | None) -> object:
    if isinstance(value, dict):
        return sort_schema(value, parent)
    if isinstance(value, list):
        return [_sort_value(item, parent) for item in value]
    return value
