"""Whether the decorators of a ``@tool`` function leave the tool as the compiler read it.

Decorators apply bottom-up.  One below ``@tool`` hands ``@tool`` what it returns, and the
runtime's ``@tool`` reads the parameters, name and docstring of that; one above it
replaces the tool the module binds.  The compiler reads the ``def`` itself, so a project
decorator whose code says plainly what it returns (``FunctionInfo.gives``) is checked,
and ``skill/replacing-decorator`` reported where the module, once imported, would not hold
the tool the compiler read:

- below ``@tool``: a decorator that returns ``None``, or a function its body defines with no
  decorator at all (no ``@functools.wraps(fn)``) and no ``update_wrapper``/``__wrapped__``/
  ``__signature__`` in its code, whose own parameters ``@tool`` would then read
  (``wrapper(*args, **kwargs)`` is refused at import; the name would be ``wrapper``);
- above ``@tool``: a decorator that returns ``None`` or any function of its own, which the
  skill would then be given instead of the tool.

A decorator that returns what it was given (a registry's ``@register``), one whose returned
function has a decorator, a decorator factory's call (``@retry(3)``) read the same way one
level down, and any decorator the compiler does not read (from an installed package, a class,
an expression) are left alone.
"""

from __future__ import annotations

from .index_types import Call, Expr, FunctionInfo, Gives, Ref
from .resolve import Linker
from .symbols import FunctionSym
from .tool_drafts import tool_decorator

__all__ = ["CODE", "decorators_keep_the_tool"]

CODE = "skill/replacing-decorator"


def decorators_keep_the_tool(linker: Linker, module: str, function: FunctionInfo) -> bool:
    """Whether no decorator of the ``@tool`` function ``function`` provably replaces it (reported when one does)."""
    marker = tool_decorator(linker, module, function)
    if marker is None:
        return True
    above = True
    kept = True
    for decorator in function.decorators:
        if decorator is marker:
            above = False
            continue
        read = _read(linker, module, decorator)
        if read is None:
            continue
        name, parameter, gives = read
        problem = _problem(name, parameter, gives, function.name, above=above)
        if problem is not None:
            message, hint = problem
            linker.report(CODE, module, decorator.pos, message, hint=hint)
            kept = False
    return kept


def _read(linker: Linker, module: str, decorator: Expr) -> tuple[str, str, Gives] | None:
    """The decorator's name as written, the parameter it takes the decorated object in, and
    what it returns, when it is a project function (or a project factory's call) whose code says."""
    if isinstance(decorator, Ref):
        symbol = linker.resolve_expr(module, decorator)
        if isinstance(symbol, FunctionSym) and symbol.info.gives is not None:
            return decorator.dotted, symbol.info.params[0].name, symbol.info.gives
        return None
    if isinstance(decorator, Call) and isinstance(decorator.func, Ref) and not decorator.has_star:
        symbol = linker.resolve_expr(module, decorator.func)
        if not isinstance(symbol, FunctionSym):
            return None
        made = symbol.info.gives  # a factory: what it returns is the decorator
        if made is None or made.kind != "function" or made.patched or made.function is None:
            return None
        inner = made.function
        if inner.gives is None or not inner.params:
            return None
        return f"{decorator.func.dotted}(...)", inner.params[0].name, inner.gives
    return None


def _problem(name: str, parameter: str, gives: Gives, tool: str, *, above: bool) -> tuple[str, str] | None:
    """The message and hint for decorator ``@name`` of the ``@tool`` function ``tool``, if it replaces it."""
    order_hint = "put @tool on top: decorators apply from the bottom up, so the one on top makes what the module binds"
    if gives.kind == "nothing":
        if above:
            return (
                f"@{name} returns None (its code has no return), so the module binds None where tool {tool!r} "
                "should be, and its skill is given None",
                f"return the tool from the decorator (`return {parameter}`), or {order_hint}",
            )
        return (
            f"@{name} returns None (its code has no return), so the decorator above it is given None instead "
            f"of {tool}(), and @tool makes no tool",
            f"return the function from the decorator: `return {parameter}`",
        )
    if gives.kind != "function" or gives.function is None:
        return None
    inner = gives.function.name
    if above:
        return (
            f"@{name} is applied to the tool @tool made and returns {inner}, a function of its own: the module "
            f"binds {inner} where tool {tool!r} should be, and its skill is given a function, not a tool",
            order_hint,
        )
    if gives.function.decorators or gives.patched:
        return None  # @functools.wraps(fn), or something else that may present fn's signature
    return (
        f"@{name} replaces {tool}() with {inner}(), a function of its own: @tool reads the parameters, name "
        f"and docstring of {inner}, not those of {tool}, so the compiled tool is not the one the runtime makes",
        f"decorate {inner} with @functools.wraps({parameter}), which gives it the signature, name and "
        f"docstring of the function {name} decorates",
    )
