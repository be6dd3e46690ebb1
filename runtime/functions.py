"""What a ``@tool`` function says of itself: which parameter takes the context, how its
parameters are described, and whether its body does anything.

Helpers of the SDK's function form (``sdk.FunctionTool``), kept apart from it.
"""

from __future__ import annotations

import dis
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, Final

from pydantic import Field

from .context import ToolContext

__all__ = ["annotated_note", "is_context_annotation", "is_stub", "with_description"]

#: What CPython runs before a function's body, and around a statement that does nothing.
_PROLOGUE: Final = frozenset({"RESUME", "NOP", "CACHE", "RETURN_GENERATOR", "POP_TOP", "COPY_FREE_VARS", "MAKE_CELL"})


def is_context_annotation(annotation: object) -> bool:
    """Tell whether a parameter asks for the context (``ToolContext`` or ``ToolContext | None``)."""
    if annotation is ToolContext:
        return True
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    arguments = typing.get_args(annotation) if union else ()
    return ToolContext in arguments and all(a in (ToolContext, type(None)) for a in arguments)


def with_description(annotation: Any, description: str) -> Any:
    """Attach a docstring description so that an explicit ``Field`` still wins over it."""
    if typing.get_origin(annotation) is Annotated:
        base, *metadata = typing.get_args(annotation)
        return Annotated[(base, Field(description=description), *metadata)]
    return Annotated[annotation, Field(description=description)]


def annotated_note(annotation: Any) -> str | None:
    """The first bare string of ``Annotated[T, "The city"]`` (the OpenAI Agents SDK's way to
    describe a parameter), which pydantic itself ignores."""
    if typing.get_origin(annotation) is Annotated:
        return next((item for item in typing.get_args(annotation)[1:] if isinstance(item, str)), None)
    return None


def is_stub(function: Callable[..., Any]) -> bool:
    """Whether ``function``'s body does nothing: only a docstring, ``...`` and ``pass`` (or ``return None``).

    Read from its bytecode, so it holds for any source: what such a body compiles to is
    returning ``None`` and nothing else.  Something that is no plain function is no stub.
    """
    code = getattr(function, "__code__", None)
    if not isinstance(code, types.CodeType):
        return False
    steps = [(step.opname, step.argval) for step in dis.get_instructions(code) if step.opname not in _PROLOGUE]
    return steps in ([("LOAD_CONST", None), ("RETURN_VALUE", None)], [("RETURN_CONST", None)])
