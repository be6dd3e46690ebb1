"""Report the calls of coroutine functions whose coroutine nothing awaits.

Calling an ``async def`` runs none of its body: it makes a coroutine, and the body runs
only when something awaits it.  A call made as a statement of its own (``save(note)``
where ``await save(note)`` was meant) drops the coroutine at once: the work never
happens, and the tool reports success all the same (Python only warns, "coroutine ...
was never awaited", on stderr).  The index keeps such calls (``index_function_bodies``,
in ``ModuleIndex.discarded_calls``); ``check_unawaited_calls`` reports each whose callee
is surely a coroutine function as ``skill/unawaited-coroutine``, for every module the
compiler indexed:

* a name that finds an ``async def`` of the project which does not yield and has no
  decorator (a decorator may make it anything), and which nothing else binds, neither in
  the module that calls it nor in the one defining it (``ModuleIndex.coroutine_functions``);
* ``self.name(...)`` in a method, where the class (or a project class before any other
  along its MRO) defines ``name`` as such an ``async def`` (a ``staticmethod`` or
  ``classmethod`` of one too), no instance attribute of that name is ever set, and no
  project class deriving from it defines ``name`` again;
* a coroutine method of the data store (``ctx.data.acollections()``) or of one of its
  collections (``notes.apatch(...)``: ``ModuleIndex.dropped_store_calls``), where the
  store is that of a parameter annotated ``ToolContext`` (or the context a tool class's
  ``execute`` or ``needs_approval`` is called with), and the collection is one of it, or a
  parameter annotated ``Collection``, or what an undecorated module-level function
  annotated to return a ``Collection`` returns (awaited if it is an ``async def``).  Then
  nothing is read or written.
"""

from __future__ import annotations

from ..contracts.spec import COLLECTION_CLASSES, COLLECTION_COROUTINES, DATA_STORE_COROUTINES
from .call_shapes import POSITIONAL
from .index_types import DiscardedCall, DroppedStoreCall, Expr, FunctionInfo, Subscript
from .resolve import Linker
from .symbols import ClassSym, FunctionSym

__all__ = ["check_unawaited_calls"]

#: The decorators that leave a method's call a coroutine function's call.
_METHOD_KINDS = frozenset({"staticmethod", "classmethod"})


def check_unawaited_calls(linker: Linker) -> None:
    """Report every dropped call of a coroutine function, in every module."""
    overridden: dict[tuple[tuple[str, str], str], bool] = {}
    for module in sorted(linker.modules):
        for dropped in linker.modules[module].dropped_store_calls:
            with linker.quiet():
                certain = _store_object(linker, module, dropped)
            if certain:
                linker.report(
                    "skill/unawaited-coroutine", module, dropped.pos, _store_message(dropped), hint=_store_hint(dropped)
                )
        for call in linker.modules[module].discarded_calls:
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


def _coroutine_function(
    linker: Linker, module: str, call: DiscardedCall, overridden: dict[tuple[tuple[str, str], str], bool]
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
    """Whether a project class deriving from ``cls`` (nested ones included) may bind ``name`` itself."""
    for module in linker.modules.values():
        stack = [ClassSym(module.name, info) for info in module.classes]
        while stack:
            derived = stack.pop()
            info = derived.info
            stack.extend(ClassSym(module.name, inner, derived.qualname) for inner in info.classes)
            if derived.key == cls.key:
                continue
            if not any(isinstance(item, ClassSym) and item.key == cls.key for item in linker.mro(derived)[1:]):
                continue
            binds = info.method(name) is not None or info.attribute(name) is not None
            if binds or info.nested_class(name) is not None or info.skipped:
                return True
            if any(item == name for item, _ in info.self_assignments):
                return True
    return False


def _message(call: DiscardedCall) -> str:
    shown = f"self.{call.callee}" if call.owner is not None else call.callee
    defined = f"{call.owner}.{call.callee}" if call.owner is not None else call.callee
    return (
        f"{shown}(...) in {call.function} (line {call.pos.line}) makes a coroutine that nothing awaits: "
        f"{defined} is an async def, so none of its body runs, and the call does nothing"
    )


def _hint(call: DiscardedCall) -> str:
    shown = f"self.{call.callee}" if call.owner is not None else call.callee
    if call.in_async:
        return f"await it (await {shown}(...)), or start it with asyncio.create_task(...) and keep the task"
    return (
        f"{call.function} is not an async def, so it cannot await {shown}: make it one and await the call, "
        "or run the call with asyncio.run(...) where no event loop runs"
    )


#: The methods of a tool class the runtime calls with the call's context as their third positional argument.
_CALLED_WITH_CONTEXT = ("execute", "needs_approval")


def _store_object(linker: Linker, module: str, call: DroppedStoreCall) -> bool:
    """Whether the receiver of a dropped data store call is surely the data store or a collection."""
    if call.source == "helper":
        symbol = linker.resolve_name(module, call.name)
        if not isinstance(symbol, FunctionSym) or symbol.module not in linker.modules:
            return False
        info = symbol.info
        if info.decorators or info.yields_at is not None or info.is_async != call.awaited:
            return False
        return _names_collection(linker, symbol.module, info.returns)
    found = _function(linker, module, call.function)
    if found is None:
        return False
    function, owner = found
    param = next((item for item in function.params if item.name == call.name), None)
    if param is None:
        return False
    if call.source == "parameter":
        return _names_collection(linker, module, param.annotation)
    if linker.is_sdk(module, param.annotation, "ToolContext"):
        return True
    if owner is None or function.name not in _CALLED_WITH_CONTEXT or not linker.is_subclass(owner, "skillc.Tool"):
        return False
    positional = [item.name for item in function.params if item.kind in POSITIONAL]
    return len(positional) >= 3 and positional[2] == call.name  # (self, input, ctx)


def _function(linker: Linker, module: str, qualname: str) -> tuple[FunctionInfo, ClassSym | None] | None:
    """The module-level function or method of a module-level class ``qualname`` names in ``module``."""
    *outer, name = qualname.split(".")
    if not outer:
        symbol = linker.resolve_name(module, name)
        return (symbol.info, None) if isinstance(symbol, FunctionSym) and symbol.module == module else None
    owner = linker.resolve_ref(module, ".".join(outer))
    if not isinstance(owner, ClassSym) or owner.module != module:
        return None
    method = owner.info.method(name)
    return (method, owner) if method is not None else None


def _names_collection(linker: Linker, module: str, annotation: Expr | None) -> bool:
    """Whether ``annotation`` is the data store's ``Collection`` (``Collection[Note]`` too)."""
    base = annotation.value if isinstance(annotation, Subscript) else annotation
    return linker.external_name(module, base) in COLLECTION_CLASSES


def _store_message(call: DroppedStoreCall) -> str:
    owner = "data store" if call.method in DATA_STORE_COROUTINES else "data store's collections"
    return (
        f"{call.receiver}.{call.method}(...) in {call.function} (line {call.pos.line}) makes a coroutine that nothing "
        f"awaits: {call.method} is an async method of the {owner}, so none of it runs, and nothing is read or written"
    )


def _store_hint(call: DroppedStoreCall) -> str:
    shown = f"{call.receiver}.{call.method}"
    sync = call.method[1:] if call.method in COLLECTION_COROUTINES or call.method == "acollections" else None
    if call.in_async:
        return f"await it (await {shown}(...))"
    if sync is not None:
        return f"{call.function} is not an async def: call {call.receiver}.{sync}(...), which does the same, instead"
    return f"{call.function} is not an async def, so it cannot await {shown}: make it one and await the call"
