"""The one call path: name and arguments in, a ``ToolResult`` out, whatever the tool does.

The steps, each of which may end the call with an error result:

1. the tool exists (``unknown_tool``) and was offered this turn (``not_offered``);
2. the arguments parse as a JSON object (``invalid_json``);
3. its bundle loads (``execution``: missing, changed since compile, failing to import);
4. a strict tool's arguments lose the nulls strict mode made the model send for
   optional fields, then the arguments validate against the input model
   (``validation``, naming field paths, never values);
5. a ``needs_approval`` tool is approved (``approval_denied``);
6. ``execute`` runs with the tool's timeout and retries (``execution``, ``timeout``);
7. the result validates against the output model (``output_validation``) and becomes
   JSON text within the size limit (``serialization``).

What the tool prints is captured per call and logged at debug level, never shown.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import logging
import time
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, Final, NoReturn

from pydantic import BaseModel, ValidationError

from .capture import Capture
from .context import ToolContext
from .results import ErrorType, ToolResult
from .sdk import FunctionTool, Tool
from .serialize import (
    SerializationFailure,
    describe_exception,
    describe_validation_error,
    to_json_text,
)
from .workers import Outcome, invoke

if TYPE_CHECKING:
    from .loader import Approver, LoadedTool, Runtime

__all__ = ["call_tool", "parse_arguments", "remove_strict_nulls"]

logger = logging.getLogger("skillc.runtime")

#: At most this many tool names are listed when the model asks for one that does not exist.
_MAX_NAMES_LISTED: Final = 30
#: Deeper than this, a strict tool's arguments are left as they are.
_MAX_DEPTH: Final = 64


class _Refused(Exception):
    """Ends a call with an error result."""

    def __init__(self, error_type: ErrorType, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message


def _refuse(error_type: ErrorType, message: str) -> NoReturn:
    raise _Refused(error_type, message)


def _listing(lines: list[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)


def _json_type(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null" if value is None else type(value).__name__


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def parse_arguments(arguments: object) -> dict[Any, Any]:
    """The arguments as a dict: from JSON text, bytes or a mapping.

    Empty text means no arguments, as several model servers send it for tools that
    take none.
    """
    if isinstance(arguments, str | bytes | bytearray):
        if not arguments.strip():
            return {}
        problem = "The arguments are not valid JSON"
        try:
            document = json.loads(arguments, parse_constant=_refuse_constant)
        except json.JSONDecodeError as error:
            _refuse("invalid_json", f"{problem}: {error.msg} at line {error.lineno} column {error.colno}.")
        except RecursionError:
            _refuse("invalid_json", f"{problem}: they are nested too deeply.")
        except ValueError as error:  # not UTF-8, NaN, integers with thousands of digits
            _refuse("invalid_json", f"{problem}: {error}")
    elif isinstance(arguments, Mapping):
        document = dict(arguments)
    else:
        _refuse("validation", f"The arguments must be a JSON object, not {type(arguments).__name__}.")
    if not isinstance(document, dict):
        _refuse("validation", f"The arguments must be a JSON object, not {_json_type(document)}.")
    return document


# --- strict mode ------------------------------------------------------------------------


def _resolve(schema: Any, root: Mapping[str, Any]) -> Any:
    """Follow ``$ref`` (to ``#/$defs/...``) until a schema that is not a reference."""
    for _ in range(_MAX_DEPTH):
        if not isinstance(schema, Mapping) or not isinstance(schema.get("$ref"), str):
            return schema
        reference: str = schema["$ref"]
        if not reference.startswith("#/"):
            return None
        target: Any = root
        for step in reference[2:].split("/"):
            target = target.get(step) if isinstance(target, Mapping) else None
        schema = target
    return None


def _object_schema(schema: Any, root: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The one object schema ``schema`` allows (through ``anyOf``, ``Optional``), else ``None``."""
    schema = _resolve(schema, root)
    if not isinstance(schema, Mapping):
        return None
    if schema.get("type") == "object" or "properties" in schema:
        return schema
    for key in ("anyOf", "oneOf", "allOf"):
        variants = schema.get(key)
        if isinstance(variants, list):
            objects = [found for item in variants if (found := _object_schema(item, root)) is not None]
            return objects[0] if len(objects) == 1 else None
    return None


def _array_items(schema: Any, root: Mapping[str, Any]) -> Any:
    schema = _resolve(schema, root)
    if not isinstance(schema, Mapping):
        return None
    if schema.get("type") == "array":
        return schema.get("items")
    for key in ("anyOf", "oneOf"):
        variants = schema.get(key)
        if isinstance(variants, list):
            resolved = (_resolve(variant, root) for variant in variants)
            arrays = [item for item in resolved if isinstance(item, Mapping) and item.get("type") == "array"]
            return arrays[0].get("items") if len(arrays) == 1 else None
    return None


def remove_strict_nulls(
    value: Any, schema: Mapping[str, Any], root: Mapping[str, Any] | None = None, depth: int = 0
) -> Any:
    """Drop the ``null`` of every optional field (not ``required`` in ``schema``), nested ones too.

    OpenAI's strict mode makes every field required, so the model sends ``null`` for
    an optional field it means to leave out; without this, the field's default
    would be replaced by ``None`` (or fail validation).
    """
    root = schema if root is None else root
    if depth > _MAX_DEPTH:
        return value
    if isinstance(value, dict):
        shape = _object_schema(schema, root)
        if shape is None:
            return value
        properties = shape.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        required = shape.get("required")
        required = set(required) if isinstance(required, list) else set()
        extra = shape.get("additionalProperties")
        cleaned: dict[Any, Any] = {}
        for key, item in value.items():
            if item is None and key in properties and key not in required:
                continue
            inner = properties.get(key, extra if isinstance(extra, Mapping) else None)
            cleaned[key] = remove_strict_nulls(item, inner, root, depth + 1) if isinstance(inner, Mapping) else item
        return cleaned
    if isinstance(value, list):
        items = _array_items(schema, root)
        if isinstance(items, Mapping):
            return [remove_strict_nulls(item, items, root, depth + 1) for item in value]
    return value


# --- the call itself ----------------------------------------------------------------------


def _is_async(tool: Tool) -> bool:
    """Whether ``execute`` is a coroutine function (for ``@tool``, the decorated function)."""
    target = tool.function if isinstance(tool, FunctionTool) else tool.execute
    return inspect.iscoroutinefunction(target)


_PLAIN_LEAVES: Final = (str, int, float, bool, type(None))
#: Past this many values, a result is treated as not plain (and serialized in a thread).
_PLAIN_BUDGET: Final = 2_000


def _plain(value: object) -> bool:
    """Whether ``value`` is made only of dicts, lists and JSON scalars (and small)."""
    pending: list[object] = [value]
    budget = _PLAIN_BUDGET
    while pending:
        budget -= 1
        if budget < 0:
            return False
        item = pending.pop()
        kind = type(item)
        if kind in _PLAIN_LEAVES:
            continue
        if kind is dict:
            assert isinstance(item, dict)
            if not all(type(key) is str for key in item):
                return False
            pending.extend(item.values())
        elif kind is list:
            assert isinstance(item, list)
            pending.extend(item)
        else:
            return False
    return True


def _render(value: object, output_model: type[BaseModel] | None, limit: int) -> str:
    """Validate the result against the output model, then make it JSON text."""
    if output_model is not None and not isinstance(value, output_model):
        try:
            value = output_model.model_validate(value, from_attributes=True)
        except ValidationError as error:
            _refuse(
                "output_validation",
                "The tool's result does not match its output schema:\n"
                + _listing(describe_validation_error(error)),
            )
        except Exception as error:  # the output model's own validators are the tool's code
            _refuse("output_validation", f"Validating the tool's result raised {describe_exception(error)}.")
    try:
        return to_json_text(value, limit=limit)
    except SerializationFailure as error:
        _refuse("serialization", f"The tool's result cannot be sent to the model: {error}.")


class _Call:
    """One call in progress; ``run`` returns the output text or raises ``_Refused``."""

    def __init__(
        self,
        runtime: Runtime,
        name: str,
        arguments: object,
        call_id: str,
        context: ToolContext | None,
        offered: Collection[str] | None,
        approver: Approver | None,
    ) -> None:
        self.runtime = runtime
        self.name = name
        self.arguments = arguments
        self.call_id = call_id
        self.context = context if context is not None else ToolContext()
        self.offered = offered
        self.approver = approver
        self.attempts = 0
        self.printed = Capture()

    def _unknown(self) -> NoReturn:
        names = sorted(self.offered) if self.offered is not None else list(self.runtime.tool_names)
        shown = ", ".join(names[:_MAX_NAMES_LISTED]) + (", ..." if len(names) > _MAX_NAMES_LISTED else "")
        label = str(self.name)
        label = label if len(label) <= 100 else label[:100] + "..."
        _refuse("unknown_tool", f"There is no tool named {label!r}. The tools are: {shown or 'none'}.")

    async def run(self) -> str:
        runtime = self.runtime
        entry = runtime.tool_entry(self.name)
        if entry is None:
            self._unknown()
        if self.offered is not None and self.name not in self.offered:
            _refuse("not_offered", f"The tool {self.name!r} is not available right now; do not call it this turn.")
        arguments = parse_arguments(self.arguments)

        from .loader import LoadError

        try:
            loaded = await runtime.load_tool(self.name, entry.timeout)
        except LoadError as error:
            logger.error("tool %r cannot run: %s", self.name, error)
            _refuse("execution", f"The tool cannot run: {error}.")
        except TimeoutError:
            _refuse("timeout", f"The tool's code did not load within {entry.timeout:g} s.")
        if loaded.input_schema is not None:
            arguments = remove_strict_nulls(arguments, loaded.input_schema)
        payload = self._validate(loaded, arguments)
        if entry.needs_approval or loaded.tool.needs_approval:
            await self._approve(arguments)
        value = await self._execute(loaded, payload)
        if loaded.tool.output_schema is None and _plain(value):
            # Plain JSON data cannot run code while it is serialized: no thread needed.
            return _render(value, None, runtime.max_output_bytes)
        outcome = await invoke(
            runtime.pool,
            lambda: _render(value, loaded.tool.output_schema, runtime.max_output_bytes),
            asynchronous=False,
            timeout=entry.timeout,
            capture=self.printed,
        )
        if outcome.timed_out:
            _refuse("serialization", f"Serializing the tool's result took longer than {entry.timeout:g} s.")
        if isinstance(outcome.error, _Refused):
            raise outcome.error
        if outcome.error is not None:  # a custom serializer of the tool's failed
            _refuse("serialization", f"Serializing the tool's result raised {describe_exception(outcome.error)}.")
        assert isinstance(outcome.value, str)
        return outcome.value

    def _validate(self, loaded: LoadedTool, arguments: dict[Any, Any]) -> Any:
        model = loaded.tool.input_schema
        if model is None:
            return arguments
        try:
            return model.model_validate(arguments)
        except ValidationError as error:
            _refuse(
                "validation",
                "The arguments do not match the tool's input schema:\n"
                + _listing(describe_validation_error(error)),
            )
        except Exception as error:  # the input model's own validators are the tool's code
            _refuse("validation", f"Validating the arguments raised {describe_exception(error)}.")

    async def _approve(self, arguments: dict[Any, Any]) -> None:
        approver = self.approver
        if approver is None:
            _refuse("approval_denied", "This tool needs a person's approval, and nobody is here to give it.")
        outcome = await invoke(
            self.runtime.pool,
            lambda: approver(self.name, dict(arguments)),
            asynchronous=inspect.iscoroutinefunction(approver),
            timeout=None,
        )
        if outcome.error is not None:
            logger.warning("the approver failed for tool %r: %s", self.name, describe_exception(outcome.error))
            _refuse("approval_denied", "The approval could not be asked for, so the tool did not run.")
        if outcome.value is not True:
            _refuse("approval_denied", "A person declined to run this tool.")

    async def _await(self, tool: Tool, payload: Any, context: ToolContext, timeout: float) -> Outcome[Any]:
        """Await an async ``execute`` in this task, under its deadline.

        Awaiting it here rather than in a task of its own costs a fraction of the time
        per call.  The price: a coroutine that swallows its own cancellation cannot be
        stopped at the deadline (as with ``asyncio.wait_for``).
        """
        task = asyncio.current_task()
        with self.printed.active(), context.activate():
            deadline = asyncio.timeout(timeout)
            try:
                async with deadline:
                    return Outcome(value=await tool.execute(payload, context))
            except TimeoutError as error:
                if deadline.expired():
                    return Outcome(timed_out=True)
                return Outcome(error=error)
            except asyncio.CancelledError as error:
                if task is not None and task.cancelling():
                    raise  # the caller cancelled this call: let it go
                return Outcome(error=error)  # the tool raised it itself
            except (SystemExit, Exception) as error:  # what the tool raised is its result
                return Outcome(error=error)

    async def _execute(self, loaded: LoadedTool, payload: Any) -> Any:
        entry, tool = loaded.entry, loaded.tool
        context = dataclasses.replace(self.context, call_id=self.call_id, tool=self.name, skill=entry.skill)
        tries = entry.retries + 1
        outcome: Outcome[Any] = Outcome()
        asynchronous = _is_async(tool)
        for attempt in range(1, tries + 1):
            self.attempts = attempt
            if asynchronous:
                outcome = await self._await(tool, payload, context, entry.timeout)
            else:
                outcome = await invoke(
                    self.runtime.pool,
                    lambda: tool.execute(payload, context),
                    asynchronous=False,
                    timeout=entry.timeout,
                    capture=self.printed,
                    context=context,
                )
            if outcome.ok:
                return outcome.value
            what = (
                f"timed out after {entry.timeout:g} s"
                if outcome.error is None
                else f"raised {describe_exception(outcome.error)}"
            )
            if attempt < tries:
                logger.warning("tool %r (call %s) %s; attempt %d of %d", self.name, self.call_id, what, attempt, tries)
            else:
                error = outcome.error
                logger.warning(
                    "tool %r (call %s) %s", self.name, self.call_id, what,
                    exc_info=(type(error), error, error.__traceback__) if error is not None else None,
                )
        after = f" (after {tries} attempts)" if tries > 1 else ""
        if outcome.error is None:
            _refuse("timeout", f"The tool did not finish within {entry.timeout:g} s{after}.")
        _refuse("execution", f"The tool failed{after}: {describe_exception(outcome.error)}")


async def call_tool(
    runtime: Runtime,
    name: str,
    arguments: object,
    call_id: str,
    context: ToolContext | None,
    *,
    offered: Collection[str] | None = None,
    approver: Approver | None = None,
) -> ToolResult:
    """Run one call through every step; see the module's docstring (``Runtime.call``)."""
    started = time.perf_counter()
    call = _Call(runtime, name, arguments, call_id, context, offered, approver)
    error_type: ErrorType | None = None
    try:
        output = await call.run()
    except _Refused as refusal:
        error_type, output = refusal.error_type, refusal.message
    except Exception as error:
        # The contract is a result, never an exception: whatever slipped through is a
        # skillc bug, reported as one, and the caller still gets its result.
        logger.exception("skillc failed while calling tool %r", name)
        error_type, output = "execution", f"The runtime failed while calling the tool: {describe_exception(error)}"
    duration = (time.perf_counter() - started) * 1000
    if call.printed.text:
        logger.debug("tool %r (call %s) printed:\n%s", name, call_id, call.printed.text)
    logger.debug("tool %r (call %s) %s in %.1f ms", name, call_id, error_type or "succeeded", duration)
    return ToolResult(
        call_id=call_id,
        name=name,
        is_error=error_type is not None,
        output=output,
        error_type=error_type,
        duration_ms=round(duration, 3),
        attempts=call.attempts,
    )
