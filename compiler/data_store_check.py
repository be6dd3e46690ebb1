"""Report what tools do with the data store that cannot work: a method it lacks, a coroutine dropped.

The index keeps what function bodies read of what may be the data store or one of its
collections (``index_store_uses``, in ``ModuleIndex.store_uses``).  ``check_store_uses``
decides which of those receivers surely are, and reports, for every module the compiler
indexed:

* ``skill/unknown-attribute``: an attribute the data store or a collection does not have
  (``notes.insert_one``, ``ctx.data.colection``): every call that gets there raises
  ``AttributeError``.  The hint names the method meant, for the names other document
  stores use (``insert_one`` is ``create``);
* ``skill/unawaited-coroutine``: a call of one of their coroutine methods made as a
  statement of its own (``notes.apatch(id, fields)``): it makes a coroutine nothing awaits,
  so nothing is read or written, and the tool reports success all the same.

A receiver surely is the data store when it is ``P.data``, ``P`` being a parameter
annotated ``ToolContext`` (or the context a tool class's ``execute`` or ``needs_approval``
is called with, its third positional parameter); a collection when it is ``P.data[...]``
or ``P.data.collection(...)``, a parameter annotated ``Collection``, or what an
undecorated module-level function of the project annotated to return a ``Collection``
returns (awaited when it is an ``async def``).
"""

from __future__ import annotations

import difflib

from ..contracts.spec import (
    COLLECTION_CLASSES,
    COLLECTION_COROUTINES,
    COLLECTION_MEMBERS,
    DATA_STORE_COROUTINES,
    DATA_STORE_MEMBERS,
)
from .call_shapes import POSITIONAL
from .index_types import Expr, FunctionInfo, StoreUse, Subscript
from .resolve import Linker
from .symbols import ClassSym, FunctionSym

__all__ = ["check_store_uses"]

#: The methods of a tool class the runtime calls with the call's context as their third positional argument.
_CALLED_WITH_CONTEXT = ("execute", "needs_approval")
#: What other document stores (MongoDB, TinyDB, ORMs) call a collection's methods.
_OTHER_NAMES = {
    "add": "create",
    "all": "find",
    "count_documents": "count",
    "delete_one": "delete",
    "find_all": "find",
    "insert": "create",
    "insert_one": "create",
    "list": "find",
    "query": "find",
    "remove": "delete",
    "save": "put",
    "update": "patch",
    "update_one": "patch",
    "upsert": "put",
}


def check_store_uses(linker: Linker) -> None:
    """Report every read of a member the data store or a collection lacks, and every dropped call of a coroutine of theirs."""
    for module in sorted(linker.modules):
        for use in linker.modules[module].store_uses:
            with linker.quiet():  # what looking the receiver up finds is reported where it is defined
                certain = _surely_the_store(linker, module, use)
            if not certain:
                continue
            store = use.source == "store"
            members = DATA_STORE_MEMBERS if store else COLLECTION_MEMBERS
            if use.attribute not in members:
                linker.report(
                    "skill/unknown-attribute", module, use.pos, _unknown_message(use), hint=_unknown_hint(use, members)
                )
            elif use.dropped and use.attribute in (DATA_STORE_COROUTINES if store else COLLECTION_COROUTINES):
                linker.report(
                    "skill/unawaited-coroutine",
                    module,
                    use.pos,
                    _dropped_message(use),
                    hint=_dropped_hint(use, members),
                )


def _surely_the_store(linker: Linker, module: str, use: StoreUse) -> bool:
    """Whether the receiver of ``use`` is surely the data store or a collection, as ``use.source`` says."""
    if use.source == "helper":
        symbol = linker.resolve_name(module, use.name)
        if not isinstance(symbol, FunctionSym) or symbol.module not in linker.modules:
            return False
        info = symbol.info
        if info.decorators or info.yields_at is not None or info.is_async != use.awaited:
            return False
        return _names_collection(linker, symbol.module, info.returns)
    found = _function(linker, module, use.function)
    if found is None:
        return False
    function, owner = found
    param = next((item for item in function.params if item.name == use.name), None)
    if param is None:
        return False
    if use.source == "parameter":
        return _names_collection(linker, module, param.annotation)
    if linker.is_sdk(module, param.annotation, "ToolContext"):
        return True
    if owner is None or function.name not in _CALLED_WITH_CONTEXT or not linker.is_subclass(owner, "skillc.Tool"):
        return False
    positional = [item.name for item in function.params if item.kind in POSITIONAL]
    return len(positional) >= 3 and positional[2] == use.name  # (self, input, ctx)


def _function(linker: Linker, module: str, qualname: str) -> tuple[FunctionInfo, ClassSym | None] | None:
    """The module-level function, or method of a module-level class, ``qualname`` names in ``module``."""
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


def _what(use: StoreUse) -> str:
    return "the data store" if use.source == "store" else "a collection of the data store"


def _unknown_message(use: StoreUse) -> str:
    return (
        f"{use.function}() reads {use.receiver}.{use.attribute}, but {_what(use)} has no attribute "
        f"{use.attribute}: every call that gets there raises AttributeError"
    )


def _unknown_hint(use: StoreUse, members: frozenset[str]) -> str:
    attribute = use.attribute
    meant = _OTHER_NAMES.get(attribute)
    if meant is None and attribute.startswith("a") and attribute[1:] in _OTHER_NAMES:
        meant = "a" + _OTHER_NAMES[attribute[1:]]  # an async one: ainsert_one is acreate
    if meant is None or meant not in members:
        similar = difflib.get_close_matches(use.attribute, sorted(members), n=1, cutoff=0.7)
        meant = similar[0] if similar else None
    if meant is not None:
        return f"did you mean {use.receiver}.{meant}?"
    if use.source == "store":
        return f"the data store has: {', '.join(sorted(members))}"
    shown = ", ".join(sorted(members - COLLECTION_COROUTINES))
    return f"a collection has: {shown}; and an async version of each method, named with an a in front (acreate)"


def _dropped_message(use: StoreUse) -> str:
    owner = "data store" if use.source == "store" else "data store's collections"
    return (
        f"{use.receiver}.{use.attribute}(...) in {use.function} (line {use.pos.line}) makes a coroutine that nothing "
        f"awaits: {use.attribute} is an async method of the {owner}, so none of it runs, and nothing is read or written"
    )


def _dropped_hint(use: StoreUse, members: frozenset[str]) -> str:
    shown = f"{use.receiver}.{use.attribute}"
    if use.in_async:
        return f"await it (await {shown}(...))"
    sync = use.attribute[1:]  # acreate's sync twin is create; in_thread has none
    if sync in members:
        return f"{use.function} is not an async def: call {use.receiver}.{sync}(...), which does the same, instead"
    return f"{use.function} is not an async def, so it cannot await {shown}: make it one and await the call"
