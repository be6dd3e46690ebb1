"""What the index says about one module: its expressions, imports, classes and functions.

Everything here is a frozen, picklable value.  A module summary (``ModuleIndex``) is
plain data about one file, so it can be cached by content hash and built in a worker
process; linking and checking work on these summaries only, never on syntax trees.
A compile that reuses its last result whole (nothing changed) never loads this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple, TypeAlias

from .types import Pos

__all__ = [
    "LIST_MUTATIONS",
    "BinOp",
    "Call",
    "ClassInfo",
    "Const",
    "Container",
    "UnawaitedCall",
    "Dynamic",
    "EarlyUse",
    "LateUse",
    "ParameterRead",
    "StoreUse",
    "Expr",
    "FunctionInfo",
    "Gives",
    "ImportBinding",
    "ImportEffects",
    "ModuleIndex",
    "Param",
    "Ref",
    "Subscript",
    "ValueBinding",
]


# --- Expressions, reduced to what static analysis can reason about -----------------


@dataclass(frozen=True)
class Const:
    """A literal: str, bytes, int, float, complex, bool, None or Ellipsis."""

    value: object
    pos: Pos


@dataclass(frozen=True)
class Ref:
    """A name or a dotted attribute chain: ``Tool``, ``skillc.Tool``, ``models.Input``."""

    dotted: str
    pos: Pos


@dataclass(frozen=True)
class Call:
    """A call with its positional and keyword arguments; ``*``/``**`` make it opaque."""

    func: Expr
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...]
    pos: Pos
    has_star: bool = False

    def keyword(self, name: str) -> Expr | None:
        """The value passed as ``name=``, or ``None``."""
        for key, value in self.kwargs:
            if key == name:
                return value
        return None


@dataclass(frozen=True)
class Container:
    """A list, tuple, set or dict display; a dict's items are (key, value) pairs."""

    kind: Literal["list", "tuple", "set", "dict"]
    items: tuple[Expr, ...]
    pos: Pos
    keys: tuple[Expr | None, ...] = ()
    has_star: bool = False


@dataclass(frozen=True)
class Subscript:
    """``value[item, ...]``, as in ``list[int]`` or ``Annotated[int, Field(ge=0)]``."""

    value: Expr
    items: tuple[Expr, ...]
    pos: Pos


@dataclass(frozen=True)
class BinOp:
    """A binary operation; ``|`` is what matters (unions and flag sets)."""

    op: str
    left: Expr
    right: Expr
    pos: Pos


@dataclass(frozen=True)
class Dynamic:
    """Anything else: its value is only known by running the code."""

    kind: str
    text: str
    pos: Pos


Expr: TypeAlias = Const | Ref | Call | Container | Subscript | BinOp | Dynamic


# --- What one module defines --------------------------------------------------------


#: The methods of a list that change it in place (``ModuleIndex.changed_in_place``).
LIST_MUTATIONS = frozenset({"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse", "__setitem__"})


@dataclass(frozen=True)
class ImportBinding:
    """A name an import binds: ``from .a import b as c`` binds ``c`` to ``(.a, b)``.

    ``module`` is the module as written (without the leading dots), ``level`` the
    number of leading dots, ``name`` the imported attribute (``None`` for ``import a.b``,
    which binds ``a`` to module ``a``, or ``a.b`` with ``as``).
    """

    local: str
    module: str
    name: str | None
    level: int
    pos: Pos
    star: bool = False
    branch: str | None = None
    #: Under ``if TYPE_CHECKING:``: for type checkers only, never run.
    typing_only: bool = False
    #: In the body of a ``try`` that goes on without the module (an optional dependency, a
    #: fallback: ``index_imports.copes_with_missing_module``).
    guarded: bool = False


@dataclass(frozen=True)
class Param:
    """A function parameter with its annotation and default, as written."""

    name: str
    kind: Literal["positional_only", "normal", "var_positional", "keyword_only", "var_keyword"]
    annotation: Expr | None
    default: Expr | None
    pos: Pos


@dataclass(frozen=True)
class FunctionInfo:
    """A function or method: its decorators, parameters and docstring, and whether its body does anything."""

    name: str
    params: tuple[Param, ...]
    decorators: tuple[Expr, ...]
    is_async: bool
    docstring: str | None
    returns: Expr | None
    pos: Pos
    branch: str | None = None
    #: Where the body first does something beyond a docstring, ``...``, ``pass`` or ``return None``;
    #: ``None`` for a body that does nothing (a client-side tool's function).
    code_at: Pos | None = None
    #: Where the function's own body first yields (``yield`` or ``yield from``: calling it makes a
    #: generator); ``None`` when it never does.
    yields_at: Pos | None = None
    #: What every call of it returns, when the index can tell (``Gives``); read of the functions
    #: used as decorators.
    gives: Gives | None = None


@dataclass(frozen=True)
class Gives:
    """What a function with a positional parameter returns on every call, when its code says so plainly.

    ``"argument"``: its first parameter, unchanged (``def register(fn): ...; return fn``);
    ``"nothing"``: ``None`` (no ``return`` anywhere in its text); ``"function"``: a function its
    body defines (``def wrapper(*args, **kwargs): ...`` then ``return wrapper``), which is
    ``function``.  ``patched`` says the body names ``update_wrapper``, ``__wrapped__`` or
    ``__signature__``, so the returned function may present the argument's signature.
    """

    kind: Literal["argument", "nothing", "function"]
    function: FunctionInfo | None = None
    patched: bool = False


@dataclass(frozen=True)
class ValueBinding:
    """``name = value`` or ``name: annotation = value`` at module or class level."""

    name: str
    value: Expr | None
    annotation: Expr | None
    pos: Pos
    branch: str | None = None


@dataclass(frozen=True)
class EarlyUse:
    """A name that code run at import reads before the module binds it, or that nothing binds.

    Importing the module raises ``NameError`` there (see ``index_early_names``): ``pos``
    is the first such use, ``bound_line`` the line of the statement that binds the name
    after it (``None`` when no statement of the module binds it), and ``annotation``
    whether that use is an annotation (which quoting, or ``from __future__ import
    annotations``, keeps from being evaluated).
    """

    name: str
    pos: Pos
    bound_line: int | None
    annotation: bool = False
    #: For a name nothing binds: the bound or builtin name most like it (a misspelling's fix), if one is.
    similar: str | None = None
    #: For a name the module binds only where the import never goes: ``"main guard"`` (under
    #: ``if __name__ == "__main__":``) or ``"type checking"`` (under ``if TYPE_CHECKING:``), and the line.
    only_under: str | None = None
    only_under_line: int | None = None


@dataclass(frozen=True)
class LateUse:
    """A name a function body reads that nothing binds where the function runs.

    Calling the function raises ``NameError`` there (see ``index_function_bodies``): ``pos`` is
    the module's first such read, in ``function`` (its qualified name, ``<lambda>`` for a
    lambda's body).  ``bound_in`` says where the module binds the name all the same, in
    code that the function never sees: ``"main guard"`` (under ``if __name__ ==
    "__main__":``, which does not run when the module is imported), ``"type checking"``
    (under ``if TYPE_CHECKING:``), or the name of the class whose body binds it (a method
    reads its class's names through ``self`` or the class); with ``bound_line``, the line
    that binds it.  ``None`` when nothing in the module binds it.
    """

    name: str
    pos: Pos
    function: str
    bound_in: str | None = None
    bound_line: int | None = None
    #: For a name nothing binds: the module's or builtin name most like it (a misspelling's fix), if one is.
    similar: str | None = None


@dataclass(frozen=True)
class ParameterRead:
    """An attribute a function's own body reads of one of its parameters (``input.order_id``).

    ``function`` is the function's qualified name in its module (``Lookup.execute``), and
    ``pos`` the first such read (see ``index_function_bodies``).
    """

    function: str
    parameter: str
    attribute: str
    pos: Pos


@dataclass(frozen=True)
class UnawaitedCall:
    """A call whose value a function body does not await where it makes it, of a name the module
    binds or of a method through the function's ``self``: dropped, as a statement of its own
    (``save(note)``), or, in an ``async def``, returned (``return save(note)``: ``returned``).

    ``callee`` is the name called (``save``), or the method's name when ``owner`` is set:
    then the call is ``self.callee(...)`` in a method of the class ``owner`` (its qualified
    name in the module).  ``function`` is the qualified name of the function making the
    call, and ``in_async`` whether it is an ``async def`` (see ``index_function_bodies``).
    """

    callee: str
    owner: str | None
    function: str
    in_async: bool
    pos: Pos
    returned: bool = False


@dataclass(frozen=True)
class StoreUse:
    """An attribute a function body reads of what may be the data store or one of its
    collections (``notes.apatch``, ``ctx.data["notes"].insert_one``): the first read of each
    attribute of each receiver, and every call made as a statement of its own (``dropped``:
    ``notes.apatch(id, fields)``, its value dropped).

    ``receiver`` is the object as written (``ctx.data["notes"]``, ``notes``), and
    ``source`` says what it is, ``name`` being a parameter of the function or a module-level
    function (see ``index_store_uses``):

    * ``"store"``: the data store of ``name`` (``ctx.data``);
    * ``"collection"``: a collection of it (``ctx.data[...]``, ``ctx.data.collection(...)``);
    * ``"parameter"``: the parameter ``name`` itself, annotated with something named ``Collection``;
    * ``"helper"``: what the function ``name`` returns (awaited, when ``awaited``).

    Whether ``name`` is a ``ToolContext``, or is annotated or returns a collection, the
    linker decides.
    """

    attribute: str
    receiver: str
    function: str
    in_async: bool
    pos: Pos
    source: Literal["store", "collection", "parameter", "helper"]
    name: str
    awaited: bool = False
    dropped: bool = False


@dataclass(frozen=True)
class ClassInfo:
    """A class: its bases, keywords, class-level attributes and methods."""

    name: str
    bases: tuple[Expr, ...]
    keywords: tuple[tuple[str, Expr], ...]
    decorators: tuple[Expr, ...]
    attributes: tuple[ValueBinding, ...]
    methods: tuple[FunctionInfo, ...]
    docstring: str | None
    pos: Pos
    branch: str | None = None
    #: The classes defined in the body, in its order (``Outer.Inner``; pydantic v1's ``class Config:``).
    classes: tuple[ClassInfo, ...] = ()
    #: Statements of the body the index does not read (``if``/``try``/``for``...).
    skipped: tuple[Pos, ...] = ()
    #: The attributes its methods assign on their instance (``self.name = ...``; a classmethod's
    #: ``cls.name = ...``), each with the position of its first assignment.
    self_assignments: tuple[tuple[str, Pos], ...] = ()

    def attribute(self, name: str) -> ValueBinding | None:
        """The last binding of ``name`` in the class body."""
        found = None
        for binding in self.attributes:
            if binding.name == name:
                found = binding
        return found

    def nested_class(self, name: str) -> ClassInfo | None:
        """The class ``name`` defined in the body, if the body's last binding of ``name`` is that class."""
        found = None
        for cls in self.classes:
            if cls.name == name:
                found = cls
        if found is None:
            return None
        later = [item.pos for item in self.attributes if item.name == name]
        later += [item.pos for item in self.methods if item.name == name]
        if any((found.pos.line, found.pos.col) < (pos.line, pos.col) for pos in later):
            return None  # bound again further down the body
        return found

    def method(self, name: str) -> FunctionInfo | None:
        """The last definition of method ``name``."""
        found = None
        for method in self.methods:
            if method.name == name:
                found = method
        return found


class PathUse(NamedTuple):
    """How a call uses the path literal it is given first (``index_paths``): the function called as
    written (``sqlite3.connect``, ``open``, ``Path``; ``""`` when it is not a name), its ``mode`` when
    that is a literal (``"r"`` when none is given; ``None`` when only running the code would tell),
    and the method called on the call's result at once (``Path("x").write_text``: ``"write_text"``)
    with that method's literal mode.  (A named tuple: one is loaded with every cached module index.)"""

    function: str
    mode: str | None
    method: str
    method_mode: str | None


class ImportEffects(NamedTuple):
    """What code run at import does that fails the import where a tool is loaded
    (``index_import_effects.find_import_effects``), in source order.  Each item: the name the code
    starts from (``os``, ``environ``, ``signal``, ``asyncio``), the expression as written (shortened),
    and where it is.  (A named tuple: one is loaded with every cached module index.)"""

    environment_reads: tuple[tuple[str, str, Pos], ...] = ()
    signal_handlers: tuple[tuple[str, str, Pos], ...] = ()
    loop_lookups: tuple[tuple[str, str, Pos], ...] = ()
    #: SQLite connections made at import, bound to a name a function of the module reads.
    sqlite_connections: tuple[tuple[str, str, Pos], ...] = ()


@dataclass(frozen=True)
class ModuleIndex:
    """Everything the compiler needs to know about one module, as plain data."""

    name: str
    path: str
    is_package: bool
    docstring: str | None
    imports: tuple[ImportBinding, ...]
    classes: tuple[ClassInfo, ...]
    functions: tuple[FunctionInfo, ...]
    assignments: tuple[ValueBinding, ...]
    calls: tuple[Call, ...]
    #: The imports ``imports`` leaves out, which bind no module-level name: in functions,
    #: classes and loops; and ``importlib.import_module("name")``/``__import__("name")``
    #: calls with a literal name anywhere (bound to ``local`` ``""``).
    inner_imports: tuple[ImportBinding, ...] = ()
    #: ``import_module``/``__import__`` calls whose name only running the code would tell.
    dynamic_imports: tuple[Dynamic, ...] = ()
    #: Whether the module holds only imports, a docstring and a literal ``__all__``.
    reexport_only: bool = False
    #: The names code run at import uses before the module binds them (``index_early_names``).
    early_uses: tuple[EarlyUse, ...] = ()
    #: The names function bodies read that nothing binds where they run (``index_function_bodies``).
    late_uses: tuple[LateUse, ...] = ()
    #: The attributes functions read of their parameters (``index_function_bodies``).
    parameter_reads: tuple[ParameterRead, ...] = ()
    #: The calls function bodies make as statements of their own, dropping what they return,
    #: and those an ``async def`` returns, of names the module binds and of methods through
    #: ``self`` (``index_function_bodies``).
    unawaited_calls: tuple[UnawaitedCall, ...] = ()
    #: The classes (qualified names) a method of which reaches its instance's attributes by name
    #: (``setattr(self, ...)``, ``vars(self)``, ``self.__dict__``): what such an instance has, only
    #: running the code tells (``index_function_bodies``).
    dynamic_instances: tuple[str, ...] = ()
    #: What function bodies read of the data store and of its collections, and the calls of
    #: them whose value they drop (``index_function_bodies``).
    store_uses: tuple[StoreUse, ...] = ()
    #: The module-level functions that surely make a coroutine when called: each an ``async def``
    #: that does not yield, undecorated, which nothing but its ``def`` may bind (``index_function_bodies``).
    coroutine_functions: tuple[str, ...] = ()
    #: ``pkgutil.get_data`` calls in function bodies: the package as written, and where (``index_imports``).
    late_data_reads: tuple[tuple[str, Pos], ...] = ()
    #: Where code run at import parses the process's command line: the call as written, and
    #: where (``index_command_line``).
    command_line_parses: tuple[tuple[str, Pos], ...] = ()
    #: What code run at import does that fails the import where a tool is loaded: environment
    #: variables read by key, signal handlers installed, the event loop looked up
    #: (``index_import_effects``).
    import_effects: ImportEffects = ImportEffects()
    #: Calls in an ``async def`` that start an event loop (``asyncio.run(...)``): the name the
    #: call starts from, the call as a message shows it, and where (``index_loop_calls``).
    loop_calls: tuple[tuple[str, str, Pos], ...] = ()
    #: Calls in a sync ``def``'s own body that look up asyncio's event loop, which a worker thread
    #: has none of: the function's qualified name, the name the call starts from, the call as a
    #: message shows it, and where (``index_loop_calls``).
    thread_loop_lookups: tuple[tuple[str, str, str, Pos], ...] = ()
    #: Module-level statements that change a name's value in place, not by binding it again
    #: (``TOOLS.append(...)`` and the other ``LIST_MUTATIONS``, ``TOOLS += ...``, ``TOOLS[...] = ...``,
    #: ``del TOOLS[...]``; in branches, and in loops' bodies): the name, the statement as a message
    #: shows it, and where.
    changed_in_place: tuple[tuple[str, str, Pos], ...] = ()
    #: The string literals passed as a call's first argument that are shaped like a relative
    #: path (``open("data/orders.json")``), and where (``index_paths``).
    path_literals: tuple[tuple[str, Pos, PathUse], ...] = ()
