"""Whether a tool's code can take the arguments the runtime calls it with.

The runtime calls ``execute(input, ctx)`` and a ``needs_approval`` function
``needs_approval(input, ctx)`` with two positional arguments, and ``condition()`` with
none; a method's ``self`` (or a classmethod's ``cls``) is bound first.  ``refusal`` reads
a signature as written and says why Python would raise ``TypeError`` on that call.

Only what is certain is reported: a function with a decorator other than
``staticmethod``/``classmethod`` may have any signature once decorated, and is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from .index_types import FunctionInfo, Param, Ref

__all__ = ["CONDITION", "EXECUTE", "NEEDS_APPROVAL_CALL", "POSITIONAL", "CallShape", "refusal"]

#: The kinds of parameter a positional argument fills.
POSITIONAL = ("positional_only", "normal")


@dataclass(frozen=True)
class CallShape:
    """How the runtime calls one kind of function: the names of the positional arguments it passes."""

    name: str
    passes: tuple[str, ...]

    @property
    def written(self) -> str:
        """The call as the runtime makes it, e.g. ``execute(input, ctx)``."""
        return f"{self.name}({', '.join(self.passes)})"


EXECUTE = CallShape("execute", ("input", "ctx"))
NEEDS_APPROVAL_CALL = CallShape("needs_approval", ("input", "ctx"))
CONDITION = CallShape("condition", ())


def _decorator_names(function: FunctionInfo) -> set[str] | None:
    """The plain names of the function's decorators; ``None`` if any is more than a name."""
    names: set[str] = set()
    for decorator in function.decorators:
        if not isinstance(decorator, Ref):
            return None
        names.add(decorator.dotted)
    return names


def refusal(function: FunctionInfo, shape: CallShape, *, method: bool) -> str | None:
    """Why calling ``function`` as ``shape`` raises ``TypeError``; ``None`` if it can be called so, or may be.

    ``method`` says that ``function`` is looked up on a tool object (a method of its class):
    its first parameter is bound unless it is a ``staticmethod``.
    """
    decorators = _decorator_names(function)
    if decorators is None or decorators - {"staticmethod", "classmethod"}:
        return None
    params: list[Param] = list(function.params)
    bound = method and "staticmethod" not in decorators
    if bound:
        if params and params[0].kind in POSITIONAL:
            params = params[1:]
        elif not any(param.kind == "var_positional" for param in params):  # `*args` takes self too
            return f"it takes no positional argument, not even self, and the runtime calls {shape.written}"
    positional = [param for param in params if param.kind in POSITIONAL]
    takes_more = any(param.kind == "var_positional" for param in params)
    passed = len(shape.passes)
    besides = " besides self" if bound else ""
    if len(positional) < passed and not takes_more:
        return (
            f"it takes {_count(len(positional), 'positional argument')}{besides}, and the runtime calls {shape.written}"
        )
    required = [param.name for param in positional[passed:] if param.default is None]
    required += [param.name for param in params if param.kind == "keyword_only" and param.default is None]
    if required:
        names = ", ".join(repr(name) for name in required)
        also = " also" if shape.passes else ""
        return f"it{also} requires {names}, which the runtime never passes: it calls {shape.written}"
    return None


def _count(number: int, noun: str) -> str:
    if number == 0:
        return f"no {noun}s"
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
