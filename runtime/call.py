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
``execute``, its serializers) runs with the call as its ``running.Running`` record: the
tool's import scope, so that what the code imports at call time comes from the tool's
bundle; the call's ``ToolContext``; the capture of what it prints.
A client-side tool has no code: after step 1 its call goes the way of ``client.call_client``.
``call_tool`` runs a call of a tool of a ``store.DistStore``; ``Runtime.call`` is how the
rest of skillc reaches it.
"""

from __future__ import annotations

import inspect
import logging
import threading
import time
from collections.abc import Callable, Collection, Coroutine
from typing import Any, Final, NoReturn, TypeAlias, cast

from pydantic import BaseModel, ValidationError

from ..contracts.settings import CLIENT, IDEMPOTENT, NEEDS_APPROVAL, TIMEOUT
from .arguments import parse_arguments, remove_strict_nulls
from .capture import Capture, redirecting
from .client import ClientHandler, call_client
from .context import StateError, ToolContext, ToolState
from .deadlines import DeadlineExceeded, Guard
from .imports import ImportScope
from .inline import Outcome, begin, drive_sync
from .json_edges import suspect
from .ownjson import write_json
from .results import CallRefused, ErrorType, ToolResult, refuse
from .running import Running, start, stop
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

#: The clocks of the call path (bound once: each call reads them several times).
_clock: Final = time.monotonic
_clock_ns: Final = time.perf_counter_ns
#: At most this many tool names are listed when the model asks for one that does not exist.
_MAX_NAMES_LISTED: Final = 30


def _listing(lines: list[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)


# --- the call itself ----------------------------------------------------------------------


_PLAIN_LEAVES: Final = frozenset({str, int, float, bool, type(None)})
#: Past this many values, a result is treated as not plain (and serialized in a thread).
_PLAIN_BUDGET: Final = 2_000


def _plain(value: object) -> bool:
    """Whether ``value`` is made only of dicts with string keys, lists and JSON scalars (of exactly
    those types), holding at most ``_PLAIN_BUDGET`` items in all.

    A sync tool's result is checked on every call: nothing here calls anything it need not.
    """
    leaves = _PLAIN_LEAVES
    if type(value) in leaves:
        return True
    pending: list[Any] = [value]  # never a leaf: leaves are not pushed
    budget = _PLAIN_BUDGET
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is dict:
            budget -= len(item)
            for key, inner in item.items():
                if type(key) is not str:
                    return False
                if type(inner) not in leaves:
                    pending.append(inner)
        elif kind is list:
            budget -= len(item)
            for inner in item:
                if type(inner) not in leaves:
                    pending.append(inner)
        else:
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


def _unserializable(error: SerializationFailure) -> NoReturn:
    refuse("serialization", f"The tool's result cannot be sent to the model: {error}.")


class _Call(Running):
    """One call in progress; ``result`` makes every step of it and gives its ``ToolResult``.

    It is also the ``Running`` record of the tool's code while that runs (its scope,
    the call's context, the capture of its prints): one object less per call.
    """

    __slots__ = (
        "_heard",
        "approver",
        "arguments",
        "attempts",
        "call_id",
        "client",
        "max_output_bytes",
        "name",
        "offered",
        "output_model",
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
        #: The caller's context until ``result`` makes the call's own of it (``ToolContext.for_call``).
        self.context: ToolContext = context if context is not None else ToolContext()
        self.scope = None
        self.capture: Capture = Capture()
        self.store = store
        self.name = name
        self.arguments = arguments
        self.call_id = call_id
        self.offered = offered
        self.approver = approver
        self.client = client
        self.max_output_bytes = max_output_bytes
        self.attempts = 0
        #: What the call's code left undone, told by ``dropped`` and ``handed_out`` (``None``: nothing
        #: yet); ``_ENDED`` once the call has its result.
        self._heard: _Heard | None = None

    # The call answers for itself (``running.Owner``): a property, where a slot would cost a store per call.
    @property
    def owner(self) -> _Call:  # type: ignore[override]
        return self

    def dropped(self, what: str) -> None:
        """``running.Owner.dropped``: the call's code let go of a coroutine unawaited, ``what``.

        Heard while the call runs, it fails the call (``_settle``); after (in a task the
        code started), it can only be logged.
        """
        with _HEARD_HELD:
            heard = self._heard
            if heard is not _ENDED:
                if heard is None:
                    heard = self._heard = _Heard()
                heard.dropped.append(what)
                return
        logger.warning(
            "tool %r (call %s), after its result, made a coroutine that nothing awaited, so none of its body ran: %s",
            self.name,
            self.call_id,
            what,
        )

    def handed_out(self, state: object, key: str, value: object, text: str) -> None:
        """``running.Owner.handed_out``: kept, for ``_settle`` to look at when the call ends."""
        if not isinstance(state, ToolState):
            return
        with _HEARD_HELD:
            heard = self._heard
            if heard is not _ENDED:
                if heard is None:
                    heard = self._heard = _Heard()
                heard.handed.append((state, key, value, text))

    def _settle(self, error_type: ErrorType | None, output: str) -> tuple[ErrorType | None, str]:
        """The call's result once what its code left undone is told: each coroutine it dropped unawaited
        is logged and fails the call (part of its work never ran; an error it had already stays its
        result); each ``ctx.state`` value it changed in place and did not store again is warned of."""
        with _HEARD_HELD:
            heard, self._heard = self._heard, _ENDED
        assert heard is not None and heard is not _ENDED
        self._unsaved_state(heard.handed)
        dropped = heard.dropped
        for what in dropped:
            logger.warning(
                "tool %r (call %s) made a coroutine that nothing awaited, so none of its body ran: %s",
                self.name,
                self.call_id,
                what,
            )
        if error_type is not None or not dropped:
            return error_type, output
        more = f" (and {len(dropped) - 1} more)" if len(dropped) > 1 else ""
        return "execution", (
            "The tool failed: its code made a coroutine that nothing awaited, so part of its work never ran: "
            f"{dropped[0]}{more}. Its result was not sent."
        )

    def _unsaved_state(self, handed: list[tuple[ToolState, str, object, str]]) -> None:
        """Warn of each ``ctx.state`` value the code changed in place and did not store again: the state
        hands out copies, so the change is lost (``ctx.state["cart"].append(item)``).  Only warned: code may
        change a copy for its own use."""
        warned: set[str] = set()
        for state, key, value, text in handed:
            if key in warned:
                continue
            try:
                lost = state.unsaved_change(key, value, text)
            except StateError:  # the state is being edited for good by other code: nothing to tell
                continue
            if lost:
                warned.add(key)
                logger.warning(
                    "tool %r (call %s) changed the copy of ctx.state[%r] it read without storing it again, so the "
                    "state still holds the old value: store it back (ctx.state[%r] = ...), or change it inside "
                    "`with ctx.state.edit() as state:`",
                    self.name,
                    self.call_id,
                    key,
                    key,
                )

    def _unknown(self) -> NoReturn:
        names = sorted(self.offered) if self.offered is not None else list(self.store.tool_names)
        shown = ", ".join(names[:_MAX_NAMES_LISTED]) + (", ..." if len(names) > _MAX_NAMES_LISTED else "")
        label = str(self.name)
        label = label if len(label) <= 100 else label[:100] + "..."
        refuse("unknown_tool", f"There is no tool named {label!r}. The tools are: {shown or 'none'}.")

    async def result(self) -> ToolResult:
        """Every step of the call, in order; the ``ToolResult``, an error result for the step that failed.

        The tool's code runs with this call as the ``Running`` record (``running.start``):
        its validators, and the first attempt of an async ``execute`` that needs no
        approval, inline, in one stretch.  A call that goes well (most do) never reaches
        ``_execute``, which asks for approval, makes the attempts left and says why one
        failed, each attempt in a stretch of its own: skillc's own messages are logged
        outside, where the capture does not take them.  (One coroutine for the whole call:
        every step that can be is inline.)
        """
        started = _clock_ns()
        error_type: ErrorType | None = None
        guard: Guard | None = None
        try:
            loaded = self.store.ready_tool(self.name)  # imported already: it exists and has code
            arguments: dict[Any, Any] | None = None
            if loaded is None:
                loaded, arguments = await self._first_call()
            elif self.offered is not None:
                self._check_offered()
            if loaded is None:  # a client-side tool: the caller's handler gives the result
                output = await self._client_call()
            else:
                self.scope = loaded.scope
                self.context = self.context.for_call(self.call_id, self.name, loaded.entry.skill)
                self.output_model = loaded.tool.output_schema
                redirecting()
                # Validating the arguments and the first attempt of an async execute share one guard.
                guard = Guard(_clock() + loaded.timeout, loaded.label)
                first: Outcome[Any] | None = None
                running = start(self)
                try:
                    payload, arguments = self._arguments(loaded, arguments, guard)
                    if loaded.asynchronous and loaded.approval is False:
                        self.attempts = 1
                        # The first attempt takes the call's guard over.
                        begun = begin(
                            loaded.tool.execute,
                            (payload, self.context),
                            loaded.timeout,
                            loaded.label,
                            self._render,
                            guard,
                        )
                        first = begun if isinstance(begun, Outcome) else await begun
                finally:
                    stop(running)
                if first is not None and first.then_ran and first.error is None and not first.timed_out:
                    output = first.value  # type: ignore[assignment] # what _render returned: the result's text
                else:
                    if first is None and loaded.approval is not False and await self._needs_approval(loaded, payload):
                        await self._approve(arguments if arguments is not None else parse_arguments(self.arguments))
                    output = await self._execute(loaded, payload, first)
        except CallRefused as refusal:
            error_type, output = refusal.error_type, refusal.message
        except Exception as error:
            # The contract is a result, never an exception: whatever slipped through is a
            # skillc bug, reported as one, and the caller still gets its result.
            logger.exception("skillc failed while calling tool %r", self.name)
            error_type, output = "execution", f"The runtime failed while calling the tool: {describe_exception(error)}"
        finally:
            if guard is not None:
                guard.close()
        if self._heard is None:
            self._heard = _ENDED
        else:
            error_type, output = self._settle(error_type, output)
        # In milliseconds, to the microsecond (what round(..., 3) gives, at a fifth of its cost).
        duration = (_clock_ns() - started + 500) // 1000 / 1000
        if logger.isEnabledFor(logging.DEBUG):
            if self.capture.text:
                logger.debug("tool %r (call %s) printed:\n%s", self.name, self.call_id, self.capture.text)
            logger.debug(
                "tool %r (call %s) %s in %.1f ms", self.name, self.call_id, error_type or "succeeded", duration
            )
        return ToolResult.of_call(self.call_id, self.name, output, error_type, duration, self.attempts)

    async def _first_call(self) -> tuple[LoadedTool | None, dict[Any, Any] | None]:
        """The tool's first call: it exists and is offered, and its code loads; ``None`` for a client-side tool.

        The arguments are read before the import (and returned): arguments that cannot be
        read are refused without loading anything.
        """
        entry = self.store.tool_entry(self.name)
        if entry is None:
            self._unknown()
        self._check_offered()
        if entry.settings[CLIENT]:
            return None, None
        arguments = parse_arguments(self.arguments)
        return await self._load(entry.settings[TIMEOUT]), arguments

    def _check_offered(self) -> None:
        if self.offered is not None and self.name not in self.offered:
            refuse("not_offered", f"The tool {self.name!r} is not available right now; do not call it this turn.")

    async def _load(self, timeout: float) -> LoadedTool:
        """Import the tool's bundle (once per store); a bundle that cannot load refuses the call."""
        try:
            return await self.store.load_tool(self.name, timeout)
        except LoadError as error:
            logger.error("tool %r cannot run: %s", self.name, error)
            refuse("execution", f"The tool cannot run: {error}.")
        except TimeoutError:
            refuse("timeout", f"The tool's code did not load within {timeout:g} s.")

    def _render(self, value: object) -> str:
        """The tool's result validated against its output model (where it has one), then made JSON text; else refuse.

        ``begin``'s ``then`` for an async ``execute``: it runs on every call.
        """
        model = self.output_model
        if model is not None and not isinstance(value, model):
            value = _validated(
                model,
                value,
                "output_validation",
                "The tool's result does not match its output schema",
                "Validating the tool's result",
                from_attributes=True,
            )
        try:
            return to_json_text(value, limit=self.max_output_bytes)
        except SerializationFailure as error:
            _unserializable(error)

    async def _client_call(self) -> str:
        """A client-side tool's call (``client.call_client``): the caller's handler gives the result."""
        entry = self.store.tool_entry(self.name)
        assert entry is not None  # _first_call found it
        timeout = entry.settings[TIMEOUT]
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
        model, validate_json = loaded.input_model, loaded.validate_json
        raw = self.arguments
        if parsed is None and validate_json is not None and type(raw) is str and raw:
            if not suspect(raw, loaded.takes_floats):
                guard.enter()  # what guard.run does, without a closure: it runs on every call
                try:
                    # What model_validate_json does, without its Python layer.
                    return validate_json(raw), None
                except DeadlineExceeded:
                    refuse("timeout", f"Validating the arguments took longer than {loaded.timeout:g} s.")
                except CallRefused:
                    raise
                except Exception:  # noqa: BLE001 - read again below, to say exactly what is wrong
                    if guard.past():  # what it raised is the interruption, wrapped by pydantic
                        refuse("timeout", f"Validating the arguments took longer than {loaded.timeout:g} s.")
                finally:
                    guard.leave()
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
        if self.output_model is None and _plain(value):
            return self._render(value)
        running = start(self)
        try:
            text: str = drive_sync(
                lambda: self._render(value),
                loaded.timeout,
                loaded.label,
            )
        except DeadlineExceeded:
            _serialization_timed_out(loaded.timeout)
        except CallRefused:
            raise
        except Exception as error:  # a custom serializer of the tool's failed
            _serialization_failed(error)
        finally:
            stop(running)
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
            running=self,
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

    async def _attempt(self, loaded: LoadedTool, payload: Any) -> Outcome[Any]:
        """One run of ``execute``: its ``Outcome``, whose value is the result's JSON text for an async one.

        An async ``execute`` is awaited in this task rather than in a task or a thread of
        its own (a fraction of the cost per call), under a deadline that holds
        (``inline.begin``); its result is validated and serialized right after, under the
        same guard given the timeout anew (``then_ran``).  A sync one runs in the pool
        (``invoke``); its value is the result.  Either way, with this call as the record
        of what runs.
        """
        execute, context = loaded.tool.execute, self.context
        if loaded.asynchronous:
            running = start(self)
            try:
                started = begin(execute, (payload, context), loaded.timeout, loaded.label, self._render)
                return started if isinstance(started, Outcome) else await started
            finally:
                stop(running)
        return await invoke(
            self.store.pool,
            lambda: execute(payload, context),
            asynchronous=False,
            timeout=loaded.timeout,
            running=self,
            label=loaded.label,
        )

    async def _execute(self, loaded: LoadedTool, payload: Any, first: Outcome[Any] | None) -> str:
        """Run ``execute`` with the tool's timeout and retries; its result as JSON text, else refuse.

        ``first`` is how the first attempt ended when ``result`` made it already (an async
        ``execute``'s), else ``None``.  An attempt that timed out is retried only for a
        tool marked ``idempotent=True``: its code may still be running and have its
        effect, and a second attempt would run beside it.  A tool marked
        ``idempotent=False`` is never retried.  A result that fails its validation or
        serialization is not retried either.
        """
        timeout, tries = loaded.timeout, loaded.tries
        attempt, outcome = (0, None) if first is None else (1, first)
        while True:
            if outcome is None:
                attempt += 1
                self.attempts = attempt
                outcome = await self._attempt(loaded, payload)
            if outcome.then_ran:  # an async execute's result: its text, or why it has none
                if outcome.error is None and not outcome.timed_out:
                    return cast(str, outcome.value)  # what _render returned
                self._serialization_refused(outcome, timeout)
            if outcome.ok:  # a sync execute's result
                return self._serialize(loaded, outcome.value)
            what = (
                f"timed out after {timeout:g} s"
                if outcome.error is None
                else f"raised {describe_exception(outcome.error)}"
            )
            if outcome.timed_out and loaded.entry.settings[IDEMPOTENT] is not True:
                tries = attempt  # not retried: the attempt may still have its effect
            if attempt >= tries:
                break
            logger.warning("tool %r (call %s) %s; attempt %d of %d", self.name, self.call_id, what, attempt, tries)
            outcome = None
        error = outcome.error
        logger.warning(
            "tool %r (call %s) %s%s",
            self.name,
            self.call_id,
            what,
            _raised_in(error, loaded.scope) if error is not None else "",
            exc_info=(type(error), error, error.__traceback__) if error is not None else None,
        )
        after = f" (after {attempt} attempts)" if attempt > 1 else ""
        if error is None:
            refuse("timeout", f"The tool did not finish within {timeout:g} s{after}.")
        refuse("execution", f"The tool failed{after}: {describe_exception(error)}")


class _Heard:
    """What a call's code left undone: the coroutines it dropped, and the ``ctx.state`` values it was handed."""

    __slots__ = ("dropped", "handed")

    def __init__(self) -> None:
        self.dropped: list[str] = []
        self.handed: list[tuple[ToolState, str, object, str]] = []


#: ``_Call._heard`` once the call has its result.
_ENDED: Final = _Heard()
#: Held while what a call's code left undone is noted or read (a sync tool's thread and its tasks may both tell).
_HEARD_HELD: Final = threading.Lock()


def _raised_in(error: BaseException, scope: ImportScope | None) -> str:
    """`` (in _run, tools.files, line 42)``: where in the tool's own modules ``error`` was raised (the
    innermost of their frames in its traceback), for the log line a person reads; ``""`` when none is."""
    names = scope.names if scope is not None else frozenset()
    found = ""
    trace = error.__traceback__
    while trace is not None:
        frame = trace.tb_frame
        module = frame.f_globals.get("__name__")
        if module in names:
            found = f" (in {frame.f_code.co_name}, {module}, line {trace.tb_lineno})"
        trace = trace.tb_next
    return found


def _serialization_timed_out(timeout: float) -> NoReturn:
    refuse("serialization", f"Serializing the tool's result took longer than {timeout:g} s.")


def _serialization_failed(error: BaseException) -> NoReturn:
    """A custom serializer of the tool's failed."""
    refuse("serialization", f"Serializing the tool's result raised {describe_exception(error)}.")


def call_tool(
    store: DistStore,
    name: str,
    arguments: object,
    call_id: str,
    context: ToolContext | None,
    offered: Collection[str] | None = None,
    approver: Approver | None = None,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    client: ClientHandler | None = None,
) -> Coroutine[Any, Any, ToolResult]:
    """Run one call of a tool of ``store`` through every step (``await`` it); a ``ToolResult``
    always, never an exception.

    ``client`` gives the results of client-side tools (``client.ClientHandler``).
    """
    return _Call(store, name, arguments, call_id, context, offered, approver, max_output_bytes, client).result()
