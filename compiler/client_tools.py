"""Client-side tools (TanStack AI's ``toolDefinition(...).client()``): a tool whose result comes
from the caller, so it ships no code.

A tool that sets ``client = True`` is compiled with its schemas and no bundle.  It must
therefore have nothing to run: no ``execute`` (a method, ``execute=``, or a ``@tool``
function whose body does more than a docstring, ``...`` and ``pass``), no ``condition()``
and no ``needs_approval`` function.  Each such piece of code is reported where it is.
"""

from __future__ import annotations

from .evaluate import Evaluator, Unsupported
from .index_types import Const, Expr
from .resolve import Linker
from .tool_drafts import ToolDraft, setting_of
from .types import Pos

__all__ = ["check_client_tool", "declares_client"]

_NO_CODE = "so it must have no {what}: its result comes from the caller, and it ships no code"


def declares_client(linker: Linker, values: Evaluator, draft: ToolDraft) -> bool:
    """Whether the tool sets ``client`` to ``True`` (a value that cannot be read is reported with the settings)."""
    found = setting_of(linker, draft, "client")
    if found is None:
        return False
    try:
        return values.value(found[0], found[1]) is True
    except Unsupported:
        return False


def _given(expr: Expr | None) -> bool:
    return expr is not None and not (isinstance(expr, Const) and expr.value is None)


def check_client_tool(linker: Linker, draft: ToolDraft, name: str, *, approval_per_call: bool) -> bool:
    """Report each piece of code a client tool has (``skill/client-tool-execute``, ``skill/client-tool-condition``);
    whether it has none, so that it compiles."""
    found: list[tuple[str, str, Pos, str]] = []
    where = f"tool {name!r} is client-side (client = True), "
    if draft.cls is not None:
        execute = linker.class_method(draft.cls, "execute")
        if execute is not None:
            found.append(("skill/client-tool-execute", execute[0].module, execute[1].pos, "execute method"))
        condition = linker.class_method(draft.cls, "condition")
        if condition is not None:
            found.append(("skill/client-tool-condition", condition[0].module, condition[1].pos, "condition()"))
    else:
        if draft.call is not None and _given(draft.call.keyword("execute")):
            expr = draft.call.keyword("execute")
            assert expr is not None
            found.append(("skill/client-tool-execute", draft.module, expr.pos, "execute"))
        if draft.function is not None and draft.function.code_at is not None:
            found.append(("skill/client-tool-execute", draft.module, draft.function.code_at, "function body"))
        condition_expr = setting_of(linker, draft, "condition")
        if condition_expr is not None and _given(condition_expr[1]):
            found.append(("skill/client-tool-condition", condition_expr[0], condition_expr[1].pos, "condition"))
    if approval_per_call:
        given = setting_of(linker, draft, "needs_approval")
        module, pos = (given[0], given[1].pos) if given is not None else (draft.module, draft.pos)
        if draft.cls is not None and given is None:
            method = linker.class_method(draft.cls, "needs_approval")
            if method is not None:
                module, pos = method[0].module, method[1].pos
        found.append(("skill/client-tool-execute", module, pos, "needs_approval function"))
    for code, module, pos, what in found:
        if code == "skill/client-tool-condition":
            message = where + "so it cannot have a condition(): a condition is code, and a client tool ships none"
            hint = "remove the condition (the caller decides what it offers), or set client = False and add an execute"
        elif what == "function body":
            message = where + "so its function's body must be only a docstring and/or `...`: the body would never run"
            hint = "replace the body with `...`, or drop client=True to run the function as the tool"
        else:
            message = where + _NO_CODE.format(what=what)
            hint = "remove it, or drop client = True to run the tool's own code"
        linker.report(code, module, pos, message, hint=hint)
    return not found
