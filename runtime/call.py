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
Every step that runs the tool's code (its models' validators, ``needs_approval``,
``execute``, its serializers) names the tool's import scope (``imports.set_running``),
so that what the code imports at call time comes from the tool's bundle.
A client-side tool has no code: after step 1 its call goes the way of ``client.call_client``.
``call_tool`` runs a call of a tool of a ``store.DistStore``; ``Runtime.call`` is how the
rest of skillc reaches it.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Callable, Collection
from typing import Any, Final, NoReturn, TypeAlias, cast

from pydantic import BaseModel, ValidationError

from ..contracts.settings import CLIENT, IDEMPOTENT, NEEDS_APPROVAL, TIMEOUT
from .arguments import parse_arguments, remove_strict_nulls
from .capture import Capture, start_capture, stop_capture
from .client import ClientHandler, call_client
from .context import ToolContext, make_current, stop_current
from .deadlines import DeadlineExceeded, Guard
from .imports import reset_running, set_running
from .inline import Outcome, begin, drive_sync
from .json_edges import suspect
from .ownjson import write_json
from .results import CallRefused, ErrorType, ToolResult, refuse
from .serialize import (
    DEFAULT_MAX_OUTPUT_BYTES,
    SerializationFailure,
    describe_exception,
    describe_validation_error,
    to_json_text,
)
from .store import DistStore, LoadedTool, LoadError
from .workers import invoke

__all__ = ["Approver", "call_tool"]

logger = logging.getLogger("skillc.runtime")

#: Asked before a ``needs_approval`` tool runs: ``approver(name, arguments)``, sync or async.
Approver: TypeAlias = Callable[[str, dict[str, Any]], Any]

#: What ``_Call._execute`` holds before its first attempt ends.
_NO_OUTCOME: Final[Outcome[Any]] = Outcome()
#: At most this many tool names are listed when the model asks for one that does not exist.
_MAX_NAMES_LISTED: Final = 30


def _listing(lines: list[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)


# --- the call itself ----------------------------------------------------------------------


_PLAIN_LEAVES: Final = frozenset({str, int, float, bool, type(None)})
#: Past this many values, a result is treated as not plain (and serialized in a thread).
_PLAIN_BUDGET: Final = 2_000


def _plain(value: object) -> bool:
    """Whether ``value`` is made only of dicts, lists and JSON scalars (and small)."""
    kind = type(value)
    if kind in _PLAIN_LEAVES:
        return True
    pending: list[object] = [value]
    budget = _PLAIN_BUDGET
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is dict:
            assert isinstance(item, dict)
            budget -= len(item)
            for key, inner in item.items():
                if type(key) is not str:
                    return False
                if type(inner) not in _PLAIN_LEAVES:
                    pending.append(inner)
        elif kind is list:
            assert isinstance(item, list)
            budget -= len(item)
            pending.extend(inner for inner in item if type(inner) not in _PLAIN_LEAVES)
        elif kind not in _PLAIN_LEAVES:
            return False
        if budget < 0:
            return False
    return True


def _validated(
    model: type[BaseModel],
    value: object,
    error_type: ErrorType,
    mismatch: str,
    validating: str,
    *,
    from_attributes: bool | None = None,
    json_mode: bool = False,
) -> Any:
    """``value`` validated by ``model`` (JSON text with ``json_mode``); a mismatch or a validator that raises refuses."""
    try:
        if json_mode:
            assert isinstance(value, str | bytes | bytearray)
            return model.model_validate_json(value)
        return model.model_validate(value, from_attributes=from_attributes)
    except ValidationError as error:
        refuse(error_type, f"{mismatch}:\n" + _listing(describe_validation_error(error, model)))
    except Exception as error:  # the model's own validators are the tool's code
        refuse(error_type, f"{validating} raised {describe_exception(error)}.")


def _render(value: object, output_model: type[BaseModel] | None, limit: int) -> str:
    """Validate the result against the output model, then make it JSON text; else refuse."""
    if output_model is not None and not isinstance(value, output_model):
        value = _validated(
            output_model,
            value,
            "output_validation",
            "The tool's result does not match its output schema",
            "Validating the tool's result",
            from_attributes=True,
        )
    try:
        return to_json_text(value, limit=limit)
    except SerializationFailure as error:
        refuse("serialization", f"The tool's result cannot be sent to the model: {error}.")


class _Call:
    """One call in progress; ``run`` returns the output text or raises ``CallRefused``."""

    __slots__ = (
        "approver",
        "arguments",
        "attempts",
        "call_id",
        "client",
        "context",
        "max_output_bytes",
        "name",
        "offered",
        "printed",
        "store",
    )

    def __init__(
        self,
        store: DistStore,
        name: str,
        arguments: object,
        call_id: str,
        context: ToolContext | None,
        offered: Collection[str] | None,
        approver: Approver | None,
        max_output_bytes: int,
        client: ClientHandler | None = None,
    ) -> None:
        self.store = store
        self.name = name
        self.arguments = arguments
        self.call_id = call_id
        self.context = context if context is not None else ToolContext()
        self.offered = offered
        self.approver = approver
        self.client = client
        self.max_output_bytes = max_output_bytes
        self.attempts = 0
        self.printed = Capture()

    def _unknown(self) -> NoReturn:
        names = sorted(self.offered) if self.offered is not None else list(self.store.tool_names)
        shown = ", ".join(names[:_MAX_NAMES_LISTED]) + (", ..." if len(names) > _MAX_NAMES_LISTED else "")
        label = str(self.name)
        label = label if len(label) <= 100 else label[:100] + "..."
        refuse("unknown_tool", f"There is no tool named {label!r}. The tools are: {shown or 'none'}.")

    async def run(self) -> str:
        """Every step of the call, in order; the output text, or ``CallRefused`` from the step that failed."""
        store = self.store
        loaded = store.ready_tool(self.name)  # imported already: it exists and has code
        entry = loaded.entry if loaded is not None else store.tool_entry(self.name)
        if entry is None:
            self._unknown()
        if self.offered is not None and self.name not in self.offered:
            refuse("not_offered", f"The tool {self.name!r} is not available right now; do not call it this turn.")
        arguments: dict[Any, Any] | None = None
        if loaded is None:  # not imported yet: arguments that cannot be read are refused before the import
            if entry.settings[CLIENT]:
                return await self._client_call(entry.settings[TIMEOUT])
            arguments = parse_arguments(self.arguments)
            try:
                loaded = await store.load_tool(self.name, entry.settings[TIMEOUT])
            except LoadError as error:
                logger.error("tool %r cannot run: %s", self.name, error)
                refuse("execution", f"The tool cannot run: {error}.")
            except TimeoutError:
                refuse("timeout", f"The tool's code did not load within {entry.settings[TIMEOUT]:g} s.")
        # From here on, this task runs the tool's code (validators, an async execute).
        running = set_running(loaded.scope)
        # Validating the arguments and the first attempt of an async execute share one guard.
        guard = Guard(time.monotonic() + loaded.timeout, loaded.label)
        try:
            payload, arguments = self._arguments(loaded, arguments, guard)
            if loaded.approval is not False and await self._needs_approval(loaded, payload):
                await self._approve(arguments if arguments is not None else parse_arguments(self.arguments))
            return await self._execute(loaded, payload, guard)
        finally:
            guard.close()
            reset_running(running)

    async def _client_call(self, timeout: float) -> str:
        """A client-side tool's call (``client.call_client``): the caller's handler gives the result."""
        try:
            tool = await self.store.load_client(self.name, timeout)
        except LoadError as error:
            refuse("execution", f"The tool cannot run: {error}.")
        except TimeoutError:
            refuse("timeout", f"The tool's schemas did not load within {timeout:g} s.")
        return await call_client(
            tool,
            self.arguments,
            pool=self.store.pool,
            handler=self.client,
            approve=self._approve,
            max_output_bytes=self.max_output_bytes,
            asking=self._one_attempt,
        )

    def _one_attempt(self) -> None:
        self.attempts = 1

    def _arguments(
        self, loaded: LoadedTool, parsed: dict[Any, Any] | None, guard: Guard
    ) -> tuple[Any, dict[Any, Any] | None]:
        """The input model's instance for the arguments (the dict itself without a model), and the dict if read.

        JSON text is validated in pydantic's JSON mode.  Text that holds nothing JSON
        readers disagree on (``json_edges.suspect``) goes straight into the model; whatever fails
        there is read again the long way (``parse_arguments``), whose refusal says exactly
        what is wrong.  The model's validators are the tool's code: they run under the
        tool's timeout.
        """
        model = loaded.input_model
        raw = self.arguments
        if model is not None and parsed is None and loaded.input_schema is None and type(raw) is str and raw:
            if not suspect(raw, floats=loaded.takes_floats):
                try:
                    # What model_validate_json does, without its Python layer: it runs on every call.
                    return guard.run(lambda: model.__pydantic_validator__.validate_json(raw)), None
                except DeadlineExceeded:
                    refuse("timeout", f"Validating the arguments took longer than {loaded.timeout:g} s.")
                except CallRefused:
                    raise
                except Exception:  # noqa: BLE001, S110 - read again below, to say exactly what is wrong
                    pass
        arguments = parse_arguments(raw) if parsed is None else parsed
        if model is None:
            return arguments, arguments
        document: object = raw if isinstance(raw, str | bytes | bytearray) and raw.strip() else arguments
        if loaded.input_schema is not None:  # strict: the nulls strict mode made the model send go
            from_text = document is not arguments
            arguments = remove_strict_nulls(arguments, loaded.input_schema)
            # Text was JSON, and stays JSON (decode_json let nothing through JSON cannot spell).
            document = write_json(arguments) if from_text else arguments

        def validate() -> Any:
            return _validated(
                model,
                document,
                "validation",
                "The arguments do not match the tool's input schema",
                "Validating the arguments",
                json_mode=isinstance(document, str | bytes | bytearray),
            )

        return self._guarded(loaded, validate), arguments

    def _guarded(self, loaded: LoadedTool, function: Callable[[], Any]) -> Any:
        """Run validation (the tool's validators) under the tool's timeout; past it, refuse."""
        try:
            return drive_sync(function, loaded.timeout, loaded.label)
        except DeadlineExceeded:
            refuse("timeout", f"Validating the arguments took longer than {loaded.timeout:g} s.")

    def _serialize(self, loaded: LoadedTool, value: object) -> str:
        """The result of a sync ``execute`` validated by the output model and made JSON text, under the tool's timeout.

        Both may run the tool's code (validators, custom serializers): inline, as the
        input's validation, its prints captured and interrupted at the deadline.  Plain
        JSON data cannot run code while it is serialized: it needs no guard.
        """
        if loaded.tool.output_schema is None and _plain(value):
            return _render(value, None, self.max_output_bytes)
        try:
            with self.printed.active():
                text: str = drive_sync(
                    lambda: _render(value, loaded.tool.output_schema, self.max_output_bytes),
                    loaded.timeout,
                    loaded.label,
                )
        except DeadlineExceeded:
            _serialization_timed_out(loaded.timeout)
        except CallRefused:
            raise
        except Exception as error:  # a custom serializer of the tool's failed
            _serialization_failed(error)
        return text

    @staticmethod
    def _serialization_refused(outcome: Outcome[str], timeout: float) -> NoReturn:
        """Refuse a result that ``drive``'s ``then`` (``_render``) could not make text of, as ``_serialize`` does."""
        error = outcome.error
        if error is None:
            _serialization_timed_out(timeout)
        if isinstance(error, CallRefused):
            raise error
        _serialization_failed(error)

    async def _needs_approval(self, loaded: LoadedTool, payload: Any) -> bool:
        """Whether a person must approve this call: the setting, or what its function says of these arguments.

        A function that raises, times out or answers anything but ``True``/``False`` asks
        for approval (fail closed).
        """
        if loaded.approval is not None:
            return loaded.approval
        decide = getattr(loaded.tool, NEEDS_APPROVAL.name)
        outcome = await invoke(
            self.store.pool,
            lambda: decide(payload, self.context),
            asynchronous=inspect.iscoroutinefunction(decide),
            timeout=loaded.timeout,
            capture=self.printed,
            context=self.context,
            scope=loaded.scope,
            label=loaded.label,
        )
        if outcome.error is None and not outcome.timed_out and isinstance(outcome.value, bool):
            return outcome.value
        why = "timed out" if outcome.timed_out else describe_exception(outcome.error) if outcome.error else "no bool"
        logger.warning("needs_approval of tool %r failed (%s): asking for approval", self.name, why)
        return True

    async def _approve(self, arguments: dict[Any, Any]) -> None:
        approver = self.approver
        if approver is None:
            refuse("approval_denied", "This tool needs a person's approval, and nobody is here to give it.")
        outcome = await invoke(
            self.store.pool,
            lambda: approver(self.name, dict(arguments)),
            asynchronous=inspect.iscoroutinefunction(approver),
            timeout=None,
        )
        if outcome.error is not None:
            logger.warning("the approver failed for tool %r: %s", self.name, describe_exception(outcome.error))
            refuse("approval_denied", "The approval could not be asked for, so the tool did not run.")
        if outcome.value is not True:
            refuse("approval_denied", "A person declined to run this tool.")

    async def _execute(self, loaded: LoadedTool, payload: Any, guard: Guard) -> str:
        """Run ``execute`` with the tool's timeout and retries; its result as JSON text, else refuse.

        An async ``execute`` is awaited in this task rather than in a task or a thread of
        its own (a fraction of the cost per call), under a deadline that holds
        (``inline.drive``); its result is validated and serialized right after, under the
        same guard given the timeout anew.  A sync one runs in the pool (``invoke``).

        An attempt that timed out is retried only for a tool marked ``idempotent=True``:
        its code may still be running and have its effect, and a second attempt would
        run beside it.  A tool marked ``idempotent=False`` is never retried.  A result
        that fails its validation or serialization is not retried either.
        """
        entry, tool, timeout = loaded.entry, loaded.tool, loaded.timeout
        context = self.context.for_call(self.call_id, self.name, entry.skill)
        tries = loaded.tries
        outcome: Outcome[Any] = _NO_OUTCOME  # every call makes one attempt at least
        attempt = 0
        while attempt < tries:
            attempt += 1
            self.attempts = attempt
            if loaded.asynchronous:
                # What `with self.printed.active(), context.activate():` does, without its two objects.
                printing, current = start_capture(self.printed), make_current(context)
                try:
                    started = begin(
                        lambda: tool.execute(payload, context),
                        timeout,
                        loaded.label,
                        lambda value: _render(value, tool.output_schema, self.max_output_bytes),
                        guard if attempt == 1 else None,  # the first attempt takes the call's guard over
                    )
                    outcome = started if isinstance(started, Outcome) else await started
                finally:
                    stop_current(current)
                    stop_capture(printing)
                if outcome.then_ran:  # the result: its text, or why it has none
                    if outcome.error is None and not outcome.timed_out:
                        return cast(str, outcome.value)  # what _render returned
                    self._serialization_refused(outcome, timeout)
            else:
                outcome = await invoke(
                    self.store.pool,
                    lambda: tool.execute(payload, context),
                    asynchronous=False,
                    timeout=timeout,
                    capture=self.printed,
                    context=context,
                    scope=loaded.scope,
                    label=loaded.label,
                )
                if outcome.ok:
                    return self._serialize(loaded, outcome.value)
            what = (
                f"timed out after {timeout:g} s"
                if outcome.error is None
                else f"raised {describe_exception(outcome.error)}"
            )
            if outcome.timed_out and entry.settings[IDEMPOTENT] is not True:
                tries = attempt  # not retried: the attempt may still have its effect
            if attempt < tries:
                logger.warning("tool %r (call %s) %s; attempt %d of %d", self.name, self.call_id, what, attempt, tries)
            else:
                error = outcome.error
                logger.warning(
                    "tool %r (call %s) %s",
                    self.name,
                    self.call_id,
                    what,
                    exc_info=(type(error), error, error.__traceback__) if error is not None else None,
                )
        after = f" (after {attempt} attempts)" if attempt > 1 else ""
        if outcome.error is None:
            refuse("timeout", f"The tool did not finish within {timeout:g} s{after}.")
        refuse("execution", f"The tool failed{after}: {describe_exception(outcome.error)}")


def _serialization_timed_out(timeout: float) -> NoReturn:
    refuse("serialization", f"Serializing the tool's result took longer than {timeout:g} s.")


def _serialization_failed(error: BaseException) -> NoReturn:
    """A custom serializer of the tool's failed."""
    refuse("serialization", f"Serializing the tool's result raised {describe_exception(error)}.")


async def call_tool(
    store: DistStore,
    name: str,
    arguments: object,
    call_id: str,
    context: ToolContext | None,
    *,
    offered: Collection[str] | None = None,
    approver: Approver | None = None,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    client: ClientHandler | None = None,
) -> ToolResult:
    """Run one call of a tool of ``store`` through every step; a ``ToolResult`` always, never an exception.

    ``client`` gives the results of client-side tools (``client.ClientHandler``).
    """
    started = time.perf_counter()
    call = _Call(store, name, arguments, call_id, context, offered, approver, max_output_bytes, client)
    error_type: ErrorType | None = None
    try:
        output = await call.run()
    except CallRefused as refusal:
        error_type, output = refusal.error_type, refusal.message
    except Exception as error:
        # The contract is a result, never an exception: whatever slipped through is a
        # skillc bug, reported as one, and the caller still gets its result.
        logger.exception("skillc failed while calling tool %r", name)
        error_type, output = "execution", f"The runtime failed while calling the tool: {describe_exception(error)}"
    duration = (time.perf_counter() - started) * 1000
    if logger.isEnabledFor(logging.DEBUG):
        if call.printed.text:
            logger.debug("tool %r (call %s) printed:\n%s", name, call_id, call.printed.text)
        logger.debug("tool %r (call %s) %s in %.1f ms", name, call_id, error_type or "succeeded", duration)
    return ToolResult.of_call(call_id, name, output, error_type, round(duration, 3), call.attempts)
