"""Client-side tools (TanStack AI's ``toolDefinition(...).client()``): the result comes from the caller.

A client tool has no bundle, so no model code exists to validate with: its arguments and
its result are checked against the compiled JSON Schemas with ``jsonschema``.  Its call,
after the offer (``call.call_tool`` checks that first), is:

1. the arguments parse as a JSON object (``invalid_json``), lose the nulls strict mode
   made the model send for optional fields, and validate against ``input.schema.json``
   (``validation``: field paths and what they must be, never the values sent);
2. a ``needs_approval`` tool is approved as any tool is (``approval_denied``);
3. the caller's handler gives the result for the arguments with the schema's defaults filled in, ``handler(name, arguments)`` (sync or async),
   within the tool's timeout (``timeout``); a handler that raises fails the call
   (``execution``; ``ClientError`` with the message the model should read); without a
   handler the call fails too, saying the result must come from the client;
4. the result becomes JSON text as any result (``serialization``; a string as it is) and
   validates against ``output.schema.json`` where there is one (``output_validation``).
"""

from __future__ import annotations

import copy
import inspect
import typing
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from ..contracts.manifest import ToolEntry
from ..contracts.settings import NEEDS_APPROVAL, STRICT, TIMEOUT
from .arguments import parse_arguments, remove_strict_nulls
from .bundles import LoadError
from .ownjson import read_json
from .results import refuse
from .serialize import (
    MAX_LISTED,
    SerializationFailure,
    declared_location,
    describe_exception,
    format_location,
    resolve_schema,
    to_json_text,
    unexpected_keys,
)
from .workers import WorkerPool, invoke

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError as SchemaError
    from jsonschema.protocols import Validator

__all__ = [
    "ClientError",
    "ClientHandler",
    "ClientTool",
    "call_client",
    "client_tool",
    "schema_problems",
    "with_defaults",
]

#: Gives the result of a client-side tool's call: ``handler(name, arguments)``, sync or async.
ClientHandler: TypeAlias = Callable[[str, dict[str, Any]], Any]
#: The root of a result's paths in ``output_validation`` messages.
RESULT_ROOT: Final = "(result)"
_TYPES: Final = {
    "integer": "a valid integer",
    "number": "a valid number",
    "string": "a valid string",
    "boolean": "a valid boolean",
    "array": "a valid list",
    "object": "an object",
    "null": "null",
}


class ClientError(Exception):
    """Raised by a handler that has no result for a call: the call fails with this message, which the model reads."""


@dataclass(frozen=True)
class ClientTool:
    """A client-side tool of a loaded ``dist/``: its entry, and its schemas ready to validate with."""

    entry: ToolEntry
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None
    input_validator: Validator
    output_validator: Validator | None


def _validator(schema: object, relative: str) -> Validator:
    """A Draft 2020-12 validator (pydantic's dialect) of ``schema``; ``LoadError`` for no valid schema."""
    # Deferred: only a dist with client tools needs jsonschema, and it costs start-up.
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError as InvalidSchema

    if not isinstance(schema, dict):
        raise LoadError(f"{relative} holds no JSON object; recompile with `skill compile`")
    try:
        Draft202012Validator.check_schema(schema)
    except InvalidSchema as error:
        raise LoadError(
            f"{relative} is no valid JSON Schema ({error.message}); recompile with `skill compile`"
        ) from None
    return Draft202012Validator(schema)


def client_tool(entry: ToolEntry, read: Callable[[str], Any]) -> ClientTool:
    """``entry``'s schemas, read with ``read`` (a path of ``dist/`` -> its JSON) and checked; ``LoadError`` if bad."""
    input_schema = read(entry.schemas.input)
    output_schema = read(entry.schemas.output) if entry.schemas.output else None
    return ClientTool(
        entry,
        input_schema,
        output_schema,
        _validator(input_schema, entry.schemas.input),
        _validator(output_schema, entry.schemas.output) if entry.schemas.output else None,
    )


# --- what a schema says of a value, without the value -------------------------------------------


def _expectation(error: SchemaError) -> str:
    """What the value at the error's place must be, in words that quote the schema, never the value."""
    keyword, expected = error.validator, typing.cast(Any, error.validator_value)
    if keyword == "type":
        kinds = expected if isinstance(expected, list) else [expected]
        return "Input should be " + " or ".join(_TYPES.get(str(kind), str(kind)) for kind in kinds)
    if keyword == "enum":
        shown = [repr(value) for value in expected[:MAX_LISTED]]
        return "Input should be " + (
            " or ".join(shown) if len(shown) < 3 else ", ".join(shown[:-1]) + " or " + shown[-1]
        )
    if keyword == "const":
        return f"Input should be {expected!r}"
    words = {
        "minimum": "greater than or equal to",
        "maximum": "less than or equal to",
        "exclusiveMinimum": "greater than",
        "exclusiveMaximum": "less than",
        "multipleOf": "a multiple of",
    }
    if keyword in words:
        return f"Input should be {words[keyword]} {expected}"
    counted = {
        "minLength": ("String", "at least", "character"),
        "maxLength": ("String", "at most", "character"),
        "minItems": ("List", "at least", "item"),
        "maxItems": ("List", "at most", "item"),
        "minProperties": ("Object", "at least", "property"),
        "maxProperties": ("Object", "at most", "property"),
    }
    if keyword in counted:
        what, bound, unit = counted[keyword]
        plural = unit if expected == 1 else ("properties" if unit == "property" else unit + "s")
        return f"{what} should have {bound} {expected} {plural}"
    if keyword == "pattern":
        return f"String should match pattern {expected!r}"
    if keyword == "uniqueItems":
        return "List should have unique items"
    if keyword == "not":
        return "Input should not match the schema given under 'not'"
    if keyword in ("anyOf", "oneOf"):
        return (
            "Input should match exactly one of the allowed shapes"
            if keyword == "oneOf"
            else ("Input should match one of the allowed shapes")
        )
    return f"Input does not match the schema ({keyword})"


def _lines(error: SchemaError, schema: Mapping[str, Any], root: str) -> list[str]:
    """The problems one error stands for, each ``path: expectation``."""
    location = declared_location(list(error.absolute_path), schema)
    instance, expected = error.instance, typing.cast(Any, error.validator_value)
    if error.validator == "required" and isinstance(instance, dict):
        return [
            f"{format_location((*location, name), root)}: Field required"
            for name in expected
            if isinstance(name, str) and name not in instance
        ] or [f"{format_location(location, root)}: Field required"]
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        declared = set((error.schema.get("properties") or {}) if isinstance(error.schema, Mapping) else ())
        keys = sorted(str(key) for key in instance if key not in declared)
        return [unexpected_keys(location, keys, root)]
    if error.validator in ("anyOf", "oneOf") and error.context:
        branches = [branch for branch in expected if isinstance(branch, Mapping) and branch.get("type") != "null"]
        if len(branches) == 1:  # an optional field: what its one real shape says
            inner = next((item for item in error.context if item.validator_value != "null"), None)
            if inner is not None:
                return _lines(inner, schema, root)
    return [f"{format_location(location, root)}: {_expectation(error)}"]


def schema_problems(validator: Validator, instance: Any, root: str = "(arguments)") -> list[str]:
    """One ``path: expectation`` line per way ``instance`` breaks the validator's schema, never quoting it."""
    schema = validator.schema if isinstance(validator.schema, Mapping) else {}
    lines: list[str] = []
    for error in validator.iter_errors(instance):  # in the schema's order: the fields', then what is required
        for line in _lines(error, schema, root):
            if line not in lines:
                lines.append(line)
    if len(lines) > MAX_LISTED:
        lines = [*lines[:MAX_LISTED], f"... and {len(lines) - MAX_LISTED} more"]
    return lines


def with_defaults(value: Any, schema: Mapping[str, Any]) -> Any:
    """``value`` (valid for ``schema``) with the default of every property it leaves out, as pydantic fills them in.

    Objects inside it get theirs too, through ``$ref``, ``allOf`` and optional unions; a copy, never the value itself.
    """
    definitions = schema.get("$defs") or {}

    def fill(item: Any, node: Any, depth: int) -> Any:
        node = resolve_schema(node, definitions) if depth <= 64 else None
        if isinstance(item, dict) and isinstance(node, Mapping):
            properties = node.get("properties") or {}
            filled = {key: fill(inner, properties.get(key), depth + 1) for key, inner in item.items()}
            for key, field in properties.items():
                if key not in filled and isinstance(field, Mapping) and "default" in field:
                    filled[key] = copy.deepcopy(field["default"])
            return filled
        if isinstance(item, list) and isinstance(node, Mapping):
            return [fill(inner, node.get("items"), depth + 1) for inner in item]
        return item

    return fill(value, schema, 0)


def _listing(lines: list[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)


# --- the call --------------------------------------------------------------------------------


async def call_client(
    tool: ClientTool,
    arguments: object,
    *,
    pool: WorkerPool,
    handler: ClientHandler | None,
    approve: Callable[[dict[str, Any]], Awaitable[None]],
    max_output_bytes: int,
    asking: Callable[[], None] = lambda: None,
) -> str:
    """The output text of one call of a client tool, or ``CallRefused`` from the step that failed.

    ``asking`` is told just before the handler is asked (the call's one attempt).
    """
    entry = tool.entry
    parsed = parse_arguments(arguments)
    if entry.settings[STRICT]:
        parsed = remove_strict_nulls(parsed, tool.input_schema)
    problems = schema_problems(tool.input_validator, parsed)
    if problems:
        refuse("validation", "The arguments do not match the tool's input schema:\n" + _listing(problems))
    parsed = with_defaults(parsed, tool.input_schema)
    if entry.settings[NEEDS_APPROVAL] is True:
        await approve(parsed)
    if handler is None:
        refuse(
            "execution",
            f"The result of {entry.name!r} must come from the client (it is a client-side tool), "
            "and no client is here to give it.",
        )
    timeout, give = entry.settings[TIMEOUT], handler
    asking()
    outcome = await invoke(
        pool,
        lambda: give(entry.name, dict(parsed)),
        asynchronous=inspect.iscoroutinefunction(give),
        timeout=timeout,
        label=f"the client of tool {entry.name!r}",
    )
    if outcome.timed_out:
        refuse("timeout", f"No result came from the client within {timeout:g} s.")
    if isinstance(outcome.error, ClientError):
        refuse("execution", str(outcome.error))
    if outcome.error is not None:
        refuse("execution", f"The client failed to give the result: {describe_exception(outcome.error)}")
    value = outcome.value
    try:
        text = to_json_text(value, limit=max_output_bytes)
    except SerializationFailure as error:
        refuse("serialization", f"The client's result cannot be sent to the model: {error}.")
    if tool.output_validator is not None:
        problems = schema_problems(
            tool.output_validator, value if isinstance(value, str) else read_json(text), RESULT_ROOT
        )
        if problems:
            refuse(
                "output_validation",
                "The client's result does not match the tool's output schema:\n" + _listing(problems),
            )
    return text
