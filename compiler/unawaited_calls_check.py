"""Report the calls of coroutine functions whose coroutine nothing awaits.

Calling an ``async def`` runs none of its body: it makes a coroutine, and the body runs
only when something awaits it.  A call made as a statement of its own (``save(note)``
where ``await save(note)`` was meant) drops the coroutine at once: the work never
happens, and the tool reports success all the same (Python only warns, "coroutine ...
was never awaited", on stderr).  The index keeps such calls (``index_function_bodies``,
in ``ModuleIndex.unawaited_calls``); ``check_unawaited_calls`` reports each whose callee
is surely a coroutine function as ``skill/unawaited-coroutine``, for every module the
compiler indexed:

* a name that finds an ``async def`` of the project which does not yield and has no
  decorator (a decorator may make it anything), and which nothing else binds, neither in
  the module that calls it nor in the one defining it (``ModuleIndex.coroutine_functions``);
* ``self.name(...)`` in a method, where the class (or a project class before any other
  along its MRO) defines ``name`` as such an ``async def`` (a ``staticmethod`` or
  ``classmethod`` of one too), no instance attribute of that name is ever set, and no
  project class deriving from it defines ``name`` again.

The data store's own coroutine methods (``notes.apatch(...)``) are ``data_store_check``'s.
"""

from __future__ import annotations

from .index_types import FunctionInfo, UnawaitedCall
from .resolve import Linker
from .symbols import ClassSym, FunctionSym

__all__ = ["calls_coroutine_function", "check_unawaited_calls"]

#: The decorators that leave a method's call a coroutine function's call.
_METHOD_KINDS = frozenset({"staticmethod", "classmethod"})


def check_unawaited_calls(linker: Linker) -> None:
    """Report every dropped call of a coroutine function, in every module.

    (A returned one is a mistake only where the caller awaits once and uses the value:
    ``tool_code_checks`` reports those of the functions the runtime calls.)
    """
    overridden: dict[tuple[tuple[str, str], str], bool] = {}
    for module in sorted(linker.modules):
        for call in linker.modules[module].unawaited_calls:
            if call.returned:
                continue
            with linker.quiet():  # what looking the callee up finds is reported where it is defined
                coroutine = _coroutine_function(linker, module, call, overridden)
            if coroutine:
                linker.report(
                    "skill/unawaited-coroutine",
                    module,
                    call.pos,
                    _message(call),
                    hint=_hint(call),
                )


def calls_coroutine_function(linker: Linker, module: str, call: UnawaitedCall) -> bool:
    """Whether ``call``, made in ``module``, surely calls a coroutine function (see the module docstring)."""
    with linker.quiet():
        return _coroutine_function(linker, module, call, {})


def _coroutine_function(
    linker: Linker, module: str, call: UnawaitedCall, overridden: dict[tuple[tuple[str, str], str], bool]
) -> bool:
    """Whether the call's callee is surely a coroutine function when the call runs."""
    if call.owner is None:
        bindings = linker.bindings(module).get(call.callee)
        if bindings is None or len(bindings) != 1:
            return False
        symbol = linker.resolve_name(module, call.callee)
        return (
            isinstance(symbol, FunctionSym)
            and symbol.module in linker.modules
            and symbol.info.name in linker.modules[symbol.module].coroutine_functions
            and len(linker.bindings(symbol.module).get(symbol.info.name, ())) == 1
        )
    owner = linker.resolve_ref(module, call.owner)
    if not isinstance(owner, ClassSym):
        return False
    method = _method(linker, owner, call.callee)
    if method is None or not _makes_coroutine(method):
        return False
    key = (owner.key, call.callee)
    if key not in overridden:
        overridden[key] = _defined_again_below(linker, owner, call.callee)
    return not overridden[key]


def _method(linker: Linker, cls: ClassSym, name: str) -> FunctionInfo | None:
    """The method ``name`` an instance of ``cls`` finds, when the project's sources say it all:
    the first class along the MRO that binds ``name`` is a project class, binds it once, by a
    ``def``, and no method of it sets ``self.name``."""
    for item in linker.mro(cls):
        if not isinstance(item, ClassSym):
            return None  # a class from elsewhere may define it first
        info = item.info
        if info.skipped or any(attribute == name for attribute, _ in info.self_assignments):
            return None  # a statement the index does not read may bind it; so may an instance
        methods = [method for method in info.methods if method.name == name]
        if len(methods) > 1 or info.attribute(name) is not None or info.nested_class(name) is not None:
            return None
        if methods:
            return methods[0]
    return None


def _makes_coroutine(method: FunctionInfo) -> bool:
    """Whether calling ``method`` (through an instance) surely makes a coroutine."""
    kinds = [decorator for decorator in method.decorators if getattr(decorator, "dotted", None) in _METHOD_KINDS]
    return method.is_async and method.yields_at is None and len(kinds) == len(method.decorators)


def _defined_again_below(linker: Linker, cls: ClassSym, name: str) -> bool:
    """Whether a project class that may derive from ``cls`` (nested ones included) may bind ``name`` itself."""
    for derived in linker.possible_subclasses(cls):
        info = derived.info
        binds = info.method(name) is not None or info.attribute(name) is not None
        if binds or info.nested_class(name) is not None or info.skipped:
            return True
        if any(item == name for item, _ in info.self_assignments):
            return True
    return False


def _message(call: UnawaitedCall) -> str:
    shown = f"self.{call.callee}" if call.owner is not None else call.callee
    defined = f"{call.owner}.{call.callee}" if call.owner is not None else call.callee
    return (
        f"{shown}(...) in {call.function} (line {call.pos.line}) makes a coroutine that nothing awaits: "
        f"{defined} is an async def, so none of its body runs, and the call does nothing"
    )


def _hint(call: UnawaitedCall) -> str:
    shown = f"self.{call.callee}" if call.owner is not None else call.callee
    if call.in_async:
        return f"await it (await {shown}(...)), or start it with asyncio.create_task(...) and keep the task"
    return (
        f"{call.function} is not an async def, so it cannot await {shown}: make it one and await the call, "
        "or run the call with asyncio.run(...) where no event loop runs"
    )
