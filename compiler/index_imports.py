"""Read the imports a module makes beyond its top level, from its ``ast`` tree.

``index`` records the imports of the module's top level (and of its ``if``/``try``/
``with`` blocks), which bind module-level names.  Everything a module imports counts
for what its tools need, though: an import inside a function or method (a lazy
import), in a class body or a loop, and ``importlib.import_module("name")`` or
``__import__("name")`` with a literal name.  ``scan_imports`` finds those, and the
calls of those two functions whose name is not a literal, which no compiler can see.
It also finds the ``pkgutil.get_data(package, ...)`` calls in function bodies: they look
the package up when the function runs (``importlib.util.find_spec``), which a bundle's
modules cannot be found by.

Only statements are walked for import statements (they never sit in expressions);
calls are looked for only in a file whose bytes mention ``import_module`` or
``__import__``.  ``ast.walk`` and the explicit stack never recurse, so nesting costs
nothing here.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from .index_types import Dynamic, ImportBinding
from .types import Pos

__all__ = [
    "ImportScan",
    "copes_with_missing_module",
    "import_bindings",
    "is_main_guard",
    "is_type_checking",
    "may_catch",
    "scan_imports",
]

#: The blocks ``index`` walks at the top level: their imports are module-level imports.
_TOP_LEVEL_BLOCKS = (ast.If, ast.Try, ast.TryStar, ast.With)
_DYNAMIC_TEXT_LIMIT = 80


@dataclass(frozen=True)
class ImportScan:
    """What ``scan_imports`` found."""

    inner: tuple[ImportBinding, ...]
    dynamic: tuple[Dynamic, ...]
    reexport_only: bool
    #: ``pkgutil.get_data`` calls in functions: the package as written (a literal, ``__name__``
    #: or ``__package__``) and where; a package given any other way is left out.
    late_data_reads: tuple[tuple[str, Pos], ...] = ()


def is_type_checking(test: ast.expr) -> bool:
    """Whether an ``if`` tests ``TYPE_CHECKING`` (or ``typing.TYPE_CHECKING``): never true at run time."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    if isinstance(test, ast.Attribute):
        return test.attr == "TYPE_CHECKING"
    return False


def may_catch(handlers: Sequence[ast.ExceptHandler], error: type[BaseException]) -> bool:
    """Whether one of a ``try``'s ``handlers`` may catch ``error``: a bare ``except``, or any
    type that is not a builtin exception unrelated to it (a name the compiler cannot see
    through may be anything)."""
    stack: list[ast.expr | None] = [handler.type for handler in handlers]
    while stack:
        caught = stack.pop()
        if isinstance(caught, ast.Tuple):
            stack.extend(caught.elts)
            continue
        known = getattr(builtins, caught.id, None) if isinstance(caught, ast.Name) else None
        if not (isinstance(known, type) and issubclass(known, BaseException) and not issubclass(error, known)):
            return True
    return False


def copes_with_missing_module(handlers: Sequence[ast.ExceptHandler]) -> bool:
    """Whether a ``try`` goes on when a module its body imports is missing: one of its
    ``handlers`` may catch ``ModuleNotFoundError`` and does not end by raising again
    (``except ImportError as e: raise ImportError("pip install ...") from e`` only says
    it better: the module is needed all the same)."""
    return any(
        may_catch([handler], ModuleNotFoundError) and not (handler.body and isinstance(handler.body[-1], ast.Raise))
        for handler in handlers
    )


def is_main_guard(test: ast.expr) -> bool:
    """Whether an ``if`` tests ``__name__ == "__main__"``: never true when the module is imported."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = {ast.dump(test.left), ast.dump(test.comparators[0])}
    return sides == {ast.dump(ast.Name("__name__", ast.Load())), ast.dump(ast.Constant("__main__"))}


def scan_imports(
    tree: ast.Module, source: bytes, module_name: str, is_package: bool, position: Callable[[ast.AST], Pos]
) -> ImportScan:
    """The inner imports, literal and dynamic import calls of one module; see the module docstring."""
    inner: list[ImportBinding] = []
    importlib_names: set[str] = set()
    import_module_names: set[str] = set()
    #: Names of ``importlib.resources`` (``from importlib import resources``) and of its ``files``.
    resources_names: set[str] = set()
    files_names: set[str] = set()
    #: Names of ``pkgutil`` and of its ``get_data``.
    pkgutil_names: set[str] = set()
    get_data_names: set[str] = set()
    for statement, nested, typing_only, guarded in _statements(tree.body):
        if not isinstance(statement, ast.Import | ast.ImportFrom):
            continue
        bindings = import_bindings(statement, position, typing_only, guarded)
        for binding in bindings:
            if binding.module == "importlib" and binding.name in (None, "import_module"):
                (importlib_names if binding.name is None else import_module_names).add(binding.local)
            elif binding.module == "importlib.resources" and binding.name == "files":
                files_names.add(binding.local)
            elif binding.module == "importlib.resources" and binding.name is None:  # import importlib.resources [as r]
                (importlib_names if binding.local == "importlib" else resources_names).add(binding.local)
            elif binding.module == "importlib" and binding.name == "resources":
                resources_names.add(binding.local)
            elif binding.module == "pkgutil" and binding.name is None:
                pkgutil_names.add(binding.local)
            elif binding.module == "pkgutil" and binding.name == "get_data":
                get_data_names.add(binding.local)
        if nested:
            inner.extend(bindings)
    dynamic: list[Dynamic] = []
    if b"import_module" in source or b"__import__" in source:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                kind = _import_call(node.func, importlib_names, import_module_names)
                if kind is not None:
                    found = _called_import(node, kind, module_name, is_package, position)
                    if isinstance(found, ImportBinding):
                        inner.append(found)
                    else:
                        dynamic.append(found)
    if b"files" in source:  # importlib.resources.files("pkg") imports pkg: it must be in the bundle
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _is_files(node.func, importlib_names, resources_names, files_names):
                anchor = _argument(node, 0, "anchor")
                if isinstance(anchor, ast.Constant) and isinstance(anchor.value, str) and anchor.value:
                    inner.append(ImportBinding("", anchor.value, None, 0, position(node)))
    late: dict[Pos, str] = {}
    if b"get_data" in source and (pkgutil_names or get_data_names):
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and _is_function(node.func, "get_data", get_data_names, pkgutil_names):
                    package = _argument(node, 0, "package")
                    if isinstance(package, ast.Constant) and isinstance(package.value, str):
                        late[position(node)] = package.value
                    elif isinstance(package, ast.Name) and package.id in ("__name__", "__package__"):
                        late[position(node)] = package.id
    reads = tuple((package, pos) for pos, package in sorted(late.items(), key=lambda item: (item[0].line, item[0].col)))
    return ImportScan(tuple(inner), tuple(dynamic), is_package and _reexport_only(tree.body), reads)


def _is_files(func: ast.expr, importlib_names: set[str], resources_names: set[str], files_names: set[str]) -> bool:
    """Whether ``func`` is ``importlib.resources.files`` under any of the names the module gave it."""
    if _is_function(func, "files", files_names, resources_names):
        return True
    owner = func.value if isinstance(func, ast.Attribute) and func.attr == "files" else None
    return (
        isinstance(owner, ast.Attribute)
        and owner.attr == "resources"
        and isinstance(owner.value, ast.Name)
        and owner.value.id in importlib_names
    )


def _is_function(func: ast.expr, name: str, function_names: set[str], module_names: set[str]) -> bool:
    """Whether ``func`` is the function ``name`` of a module: a name the module bound to the function
    (``function_names``), or the attribute ``name`` of a name it bound to the module (``module_names``)."""
    if isinstance(func, ast.Name):
        return func.id in function_names
    return (
        isinstance(func, ast.Attribute)
        and func.attr == name
        and isinstance(func.value, ast.Name)
        and func.value.id in module_names
    )


def _statements(body: Sequence[ast.stmt]) -> Iterator[tuple[ast.stmt, bool, bool, bool]]:
    """Every statement, whether it is nested beyond what ``index`` reads, whether under
    ``TYPE_CHECKING``, and whether in a ``try`` body that goes on without a missing module
    (``copes_with_missing_module``)."""
    pending: list[tuple[ast.stmt, bool, bool, bool]] = [
        (statement, False, False, False) for statement in reversed(body)
    ]
    while pending:
        statement, nested, typing_only, guarded = pending.pop()
        yield statement, nested, typing_only, guarded
        inside = nested or not isinstance(statement, _TOP_LEVEL_BLOCKS)
        blocks: list[tuple[Sequence[ast.stmt], bool, bool]] = []
        if isinstance(statement, ast.If):
            blocks.append((statement.body, typing_only or is_type_checking(statement.test), guarded))
            blocks.append((statement.orelse, typing_only, guarded))
        elif isinstance(statement, ast.Try | ast.TryStar):
            blocks.append((statement.body, typing_only, guarded or copes_with_missing_module(statement.handlers)))
            blocks.append((statement.orelse, typing_only, guarded))
            blocks.append((statement.finalbody, typing_only, guarded))
            blocks.extend((handler.body, typing_only, guarded) for handler in statement.handlers)
        else:
            for field in ("body", "orelse", "finalbody"):
                value = getattr(statement, field, None)
                if isinstance(value, list):
                    blocks.append((value, typing_only, guarded))
            for case in getattr(statement, "cases", ()):
                blocks.append((case.body, typing_only, guarded))
        for block, typing, guard in reversed(blocks):
            pending.extend((child, inside, typing, guard) for child in reversed(block))


def import_bindings(
    statement: ast.Import | ast.ImportFrom,
    position: Callable[[ast.AST], Pos],
    typing_only: bool,
    guarded: bool,
    branch: str | None = None,
) -> list[ImportBinding]:
    """The names one import statement binds (see ``ImportBinding`` for the flags)."""
    if isinstance(statement, ast.Import):
        return [
            ImportBinding(
                alias.asname or alias.name.split(".")[0],
                alias.name,
                None,
                0,
                position(alias),
                branch=branch,
                typing_only=typing_only,
                guarded=guarded,
            )
            for alias in statement.names
        ]
    module = statement.module or ""
    level = statement.level or 0
    if any(alias.name == "*" for alias in statement.names):
        return [ImportBinding("*", module, None, level, position(statement), star=True, branch=branch, guarded=guarded)]
    return [
        ImportBinding(
            alias.asname or alias.name,
            module,
            alias.name,
            level,
            position(alias),
            branch=branch,
            typing_only=typing_only,
            guarded=guarded,
        )
        for alias in statement.names
    ]


def _import_call(func: ast.expr, importlib_names: set[str], import_module_names: set[str]) -> str | None:
    """``"importlib.import_module"`` or ``"__import__"`` when ``func`` is one of them, else ``None``."""
    if isinstance(func, ast.Name):
        if func.id == "__import__":
            return "__import__"
        return "importlib.import_module" if func.id in import_module_names else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if func.attr == "import_module" and func.value.id in importlib_names:
            return "importlib.import_module"
        if func.attr == "__import__" and func.value.id == "builtins":
            return "__import__"
    return None


def _argument(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    if len(call.args) > index and not any(isinstance(arg, ast.Starred) for arg in call.args[: index + 1]):
        return call.args[index]
    return next((item.value for item in call.keywords if item.arg == keyword), None)


def _called_import(
    call: ast.Call, kind: str, module_name: str, is_package: bool, position: Callable[[ast.AST], Pos]
) -> ImportBinding | Dynamic:
    """The module a call of ``import_module``/``__import__`` imports, or why it cannot be known."""
    pos = position(call)
    name = _argument(call, 0, "name")
    absolute = None
    if isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.strip("."):
        if kind == "__import__":
            level = _argument(call, 4, "level")
            relative = level is not None and not (isinstance(level, ast.Constant) and level.value == 0)
            absolute = None if relative else name.value
        else:
            absolute = _resolve(name.value, _argument(call, 1, "package"), module_name, is_package)
    if absolute is not None:
        # Found by a walk that does not see the ``try`` around the call: taken as one that copes
        # with the module missing, so that a missing third-party module is never wrongly required.
        return ImportBinding("", absolute, None, 0, pos, guarded=True)
    text = ast.unparse(name) if name is not None else ""
    if len(text) > _DYNAMIC_TEXT_LIMIT:
        text = text[: _DYNAMIC_TEXT_LIMIT - 3] + "..."
    return Dynamic(kind, text, pos)


def _resolve(name: str, package: ast.expr | None, module_name: str, is_package: bool) -> str | None:
    """The absolute name ``import_module(name, package)`` imports, as ``importlib`` resolves it."""
    level = len(name) - len(name.lstrip("."))
    if not level:
        return name
    if isinstance(package, ast.Constant) and isinstance(package.value, str):
        anchor = package.value
    elif isinstance(package, ast.Name) and package.id == "__name__":
        anchor = module_name
    elif isinstance(package, ast.Name) and package.id == "__package__":
        anchor = module_name if is_package else module_name.rpartition(".")[0]
    else:
        return None
    bits = anchor.rsplit(".", level - 1)
    if not anchor or len(bits) < level:
        return None
    rest = name[level:]
    return f"{bits[0]}.{rest}" if rest else bits[0]


def _reexport_only(body: Sequence[ast.stmt]) -> bool:
    """Whether a module holds nothing but imports (no star), a docstring and a literal ``__all__``."""
    for index, statement in enumerate(body):
        if isinstance(statement, ast.ImportFrom):
            if any(alias.name == "*" for alias in statement.names):
                return False
        elif isinstance(statement, ast.Import):
            continue
        elif isinstance(statement, ast.Expr):
            if index or not (isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)):
                return False
        elif not _literal_all(statement):
            return False
    return True


def _literal_all(statement: ast.stmt) -> bool:
    """``__all__ = ["a", "b"]`` (or a tuple, or annotated)."""
    if isinstance(statement, ast.Assign):
        targets, value = statement.targets, statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        targets, value = [statement.target], statement.value
    else:
        return False
    return (
        len(targets) == 1
        and isinstance(targets[0], ast.Name)
        and targets[0].id == "__all__"
        and isinstance(value, ast.List | ast.Tuple)
        and all(isinstance(item, ast.Constant) and isinstance(item.value, str) for item in value.elts)
    )
