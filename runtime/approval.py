"""Approval with edited arguments (TanStack AI's approval flow): approve, deny, or approve changed arguments.

An ``Approver`` answers ``True`` (approve), ``False`` (deny) or ``Edited(arguments)``: the
person approved the call with the arguments they edited.  The call then runs with those
instead, through the whole call path again (parsed and validated against the input schema
before anything runs, ``needs_approval`` asked again and answered by that approval), and
its result starts with a note that says what was approved, so that the model and the
thread (which keeps the conversation) both know::

    The user approved this call with edited arguments: {"order_id": "A1003"}
    {"order_id":"A1003","status":"cancelled"}

Edited arguments that fail validation give the validation error result, with the same
note: the tool did not run.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Final

from .call import Approver
from .client import ClientHandler
from .context import ToolContext
from .loader import Runtime
from .models import ToolCall
from .ownjson import write_json
from .results import ToolResult

__all__ = ["EDITED_NOTE", "Edited", "call_reviewed"]

EDITED_NOTE: Final = "The user approved this call with edited arguments: "


@dataclass(frozen=True)
class Edited:
    """An approver's answer: approved, with these arguments instead of the model's."""

    arguments: Mapping[str, Any]


async def _approved(name: str, arguments: dict[str, Any]) -> bool:
    return True


async def call_reviewed(
    runtime: Runtime,
    call: ToolCall,
    context: ToolContext,
    *,
    offered: Collection[str] | None,
    approver: Approver | None,
    client: ClientHandler | None = None,
) -> ToolResult:
    """Run ``call`` through the runtime; an ``Edited`` approval runs it again with the edited arguments.

    ``client`` gives the results of client-side tools.
    """
    if approver is None:
        return await runtime.call(call.name, call.arguments, call.id, context, offered=offered, client=client)
    edits: list[Mapping[str, Any]] = []
    asked = approver

    async def reviewing(name: str, arguments: dict[str, Any]) -> bool:
        answer = asked(name, arguments)
        if inspect.isawaitable(answer):
            answer = await answer
        if isinstance(answer, Edited):
            edits.append(answer.arguments)
            return False  # this call is not run; the edited one is
        return answer is True

    result = await runtime.call(
        call.name, call.arguments, call.id, context, offered=offered, approver=reviewing, client=client
    )
    if not edits or result.error_type != "approval_denied":
        return result
    edited = dict(edits[-1])
    again = await runtime.call(call.name, edited, call.id, context, offered=offered, approver=_approved, client=client)
    note = EDITED_NOTE + write_json(edited, ensure_ascii=False)
    return dataclasses.replace(again, output=f"{note}\n{again.output}")
