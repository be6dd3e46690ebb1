"""A tool definition found in the project, and where each of its settings is written.

The three forms write settings in three places: class attributes (along the bases), the
keywords of ``@tool(...)``, the keywords of ``Tool(...)``.  ``setting_of`` finds one for
any form, so that what reads settings never asks which form it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .index_types import Call, Expr, FunctionInfo
from .resolve import Linker
from .symbols import ClassSym
from .types import Pos

__all__ = ["ToolDraft", "setting_of", "tool_decorator"]


@dataclass
class ToolDraft:
    """A tool definition found in the project, before its settings are read."""

    form: Literal["class", "function", "object"]
    module: str
    qualname: str
    pos: Pos
    cls: ClassSym | None = None
    function: FunctionInfo | None = None
    call: Call | None = None
    #: The literal arguments of the registration ``Lookup(...)`` of a class-form tool.
    init_arguments: tuple[object, ...] = ()
    init_keywords: tuple[tuple[str, object], ...] = ()
    #: Where that registration is: its module and position.
    registration: tuple[str, Pos] | None = None
    #: For a function made a tool by a call, ``lookup_tool = tool(lookup)`` or ``tool(...)(lookup)``:
    #: what stands for its ``@tool`` decorator (``tool``, or the ``tool(...)`` call with its settings).
    decorator: Expr | None = None


def tool_decorator(linker: Linker, module: str, function: FunctionInfo) -> Expr | None:
    """The ``@tool`` or ``@tool(...)`` decorator of ``function``, if it has one."""
    for decorator in function.decorators:
        target = decorator.func if isinstance(decorator, Call) else decorator
        if linker.is_sdk(module, target, "tool"):
            return decorator
    return None


def function_decorator(linker: Linker, draft: ToolDraft) -> Expr | None:
    """What makes a function draft a tool: its ``@tool``/``@tool(...)`` decorator, or the call that stands for one."""
    if draft.decorator is not None:
        return draft.decorator
    assert draft.function is not None
    return tool_decorator(linker, draft.module, draft.function)


def setting_of(linker: Linker, draft: ToolDraft, name: str) -> tuple[str, Expr] | None:
    """Where a setting is given and its expression, for any form."""
    if draft.cls is not None:
        found = linker.class_attribute(draft.cls, name)
        if found is None or found[1].value is None:
            return None
        return found[0].module, found[1].value
    if draft.call is not None:
        value = draft.call.keyword(name)
        return (draft.module, value) if value is not None else None
    decorator = function_decorator(linker, draft)
    if isinstance(decorator, Call):
        value = decorator.keyword(name)
        return (draft.module, value) if value is not None else None
    return None
