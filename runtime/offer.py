"""Decide what the model is offered this turn: every ``condition()``, at once, failing closed.

Each skill's and tool's condition runs concurrently (sync ones in the runtime's
worker threads, async ones as tasks), inside the turn's ``ToolContext`` so that
``ToolContext.current()`` works, under a timeout.  Anything but ``True`` hides: a
``False``, an exception, a timeout, a bundle that cannot be loaded.  A hidden skill
hides its tools and its context.  Every hidden item is logged (logger
``skillc.runtime``) with the reason, which the ``Offer`` also keeps.

Only tools with a condition have their bundle imported here; the others are offered
from their ``tool.json`` alone.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, TypeAlias

from ..contracts.settings import REQUIRED
from .capture import Capture
from .context import ToolContext
from .imports import ImportScope
from .serialize import describe_exception
from .store import DistStore, LoadError
from .workers import invoke

__all__ = ["Hidden", "Kind", "Offer", "OfferedSkill", "OfferedTool", "build_offer"]

logger = logging.getLogger("skillc.runtime")

Kind: TypeAlias = Literal["skill", "tool"]


@dataclass(frozen=True)
class OfferedTool:
    """A tool the model may call this turn."""

    name: str
    skill: str
    #: ``tool.json``: ``{"type": "function", "name", "description", "parameters", "strict"}``.
    definition: Mapping[str, Any]
    #: The model must call it (``tool_choice``).
    required: bool = False


@dataclass(frozen=True)
class OfferedSkill:
    """A skill whose context goes into the system prompt this turn."""

    name: str
    description: str
    context: str


@dataclass(frozen=True)
class Hidden:
    """A skill or tool not offered this turn, and why."""

    kind: Kind
    name: str
    reason: str


@dataclass(frozen=True)
class Offer:
    """What one turn offers: tools with their definitions, skills with their contexts."""

    tools: tuple[OfferedTool, ...]
    skills: tuple[OfferedSkill, ...]
    hidden: tuple[Hidden, ...]

    @property
    def names(self) -> frozenset[str]:
        """The offered tools' names: what ``Runtime.call(..., offered=...)`` takes."""
        return frozenset(tool.name for tool in self.tools)

    @property
    def definitions(self) -> list[Mapping[str, Any]]:
        """The offered tools' function definitions, in manifest order."""
        return [tool.definition for tool in self.tools]

    @property
    def contexts(self) -> dict[str, str]:
        """Each offered skill's context, by skill name, in agent order."""
        return {skill.name: skill.context for skill in self.skills}

    def reason(self, name: str, kind: Kind = "tool") -> str | None:
        """Why ``name`` is hidden, or ``None`` if it is not."""
        return next((item.reason for item in self.hidden if item.kind == kind and item.name == name), None)


class _Item(NamedTuple):
    """A skill or tool whose ``condition()`` is asked."""

    kind: Kind
    name: str


@dataclass(frozen=True)
class _Hiding:
    """Why an item is hidden this turn."""

    reason: str
    #: A condition that said ``False`` is routine; one that failed is worth a warning.
    failed: bool = True


async def _why_hidden(store: DistStore, item: _Item, context: ToolContext, timeout: float) -> _Hiding | None:
    """Why the item's condition hides it this turn; ``None`` when it says the item is offered."""
    kind, name = item
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    condition: Callable[[], Any] | None
    scope: ImportScope | None
    try:
        if kind == "skill":
            condition = await store.load_skill_condition(name, timeout)
            scope = store.condition_scope(name)
        else:
            loaded = await store.load_tool(name, timeout)
            condition, scope = loaded.tool.condition_function, loaded.scope
    except LoadError as error:
        return _Hiding(f"its code cannot be loaded: {error}")
    except TimeoutError:
        return _Hiding(f"loading its code took longer than {timeout:g} s")
    if condition is None:
        return None
    printed = Capture()
    outcome = await invoke(
        store.pool,
        condition,
        asynchronous=inspect.iscoroutinefunction(condition),
        timeout=max(0.0, deadline - loop.time()),
        capture=printed,
        context=context,
        scope=scope,
    )
    if printed.text:
        logger.debug("the condition of %s %r printed:\n%s", kind, name, printed.text)
    if outcome.timed_out:
        return _Hiding(f"its condition() did not return within {timeout:g} s")
    if outcome.error is not None:
        return _Hiding(f"its condition() raised {describe_exception(outcome.error)}")
    if outcome.value is True:
        return None
    if outcome.value is False:
        return _Hiding("its condition() returned False", failed=False)
    return _Hiding(f"its condition() returned {type(outcome.value).__name__}, not True or False")


def _hide(hidden: list[Hidden], item: _Item, why: _Hiding) -> None:
    hidden.append(Hidden(item.kind, item.name, why.reason))
    level = logging.WARNING if why.failed else logging.INFO
    logger.log(level, "%s %r is hidden this turn: %s", item.kind, item.name, why.reason)


async def build_offer(
    store: DistStore, context: ToolContext, timeout: float, *, only: Collection[str] | None = None
) -> Offer:
    """Evaluate every condition of ``store``'s dist concurrently and say what is offered; never raises.

    ``only`` (tool names) restricts the offer to those tools and their skills: no other
    condition runs, so one slow condition elsewhere cannot delay a single call.
    """
    manifest = store.manifest
    order = {name: index for index, name in enumerate(manifest.agent.skills)}
    tools = list(manifest.tools)
    skills = sorted(manifest.skills, key=lambda skill: order.get(skill.name, len(order)))
    if only is not None:
        wanted = set(only)
        tools = [tool for tool in tools if tool.name in wanted]
        owners = {tool.skill for tool in tools}
        skills = [skill for skill in skills if skill.name in owners]
    checks = [_Item("skill", skill.name) for skill in skills if skill.condition is not None]
    checks += [_Item("tool", tool.name) for tool in tools if tool.has_condition]

    def scoped(item: _Item) -> ToolContext:
        if item.kind == "skill":
            return dataclasses.replace(context, tool=None, skill=item.name)
        entry = store.tool_entry(item.name)
        return dataclasses.replace(context, tool=item.name, skill=entry.skill if entry else None)

    reasons = await asyncio.gather(*(_why_hidden(store, item, scoped(item), timeout) for item in checks))
    hiding = {item: why for item, why in zip(checks, reasons, strict=True) if why is not None}

    hidden: list[Hidden] = []
    offered_skills: list[OfferedSkill] = []
    for skill in skills:
        item = _Item("skill", skill.name)
        why = hiding.get(item)
        if why is not None:
            _hide(hidden, item, why)
        else:
            offered_skills.append(OfferedSkill(skill.name, skill.description, skill.context))
    shown_skills = {skill.name for skill in offered_skills}

    candidates: list[str] = []
    for tool in tools:
        item = _Item("tool", tool.name)
        why = hiding.get(item)
        if tool.skill not in shown_skills:
            why = _Hiding(f"its skill {tool.skill!r} is hidden", failed=False)
        if why is not None:
            _hide(hidden, item, why)
        else:
            candidates.append(tool.name)

    definitions = await store.definitions(candidates, timeout)
    offered: list[OfferedTool] = []
    for name in candidates:
        definition = definitions[name]
        if isinstance(definition, str):
            _hide(hidden, _Item("tool", name), _Hiding(f"its definition cannot be read: {definition}"))
            continue
        entry = store.tool_entry(name)
        assert entry is not None
        offered.append(OfferedTool(name, entry.skill, definition, entry.settings[REQUIRED]))
    return Offer(tuple(offered), tuple(offered_skills), tuple(hidden))
