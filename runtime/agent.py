"""The agent loop: one user message in, tool calls run through the runtime, one answer out.

A turn:

1. evaluate every condition (``Runtime.offer``, within ``condition_budget`` seconds in
   all: a condition late past it is hidden for the turn): what is offered holds for it;
2. the system prompt is the agent's persona, then the context of each skill offered
   (``system_prompt``); the tools sent are the offered tools' ``tool.json`` definitions;
3. ask the model; if it answers without tool calls, the turn is over;
4. otherwise run its calls through ``Runtime.call`` (with ``offered=``, so a call to a
   tool that is not offered is refused), all at once, and append the results in the
   order of the calls; an error is a result like any other, so the model can correct
   itself; then ask again (3), at most ``max_steps`` times in all.

A model that will not stop is bounded: at most ``max_tool_calls_per_step`` calls of one
reply run (the others get a ``call_limit`` result), at most ``max_tool_calls_per_turn``
in the turn (a reply past it ends the turn, ``stopped`` with its ``reason``); a call
identical to one that failed this turn (tool, arguments) is not run again but answered
with the earlier result and a note, and after ``MAX_REPEATS`` such repeats the tool is
withdrawn for the rest of the turn; an ``approval_denied`` result says plainly that the
user refused and the tool must not be called again, and the tool is withdrawn for the
rest of the turn at once: a call of it with other arguments (a model that tries another
order id after a refused cancellation) is answered ``approval_denied`` without running,
and nobody is asked again before the next message.

``tool_choice`` makes the model call the offered ``required`` tools: while one of them
has not been called this turn, the step names the first such one (in manifest order) as
the function to call; once each has been called, the model chooses (``tool_choice`` is
not sent).  Naming one function, rather than ``"required"`` (which any tool satisfies),
is what makes sure the required tools themselves are called; it is also the form of
``tool_choice`` that OpenAI-compatible servers support most widely.

What the model gets of a result is ``compaction.model_view``: compacted by the loop's
``compactor`` for a ``compact`` tool, capped by ``max_output_chars``.  Lazy tools are sent
only once the built-in ``find_tools`` has found them (``discovery``); a call of one not
found yet is refused.  An approver may answer ``approval.Edited(arguments)``: the call
then runs with the person's arguments (``approval.call_reviewed``).  The loop's ``client``
handler gives the results of client-side tools (``client``), which have no code of their own.  With ``voice=True`` (a simulated voice session) the tools flagged
``ignore_on_enter`` are not offered on the conversation's first turn.

Every call and condition of every turn gets the loop's ``context``, so they share its
``state`` (``ctx.state``): the conversation's own data, which the caller keeps with the
conversation (``skill chat`` in the thread file).

The conversation (``messages``) only ever grows by whole steps: an assistant message is
appended together with the results of all its tool calls, so it is valid to send again
whatever happens in between.  A turn that fails (``ModelError``) or is cancelled before
any tool ran leaves the conversation as it found it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Final, Protocol, TypeVar

from ..contracts.errors import ConfigError, UsageError
from ..contracts.settings import LAZY, VOICE, Setting, ToolFlag
from .approval import call_reviewed
from .call import Approver
from .client import ClientHandler
from .compaction import Compactor, model_view
from .context import ToolContext
from .discovery import FIND_TOOLS, Discovery, found_names, visible
from .loader import Runtime
from .models import MODEL_KEYS, Message, Model, ModelSettings, Reply, ToolCall, ToolChoice, model_settings
from .offer import Offer
from .ownjson import read_json, write_json
from .results import ErrorType, ToolResult

__all__ = [
    "CHAT_KEYS",
    "DEFAULT_CONDITION_BUDGET",
    "DEFAULT_MAX_STEPS",
    "AgentLoop",
    "ChatConfig",
    "TurnEvents",
    "TurnResult",
    "chat_config",
    "system_prompt",
    "tool_choice",
]

DEFAULT_MAX_STEPS: Final = 20
#: At most this many tool calls of one model reply run; the others get an error result.
DEFAULT_MAX_TOOL_CALLS_PER_STEP: Final = 16
#: At most this many tool calls run in one turn; the turn ends when a reply asks for more.
DEFAULT_MAX_TOOL_CALLS_PER_TURN: Final = 64
#: A tool whose failed call the model repeated this many times is withdrawn for the turn.
MAX_REPEATS: Final = 3
#: A turn's offer waits at most this long (seconds) for all conditions together.
DEFAULT_CONDITION_BUDGET: Final = 2.0
#: The keys ``[tool.skill.chat]`` knows; others are reported as warnings.
CHAT_KEYS: Final = MODEL_KEYS | {
    "condition_budget",
    "max_steps",
    "max_tool_calls_per_step",
    "max_tool_calls_per_turn",
    "strict",
}
#: The plain name of the voice flag that hides a tool on the conversation's first turn.
IGNORE_ON_ENTER: Final = str(ToolFlag.IGNORE_ON_ENTER.name).lower()
T = TypeVar("T")
DENIED_NOTE: Final = (
    "The user refused this call. Do not call this tool again in this turn: tell the user that it was not done."
)


@dataclass(frozen=True)
class ChatConfig:
    """``[tool.skill.chat]`` with the flags and the environment applied."""

    model: ModelSettings
    max_steps: int = DEFAULT_MAX_STEPS
    max_tool_calls_per_step: int = DEFAULT_MAX_TOOL_CALLS_PER_STEP
    max_tool_calls_per_turn: int = DEFAULT_MAX_TOOL_CALLS_PER_TURN
    #: Seconds a turn's offer waits for the conditions; the late ones are hidden for the turn.
    condition_budget: float = DEFAULT_CONDITION_BUDGET
    #: What is wrong but not fatal in the table: unknown keys.
    warnings: tuple[str, ...] = ()


def chat_config(
    table: Mapping[str, object],
    *,
    model: str | None = None,
    base_url: str | None = None,
    max_steps: int | None = None,
    environ: Mapping[str, str],
) -> ChatConfig:
    """Read ``[tool.skill.chat]``; a flag given wins over the environment, which wins over the table."""
    if max_steps is not None and max_steps < 1:
        raise UsageError(f"--max-steps must be at least 1, not {max_steps}")
    steps = table.get("max_steps", DEFAULT_MAX_STEPS) if max_steps is None else max_steps
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ConfigError("[tool.skill.chat] max_steps must be a whole number of 1 or more")
    caps = []
    for key, default in (
        ("max_tool_calls_per_step", DEFAULT_MAX_TOOL_CALLS_PER_STEP),
        ("max_tool_calls_per_turn", DEFAULT_MAX_TOOL_CALLS_PER_TURN),
    ):
        cap = table.get(key, default)
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise ConfigError(f"[tool.skill.chat] {key} must be a whole number of 1 or more")
        caps.append(cap)
    budget = table.get("condition_budget", DEFAULT_CONDITION_BUDGET)
    if isinstance(budget, bool) or not isinstance(budget, int | float) or not math.isfinite(budget) or budget <= 0:
        raise ConfigError("[tool.skill.chat] condition_budget must be a number of seconds above 0")
    warnings = tuple(
        f"unknown key {key!r} in [tool.skill.chat] (known keys: {', '.join(sorted(CHAT_KEYS))})"
        for key in sorted(set(table) - CHAT_KEYS)
    )
    settings = model_settings(table, model=model, base_url=base_url, environ=environ)
    return ChatConfig(settings, steps, caps[0], caps[1], float(budget), warnings)


def system_prompt(persona: str, offer: Offer) -> str:
    """The persona, then each offered skill's context under a heading with the skill's name."""
    parts = [persona.strip()] if persona.strip() else []
    parts += [f"## {skill.name}\n{skill.context.strip()}" for skill in offer.skills if skill.context.strip()]
    return "\n\n".join(parts)


def tool_choice(offer: Offer, called: Collection[str]) -> ToolChoice | None:
    """The first offered ``required`` tool not called yet this turn, as a forced function; else ``None``."""
    for tool in offer.tools:
        if tool.required and tool.name not in called:
            return {"type": "function", "function": {"name": tool.name}}
    return None


class TurnEvents(Protocol):
    """What a turn reports as it happens, to show it: text, tool calls, their results."""

    def text(self, delta: str) -> None:
        """A piece of the assistant's text."""

    def reply(self, reply: Reply) -> None:
        """The model's reply for one step is complete."""

    def tool_started(self, call: ToolCall) -> None:
        """A tool call is about to run."""

    def tool_finished(self, call: ToolCall, result: ToolResult) -> None:
        """A tool call has its result."""


@dataclass(frozen=True)
class TurnResult:
    """How a turn ended."""

    #: The model's answer; empty when the step bound ended the turn.
    answer: str
    #: How many times the model was asked.
    steps: int
    #: Every tool result, in the order of the calls.
    results: tuple[ToolResult, ...] = ()
    #: The step bound (or the cap on tool calls per turn) ended the turn before the model answered.
    stopped: bool = False
    #: Why the turn was stopped, in words (empty when it was not).
    reason: str = ""
    offer: Offer | None = field(default=None, compare=False)


def _unique_ids(reply: Reply, step: int) -> Reply:
    """The reply with every tool call id present and distinct (some servers send none, or repeat one)."""
    seen: set[str] = set()
    calls: list[ToolCall] = []
    for index, call in enumerate(reply.tool_calls):
        call_id = call.id
        if not call_id or call_id in seen:
            call_id = f"call_{step}_{index + 1}"
        seen.add(call_id)
        calls.append(ToolCall(call_id, call.name, call.arguments))
    return Reply(reply.text, tuple(calls))


def _call_key(call: ToolCall) -> tuple[str, str]:
    """The tool and its arguments, spelled the same whatever the key order or spacing."""
    arguments = call.arguments
    try:
        arguments = write_json(read_json(arguments), sort_keys=True)  # skillc's own: tools cannot patch it
    except (TypeError, ValueError, RecursionError):
        pass
    return call.name, str(arguments)


def _error(call: ToolCall, output: str, error_type: ErrorType = "call_limit") -> ToolResult:
    """The result of a call the loop does not run."""
    return ToolResult(call.id, call.name, is_error=True, output=output, error_type=error_type)


@dataclass
class _Turn:
    """What a turn remembers of its calls: failures by call, repeats and withdrawals by tool."""

    offer: Offer
    failed: dict[tuple[str, str], ToolResult] = field(default_factory=dict)
    repeats: dict[str, int] = field(default_factory=dict)
    withdrawn: set[str] = field(default_factory=set)
    #: Tools a call of which the user refused (or nobody could approve) this turn: withdrawn too.
    refused: set[str] = field(default_factory=set)
    #: Tools a voice agent does not offer on the conversation's first turn (``ignore_on_enter``).
    entering: set[str] = field(default_factory=set)
    calls: int = 0
    capped: bool = False


class AgentLoop:
    """Runs turns of one agent against one model; the conversation is the caller's."""

    def __init__(
        self,
        runtime: Runtime,
        model: Model,
        context: ToolContext,
        *,
        max_steps: int = DEFAULT_MAX_STEPS,
        approver: Approver | None = None,
        events: TurnEvents | None = None,
        max_tool_calls_per_step: int = DEFAULT_MAX_TOOL_CALLS_PER_STEP,
        max_tool_calls_per_turn: int = DEFAULT_MAX_TOOL_CALLS_PER_TURN,
        condition_budget: float | None = DEFAULT_CONDITION_BUDGET,
        compactor: Compactor | None = None,
        voice: bool = False,
        client: ClientHandler | None = None,
    ) -> None:
        if max_steps < 1 or max_tool_calls_per_step < 1 or max_tool_calls_per_turn < 1:
            raise ValueError("max_steps and the caps on tool calls must be at least 1")
        if condition_budget is not None and not condition_budget > 0:
            raise ValueError("condition_budget must be above 0 (or None: no budget)")
        self.runtime = runtime
        self.model = model
        self.context = context
        self.max_steps = max_steps
        self.max_tool_calls_per_step = max_tool_calls_per_step
        self.max_tool_calls_per_turn = max_tool_calls_per_turn
        self.approver = approver
        self.events = events
        #: Seconds each turn's offer waits for the conditions (``None``: their own timeouts only).
        self.condition_budget = condition_budget
        #: Compresses the results of ``compact`` tools (``None``: they are sent as they are, capped).
        self.compactor = compactor
        #: A simulated voice session: ``ignore_on_enter`` tools are hidden on the conversation's first turn.
        self.voice = voice
        #: Gives the results of client-side tools (``None``: their calls are error results the model reads).
        self.client = client
        #: Tool calls started in the turn in progress.
        self._started = 0

    async def turn(self, messages: list[Message], text: str) -> TurnResult:
        """Add the user's ``text`` to ``messages``, run the turn, return how it ended.

        ``messages`` grows by the user message, then by each step's assistant message
        and tool results; a ``ModelError`` (or a cancellation) before any tool ran
        removes what the turn added.
        """
        start = len(messages)
        entering = not any(message.get("role") == "user" for message in messages)
        messages.append({"role": "user", "content": text})
        self._started = 0
        try:
            return await self._steps(messages, entering)
        except BaseException:
            if not self._started:
                del messages[start:]
            raise

    async def _steps(self, messages: list[Message], entering: bool) -> TurnResult:
        results: list[ToolResult] = []
        offer = await self.runtime.offer(self.context, budget=self.condition_budget)
        prompt = system_prompt(self.runtime.manifest.agent.persona, offer)
        system: list[Message] = [{"role": "system", "content": prompt}] if prompt else []
        called: set[str] = set()
        turn = _Turn(offer)
        if self.voice and entering:  # the voice agent enters the conversation: these wait for a later turn
            turn.entering.update(t.name for t in offer.tools if IGNORE_ON_ENTER in self._setting(t.name, VOICE))
        for step in range(1, self.max_steps + 1):
            offered, discovery = self._step_offer(turn, messages)
            definitions = offered.definitions + ([discovery.definition()] if discovery is not None else [])
            reply = await self.model.respond(
                [*system, *messages],
                definitions,
                tool_choice=tool_choice(offered, called),
                on_text=self.events.text if self.events is not None else None,
            )
            reply = _unique_ids(reply, step)
            if self.events is not None:
                self.events.reply(reply)
            if not reply.tool_calls:
                messages.append(reply.to_message())
                return TurnResult(reply.text, step, tuple(results), offer=offer)
            outcomes = await self._run_calls(reply.tool_calls, offered, turn, discovery)
            called.update(call.name for call in reply.tool_calls)
            results.extend(outcomes)
            messages.append(reply.to_message())
            messages.extend(
                {"role": "tool", "tool_call_id": result.call_id, "content": result.output} for result in outcomes
            )
            if turn.capped:
                reason = f"the model asked for more than {self.max_tool_calls_per_turn} tool calls this turn"
                return TurnResult("", step, tuple(results), stopped=True, reason=reason, offer=offer)
        reason = f"the model was asked {self.max_steps} times and still called tools instead of answering"
        return TurnResult("", self.max_steps, tuple(results), stopped=True, reason=reason, offer=offer)

    def _setting(self, name: str, setting: Setting[T]) -> T:
        entry = self.runtime.tool_entry(name)
        return entry.settings[setting] if entry is not None else setting.default

    def _step_offer(self, turn: _Turn, messages: list[Message]) -> tuple[Offer, Discovery | None]:
        """What this step sends: the turn's offer less the withdrawn tools and the lazy ones not found yet.

        ``find_tools`` comes with it while a lazy tool is unfound (unless a tool of the agent has that name).
        """
        tools = [tool for tool in turn.offer.tools if tool.name not in turn.withdrawn | turn.refused | turn.entering]
        lazy = frozenset(tool.name for tool in tools if self._setting(tool.name, LAZY))
        if self.runtime.tool_entry(FIND_TOOLS) is not None:
            lazy = frozenset()
        found = found_names(messages) if lazy else set()
        unfound = tuple(tool for tool in tools if tool.name in lazy and tool.name not in found)
        shown = dataclasses.replace(turn.offer, tools=tuple(visible(tools, lazy, found)))
        if not unfound:
            return shown, None
        return shown, Discovery(unfound, strict=all(tool.definition.get("strict") is True for tool in tools))

    async def _run_calls(
        self, calls: tuple[ToolCall, ...], offered: Offer, turn: _Turn, discovery: Discovery | None = None
    ) -> list[ToolResult]:
        """Run one reply's calls at once, except repeats of failed calls and calls past a cap."""
        outcomes: list[ToolResult | None] = [None] * len(calls)
        running: list[tuple[int, ToolCall]] = []
        for index, call in enumerate(calls):
            earlier = turn.failed.get(_call_key(call))
            if discovery is not None and call.name in discovery.names:
                outcomes[index] = _error(
                    call, f"Not run: {call.name} is not listed yet. Call {FIND_TOOLS} to find it first.", "not_offered"
                )
            elif call.name in turn.refused:
                outcomes[index] = _error(
                    call, f"Not run: a call of {call.name} was refused in this turn.\n{DENIED_NOTE}", "approval_denied"
                )
            elif call.name in turn.withdrawn:
                outcomes[index] = _error(
                    call, f"Not run: {call.name} was withdrawn for this turn after its failed call was repeated."
                )
            elif index >= self.max_tool_calls_per_step:
                outcomes[index] = _error(
                    call, f"Not run: at most {self.max_tool_calls_per_step} tool calls run per reply."
                )
            elif earlier is not None:
                turn.repeats[call.name] = repeats = turn.repeats.get(call.name, 0) + 1
                if repeats >= MAX_REPEATS:
                    turn.withdrawn.add(call.name)
                note = "Not run again: this exact call already failed in this turn, with this result. Do not repeat it."
                outcomes[index] = dataclasses.replace(earlier, call_id=call.id, output=f"{note}\n{earlier.output}")
            elif turn.calls >= self.max_tool_calls_per_turn:
                turn.capped = True
                outcomes[index] = _error(
                    call, f"Not run: at most {self.max_tool_calls_per_turn} tool calls run per turn."
                )
            else:
                turn.calls += 1
                running.append((index, call))
        done = await asyncio.gather(*(self._call(call, offered, discovery) for _, call in running))
        for (index, call), result in zip(running, done, strict=True):
            if result.error_type == "approval_denied":
                result = dataclasses.replace(result, output=f"{result.output}\n{DENIED_NOTE}")
                turn.refused.add(call.name)
            if result.is_error:
                turn.failed.setdefault(_call_key(call), result)
            outcomes[index] = result
        return [result for result in outcomes if result is not None]

    async def _call(self, call: ToolCall, offer: Offer, discovery: Discovery | None = None) -> ToolResult:
        self._started += 1
        if self.events is not None:
            self.events.tool_started(call)
        entry = self.runtime.tool_entry(call.name)
        if discovery is not None and call.name == FIND_TOOLS:
            result = discovery.answer(call)
        else:
            result = await call_reviewed(
                self.runtime, call, self.context, offered=offer.names, approver=self.approver, client=self.client
            )
        if entry is not None:
            view = await model_view(call.name, result.output, entry.settings, self.compactor, is_error=result.is_error)
            result = dataclasses.replace(result, output=view.text)
        if self.events is not None:
            self.events.tool_finished(call, result)
        return result
