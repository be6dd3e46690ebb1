"""Let a bundle's code import its dist's modules at any time, each dist seeing its own.

Loading a bundle (``bundles.ModuleSpace``) puts its dist's modules into ``sys.modules``
only while that bundle's own import runs.  What a tool imports later, when its code
is called (``def execute(...): import store``, ``importlib.import_module("text.shout")``,
``importlib.resources.files("catalog")``), is served here, never through ``sys.modules``:

- every module loaded from a bundle holds its bundle's ``ImportScope`` in its globals
  (``__skillc_scope__``).  ``install`` wraps ``builtins.__import__`` once: an import
  statement (or ``__import__()``) in code whose globals hold a scope is resolved by
  that scope; any other import goes to the previous ``__import__`` unchanged (the cost
  for code that is not a bundle's: one dict lookup per import statement run).
- ``install`` wraps ``importlib.import_module`` once too, which
  ``importlib.resources.files("pkg")`` and ``pkgutil.resolve_name`` go through.  Its
  scope is that of the code calling it, else that of the tool whose code the runtime
  is running (``running.now().scope``: a context variable set around every invocation of
  user code, in the worker thread or the task that runs it), else that of the nearest
  bundle code up the stack (a thread the tool started itself, which has no context).

The guarantee, at call time, in any thread or task, however many tools run at once:

- *same objects*: a name under the bundle's top-level packages resolves to the dist's
  module of that name, the very object loading created (module-level state is
  shared), as an import at load time would.  A module no import has loaded yet is
  loaded once, and only if it is in the bundle of the code importing it, exactly as
  loading does (under the import lock, with the dist's modules in ``sys.modules``
  while it runs), and joins the dist's space; otherwise ``ModuleNotFoundError``.
- *isolation*: a scope never reads ``sys.modules`` for such a name, so two dists that
  both have ``helpers`` each get their own, and neither the host's ``helpers``, even
  while another dist's bundle is being loaded; nothing is ever added to
  ``sys.modules`` at call time.  A name that is another dist's module but not under
  this bundle's packages is imported the standard way while no bundle is being
  loaded (under the import lock), so it finds an installed package of that name or
  nothing, never another dist's module.
- *limits*: ``importlib.util.find_spec`` (so ``pkgutil.get_data``), ``importlib.__import__``, a reference to
  ``import_module`` taken before ``install`` (``from importlib import import_module``
  in a library imported earlier) and ``sys.modules[...]`` do not see a dist's modules
  at call time; the standard library is never a dist's.

Why hooks rather than the two obvious alternatives.  A private ``__builtins__`` per
bundle module (its own ``__import__``) needs a copy of the builtins: a
``mock.patch("builtins.open")`` made after loading would not reach the tool's code,
and one active while it loaded would stick to it for good (a live mapping instead
costs about six times as much per builtin name looked up).  A meta-path finder is
asked only after ``sys.modules``, and the import system leaves what a finder found in
``sys.modules``, where another dist's ``import_module("helpers")`` would pick it up.
The hooks cost code that is not a bundle's about 70 ns per import statement run and
about 120 ns per ``import_module`` call.

``install`` also wraps ``os._exit``, which ends the process at once, skipping every
``finally`` and the command's own output: called by tool code (while the runtime runs a
tool's code, or from a bundle's module directly, in a thread the tool started too), it
raises ``ProcessExitRefused`` instead, a ``BaseException`` that the call reports as its
``execution`` error result.  In a process that tool code forked, ``os._exit`` is what
ends the child, and it works as ever.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import importlib.abc
import importlib.util
import inspect
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import FrameType, ModuleType
from typing import Any, Final, NoReturn, Protocol

from .running import now

__all__ = [
    "tool_code_running",
    "IMPORT_LOCK",
    "IMPORT_LOCK_TIMEOUT",
    "ImportScope",
    "ProcessExitRefused",
    "Space",
    "install",
    "plain_import_module",
]

#: How long an import waits for another bundle's import to finish.
IMPORT_LOCK_TIMEOUT: Final = 30.0
#: ``sys.modules`` and ``sys.meta_path`` are the process's: one bundle import at a time.
IMPORT_LOCK: Final = threading.RLock()
#: Where a bundle's module keeps its scope, in its globals.
_MARK: Final = "__skillc_scope__"
#: How far up the stack ``import_module`` looks for bundle code.
_STACK_DEPTH: Final = 64
#: The top-level names of every bundle's modules in this process.
_PROJECT_TOPS: set[str] = set()
#: ``importlib.import_module`` itself, as the standard library defines it.
plain_import_module: Final = importlib.import_module


class Space(Protocol):
    """What a scope needs of its dist's ``bundles.ModuleSpace``."""

    def loaded(self, name: str) -> ModuleType | None:
        """The dist's module ``name``, if it was imported already."""

    def mounted_here(self) -> bool:
        """Whether this thread is importing one of the dist's bundles (its modules are in ``sys.modules``)."""

    def load(self, scope: ImportScope, name: str) -> ModuleType:
        """Import ``name`` from ``scope``'s bundle into the dist, as loading does."""


class ImportScope:
    """What the code of one bundle may import: its dist's modules and its own bundle's."""

    __slots__ = ("loader", "names", "space", "tops")

    def __init__(self, space: Space, loader: importlib.abc.Loader, names: Iterable[str]) -> None:
        self.space = space
        #: The bundle's loader: what ``space.load`` imports new modules with.
        self.loader = loader
        self.names = frozenset(names)
        self.tops = frozenset(name.partition(".")[0] for name in self.names)
        _PROJECT_TOPS.update(self.tops)

    def mark(self, namespace: dict[str, Any]) -> None:
        """Make ``namespace`` (a module's globals) import through this scope."""
        namespace[_MARK] = self

    def find(self, name: str) -> ModuleType:
        """The module ``name`` (absolute, under one of ``tops``), imported once if need be."""
        module = self.space.loaded(name)
        if module is not None:
            return module
        if name not in self.names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return self.space.load(self, name)

    def import_(
        self,
        name: str,
        globals: Mapping[str, Any] | None,
        locals: Mapping[str, Any] | None,
        fromlist: Sequence[str] | None,
        level: int,
    ) -> ModuleType:
        """What ``__import__`` returns to this scope's code (while no load of its dist runs here)."""
        absolute = _absolute(name, globals, level) if level else name
        top = absolute.partition(".")[0]
        if top not in self.tops:
            return _outside(lambda: _previous_import(name, globals, locals, fromlist, level))
        module = self.find(absolute)
        if fromlist:
            if hasattr(module, "__path__"):
                self._children(absolute, module, fromlist)
            return module
        if level == 0:
            return self.find(top)
        if not name:
            return module
        cut = len(name) - len(name.partition(".")[0])  # ``from`` less: the first part asked for
        return self.find(absolute[: len(absolute) - cut])

    def _children(self, package: str, module: ModuleType, fromlist: Sequence[str]) -> None:
        """Import the submodules ``from package import a, b`` names (as ``importlib`` does)."""
        for item in fromlist:
            if item == "*":
                everything = getattr(module, "__all__", ())
                self._children(package, module, [part for part in everything if part != "*"])
            elif isinstance(item, str) and not hasattr(module, item):
                child = f"{package}.{item}"
                try:
                    self.find(child)
                except ModuleNotFoundError as error:
                    if error.name != child:
                        raise


def _absolute(name: str, globals: Mapping[str, Any] | None, level: int) -> str:
    package = globals.get("__package__") if globals is not None else None
    if not package:
        spec = globals.get("__spec__") if globals is not None else None
        package = getattr(spec, "parent", None)
    if not isinstance(package, str) or not package:
        raise ImportError("attempted relative import with no known parent package")
    return importlib.util.resolve_name("." * level + name, package)


def _outside(job: Callable[[], ModuleType]) -> ModuleType:
    """A standard import of a name some other bundle has, run while no bundle is loading."""
    if not IMPORT_LOCK.acquire(timeout=IMPORT_LOCK_TIMEOUT):
        raise ImportError(f"another bundle's import has not finished after {IMPORT_LOCK_TIMEOUT:g} s")
    try:
        return job()
    finally:
        IMPORT_LOCK.release()


def _scope_in(namespace: Mapping[str, Any] | None) -> ImportScope | None:
    found = namespace.get(_MARK) if isinstance(namespace, dict) else None
    return found if isinstance(found, ImportScope) else None


def _calling_scope(frame: FrameType | None) -> ImportScope | None:
    """The scope of the code that called, else of the running tool, else of bundle code up the stack."""
    found = _scope_in(frame.f_globals) if frame is not None else None
    if found is not None:
        return found
    running = now().scope
    if isinstance(running, ImportScope):
        return running
    for _ in range(_STACK_DEPTH):
        if frame is None:
            return None
        frame = frame.f_back
        found = _scope_in(frame.f_globals) if frame is not None else None
        if found is not None:
            return found
    return None


def tool_code_running() -> bool:
    """Whether the code running in this context is a tool's (its condition, execute, ...)."""
    return now().scope is not None


class ProcessExitRefused(BaseException):
    """Tool code called ``os._exit``: the process goes on, and the call fails with this.

    A ``BaseException``, as ``SystemExit`` is, so that the ``except Exception`` of the
    tool's own code does not make it carry on as if it had ended.
    """

    def __init__(self, status: object) -> None:
        super().__init__(f"os._exit({status!r}) would end the whole process; a tool's code may not")
        self.status = status


# --- the hooks, installed once ---------------------------------------------------------

#: What the hooks hand over to: the functions they replaced (set by ``install``).
_previous_import: Callable[..., ModuleType] = builtins.__import__
_previous_import_module: Callable[..., ModuleType] = importlib.import_module
_previous_exit: Callable[[int], NoReturn] = os._exit
#: The process the hooks were installed in: a child forked from it exits as ever.
_installed_pid = 0
_INSTALL_LOCK = threading.Lock()
_installed = False


def _import(
    name: str,
    globals: Mapping[str, Any] | None = None,
    locals: Mapping[str, Any] | None = None,
    fromlist: Sequence[str] | None = (),
    level: int = 0,
) -> ModuleType:
    """``builtins.__import__``: a bundle's code imports through its scope."""
    if type(globals) is dict:
        scope = globals.get(_MARK)
    else:  # ``__import__("x")`` called without globals: the caller's
        frame = inspect.currentframe()
        caller = frame.f_back if frame is not None and globals is None else None
        scope = caller.f_globals.get(_MARK) if caller is not None else None
        del frame, caller
    if (
        scope is None
        or (level == 0 and name.partition(".")[0] not in _PROJECT_TOPS)
        or not isinstance(scope, ImportScope)
        or scope.space.mounted_here()  # loading: the standard import, with the dist in sys.modules
    ):
        return _previous_import(name, globals, locals, fromlist, level)
    return scope.import_(name, globals, locals, fromlist, level)


def _import_module(name: str, package: str | None = None) -> ModuleType:
    """``importlib.import_module``: a bundle's code (or the running tool's) imports through its scope."""
    top = name.partition(".")[0]
    if top not in _PROJECT_TOPS:
        if not top and package:  # a relative name
            top = importlib.util.resolve_name(name, package).partition(".")[0]
        if top not in _PROJECT_TOPS:
            return _previous_import_module(name, package)
    frame = inspect.currentframe()
    scope = _calling_scope(frame.f_back if frame is not None else None)
    del frame
    if scope is None or scope.space.mounted_here():
        return _previous_import_module(name, package)
    if top not in scope.tops:
        return _outside(lambda: _previous_import_module(name, package))
    return scope.find(importlib.util.resolve_name(name, package) if name.startswith(".") else name)


def _exit(status: int) -> NoReturn:
    """``os._exit``: refused to tool code in the process the runtime runs in (see the module)."""
    if os.getpid() == _installed_pid:
        frame = inspect.currentframe()
        caller = frame.f_back if frame is not None else None
        from_bundle = caller is not None and _scope_in(caller.f_globals) is not None
        del frame, caller
        if from_bundle or tool_code_running():
            raise ProcessExitRefused(status)
    _previous_exit(status)


def install() -> None:
    """Wrap ``builtins.__import__``, ``importlib.import_module`` and ``os._exit``, once per process."""
    global _previous_import, _previous_import_module, _previous_exit, _installed_pid, _installed
    with _INSTALL_LOCK:
        if _installed:
            return
        _previous_import, _previous_import_module = builtins.__import__, importlib.import_module
        builtins.__import__ = _import
        importlib.import_module = functools.wraps(_previous_import_module)(_import_module)
        _previous_exit, _installed_pid = os._exit, os.getpid()
        os._exit = _exit
        _installed = True
