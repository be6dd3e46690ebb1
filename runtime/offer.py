"""Decide what the model is offered this turn: every ``condition()``, at once, failing closed.

Each skill's and tool's condition runs concurrently (sync ones in the runtime's
worker threads, async ones as tasks), inside the turn's ``ToolContext`` so that
``ToolContext.current()`` works, under a timeout.  Anything but ``True`` hides: a
``False``, an exception, a timeout, a bundle that cannot be loaded.  A hidden skill
hides its tools and its context.  Every hidden item is logged (logger
``skillc.runtime``) with the reason, which the ``Offer`` also keeps.

Only tools with a condition have their bundle imported here; the others are offered
from their ``tool.json`` alone.

A *budget* (``skill chat``: ``condition_budget`` in ``[tool.skill.chat]``, 2 s by
default) bounds the whole offer, on top of each condition's own timeout: conditions
that have not answered when it runs out are hidden for the turn ("did not answer
within the turn's ... budget"), and their evaluation is cancelled (an async one's task)
or abandoned (a sync one's thread, which cannot be stopped, is written off).  One
evaluation of a condition at most runs at a time: while an earlier one is still
running, an offer with a budget hides the item again without starting another, so a
hanging sync condition holds one thread, not one more per turn.  Without a budget
(``skill test``), only the per-condition timeout applies.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import threading
import weakref
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, TypeAlias

from ..contracts.settings import REQUIRED
from .capture import Capture
from .context import ToolContext
from .imports import ImportScope
from .running import Running
from .serialize import describe_exception
from .store import DistStore, LoadError
from .unawaited import Drops
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


class _Run:
    """One evaluation of a condition: ``pending`` until its code starts, then ``running``."""

    __slots__ = ("state",)

    def __init__(self) -> None:
        self.state = "pending"


#: Each store's conditions being evaluated, by item: at most one evaluation each at a time.
_RUNNING: weakref.WeakKeyDictionary[DistStore, dict[_Item, _Run]] = weakref.WeakKeyDictionary()
_RUNNING_LOCK = threading.Lock()


def _running(store: DistStore) -> dict[_Item, _Run]:
    with _RUNNING_LOCK:
        return _RUNNING.setdefault(store, {})


def _busy(store: DistStore, item: _Item) -> bool:
    """An earlier evaluation of the item's condition is still going."""
    with _RUNNING_LOCK:
        return item in _RUNNING.get(store, {})


def _tracked(store: DistStore, item: _Item, condition: Callable[[], Any]) -> tuple[Callable[[], Any], _Run]:
    """``condition`` wrapped so that the item counts as running until its code ends."""
    runs = _running(store)
    run = _Run()
    with _RUNNING_LOCK:
        runs[item] = run

    def start() -> bool:
        with _RUNNING_LOCK:
            if run.state != "pending":
                return False  # given up on before it started: never run it
            run.state = "running"
            return True

    def end() -> None:
        with _RUNNING_LOCK:
            run.state = "done"
            if runs.get(item) is run:
                del runs[item]

    if inspect.iscoroutinefunction(condition):

        async def tracked_async() -> Any:
            if not start():
                return None
            try:
                return await condition()
            finally:
                end()

        return tracked_async, run

    def tracked() -> Any:
        if not start():
            return None
        try:
            return condition()
        finally:
            end()

    return tracked, run


def _settle(store: DistStore, item: _Item, run: _Run) -> None:
    """After the wait: an evaluation that never started never will; forget it."""
    with _RUNNING_LOCK:
        if run.state == "pending":
            run.state = "cancelled"
            runs = _RUNNING.get(store, {})
            if runs.get(item) is run:
                del runs[item]


@dataclass(frozen=True)
class _Hiding:
    """Why an item is hidden this turn."""

    reason: str
    #: A condition that said ``False`` is routine; one that failed is worth a warning.
    failed: bool = True
    #: Its time ran out (loading, or its condition): what an offer with a budget no longer than
    #: that time reports as the budget's.
    late: bool = False


async def _why_hidden(store: DistStore, item: _Item, context: ToolContext, timeout: float) -> _Hiding | None:
    """Why the item's condition hides it this turn; ``None`` when it says the item is offered.

    Cancelled (the turn's budget ran out), it abandons the condition's evaluation.
    """
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
        return _Hiding(f"loading its code took longer than {timeout:g} s", late=True)
    if condition is None:
        return None
    printed, drops = Capture(), Drops()
    function, run = _tracked(store, item, condition)
    try:
        outcome = await invoke(
            store.pool,
            function,
            asynchronous=inspect.iscoroutinefunction(condition),
            timeout=max(0.0, deadline - loop.time()),
            running=Running(scope, context, printed, drops),
            label=f"the condition of {kind} {name!r}",
        )
    finally:
        _settle(store, item, run)
    if printed.text:
        logger.debug("the condition of %s %r printed:\n%s", kind, name, printed.text)
    if outcome.timed_out:
        return _Hiding(f"its condition() did not return within {timeout:g} s", late=True)
    if outcome.error is not None:
        return _Hiding(f"its condition() raised {describe_exception(outcome.error)}")
    if drops.heard:  # its answer left work undone: fail closed
        more = f" (and {len(drops.heard) - 1} more)" if len(drops.heard) > 1 else ""
        return _Hiding(f"its condition() made a coroutine that nothing awaited: {drops.heard[0]}{more}")
    if outcome.value is True:
        return None
    if outcome.value is False:
        return _Hiding("its condition() returned False", failed=False)
    return _Hiding(f"its condition() returned {type(outcome.value).__name__}, not True or False")


def _hide(hidden: list[Hidden], item: _Item, why: _Hiding) -> None:
    hidden.append(Hidden(item.kind, item.name, why.reason))
    level = logging.WARNING if why.failed else logging.INFO
    logger.log(level, "%s %r is hidden this turn: %s", item.kind, item.name, why.reason)


async def _evaluate(
    store: DistStore,
    checks: list[_Item],
    scoped: Callable[[_Item], ToolContext],
    timeout: float,
    budget: float | None,
) -> dict[_Item, _Hiding]:
    """Why each hidden item of ``checks`` is hidden; with a budget, within it, failing closed."""
    if budget is None:
        reasons = await asyncio.gather(*(_why_hidden(store, item, scoped(item), timeout) for item in checks))
        return {item: why for item, why in zip(checks, reasons, strict=True) if why is not None}
    late = f"its condition() did not answer within the turn's {budget:g} s budget"
    hiding: dict[_Item, _Hiding] = {}
    tasks: dict[asyncio.Task[_Hiding | None], _Item] = {}
    for item in checks:
        if _busy(store, item):
            hiding[item] = _Hiding(f"{late} (its evaluation from an earlier turn is still running)")
        else:
            # Within the budget too: an async condition that blocks the loop is stopped by then.
            task = asyncio.create_task(_why_hidden(store, item, scoped(item), min(timeout, budget)))
            tasks[task] = item
    if not tasks:
        return hiding
    done, pending = await asyncio.wait(tasks, timeout=budget)
    for task in pending:
        task.cancel()
        hiding[tasks[task]] = _Hiding(late)
    if pending:  # cancelling abandons at once (nothing waits for the condition's code)
        await asyncio.wait(pending, timeout=1.0)
    for task in done:
        why = task.result()
        if why is not None:
            # Given the budget as its own timeout, it ran out with the budget, whichever clock said so first.
            hiding[tasks[task]] = _Hiding(late) if why.late and budget <= timeout else why
    return hiding


async def build_offer(
    store: DistStore,
    context: ToolContext,
    timeout: float,
    *,
    only: Collection[str] | None = None,
    budget: float | None = None,
) -> Offer:
    """Evaluate every condition of ``store``'s dist concurrently and say what is offered; never raises.

    ``only`` (tool names) restricts the offer to those tools and their skills: no other
    condition runs, so one slow condition elsewhere cannot delay a single call.
    ``budget`` (seconds) bounds the wait for all conditions together (see the module).
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

    hiding = await _evaluate(store, checks, scoped, timeout, budget)

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
