"""The agent loop: one user message in, tool calls run through the runtime, one answer out.

A turn:

1. evaluate every condition (``Runtime.offer``): what is offered holds for the turn;
2. the system prompt is the agent's persona, then the context of each skill offered
   (``system_prompt``); the tools sent are the offered tools' ``tool.json`` definitions;
3. ask the model; if it answers without tool calls, the turn is over;
4. otherwise run its calls through ``Runtime.call`` (with ``offered=``, so a call to a
   tool that is not offered is refused), all at once, and append the results in the
   order of the calls; an error is a result like any other, so the model can correct
   itself; then ask again (3), at most ``max_steps`` times in all.

``tool_choice`` makes the model call the offered ``required`` tools: while one of them
has not been called this turn, the step names the first such one (in manifest order) as
the function to call; once each has been called, the model chooses (``tool_choice`` is
not sent).  Naming one function, rather than ``"required"`` (which any tool satisfies),
is what makes sure the required tools themselves are called; it is also the form of
``tool_choice`` that OpenAI-compatible servers support most widely.

The conversation (``messages``) only ever grows by whole steps: an assistant message is
appended together with the results of all its tool calls, so it is valid to send again
whatever happens in between.  A turn that fails (``ModelError``) or is cancelled before
any tool ran leaves the conversation as it found it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Final, Protocol

from ..contracts.errors import ConfigError, UsageError
from .call import Approver
from .context import ToolContext
from .loader import Runtime
from .models import Message, Model, ModelSettings, Reply, ToolCall, ToolChoice, model_settings
from .offer import Offer
from .results import ToolResult

__all__ = [
    "CHAT_KEYS",
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
#: The keys ``[tool.skill.chat]`` knows; others are reported as warnings.
CHAT_KEYS: Final = frozenset({"model", "base_url", "max_steps", "stream", "timeout", "max_retries"})


@dataclass(frozen=True)
class ChatConfig:
    """``[tool.skill.chat]`` with the flags and the environment applied."""

    model: ModelSettings
    max_steps: int = DEFAULT_MAX_STEPS
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
    warnings = tuple(
        f"unknown key {key!r} in [tool.skill.chat] (known keys: {', '.join(sorted(CHAT_KEYS))})"
        for key in sorted(set(table) - CHAT_KEYS)
    )
    settings = model_settings(table, model=model, base_url=base_url, environ=environ)
    return ChatConfig(settings, steps, warnings)


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
    #: The step bound ended the turn before the model answered.
    stopped: bool = False
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
    ) -> None:
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.runtime = runtime
        self.model = model
        self.context = context
        self.max_steps = max_steps
        self.approver = approver
        self.events = events
        #: Tool calls started in the turn in progress.
        self._started = 0

    async def turn(self, messages: list[Message], text: str) -> TurnResult:
        """Add the user's ``text`` to ``messages``, run the turn, return how it ended.

        ``messages`` grows by the user message, then by each step's assistant message
        and tool results; a ``ModelError`` (or a cancellation) before any tool ran
        removes what the turn added.
        """
        start = len(messages)
        messages.append({"role": "user", "content": text})
        self._started = 0
        try:
            return await self._steps(messages)
        except BaseException:
            if not self._started:
                del messages[start:]
            raise

    async def _steps(self, messages: list[Message]) -> TurnResult:
        results: list[ToolResult] = []
        offer = await self.runtime.offer(self.context)
        prompt = system_prompt(self.runtime.manifest.agent.persona, offer)
        system: list[Message] = [{"role": "system", "content": prompt}] if prompt else []
        called: set[str] = set()
        for step in range(1, self.max_steps + 1):
            reply = await self.model.respond(
                [*system, *messages],
                offer.definitions,
                tool_choice=tool_choice(offer, called),
                on_text=self.events.text if self.events is not None else None,
            )
            reply = _unique_ids(reply, step)
            if self.events is not None:
                self.events.reply(reply)
            if not reply.tool_calls:
                messages.append(reply.to_message())
                return TurnResult(reply.text, step, tuple(results), offer=offer)
            outcomes = await asyncio.gather(*(self._call(call, offer) for call in reply.tool_calls))
            called.update(call.name for call in reply.tool_calls)
            results.extend(outcomes)
            messages.append(reply.to_message())
            messages.extend(
                {"role": "tool", "tool_call_id": result.call_id, "content": result.output} for result in outcomes
            )
        return TurnResult("", self.max_steps, tuple(results), stopped=True, offer=offer)

    async def _call(self, call: ToolCall, offer: Offer) -> ToolResult:
        self._started += 1
        if self.events is not None:
            self.events.tool_started(call)
        result = await self.runtime.call(
            call.name, call.arguments, call.id, self.context, offered=offer.names, approver=self.approver
        )
        if self.events is not None:
            self.events.tool_finished(call, result)
        return result
