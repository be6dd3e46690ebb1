"""Report the names a module reads while it is imported, before it binds them or with nothing binding them.

Importing such a module raises ``NameError``, so every tool whose bundle holds it fails
when it is called, though nothing else is wrong with it.  The index finds these reads
(``index_early_names``, kept in ``ModuleIndex.early_uses``); ``check_early_names``
reports each, once per name and module, at its first read, for every module the
compiler indexed: a module no tool reaches today is one import away from it.
"""

from __future__ import annotations

from .index_early_names import UNDER_MAIN_GUARD
from .index_types import EarlyUse
from .resolve import Linker

__all__ = ["check_early_names", "extends_builtins", "reports_undefined"]


def check_early_names(linker: Linker) -> None:
    """Report every ``EarlyUse`` of every module: ``skill/used-before-definition``, or
    ``skill/undefined-name`` for a name no statement of the module binds.

    No name is reported undefined in a project one of whose modules imports ``builtins``:
    that module may add names to every other's builtins.
    """
    builtins_extended = extends_builtins(linker)
    for name in sorted(linker.modules):
        for use in linker.modules[name].early_uses:
            if use.bound_line is None:
                if builtins_extended:
                    continue
                if use.only_under is not None:  # bound only where the import never goes
                    linker.report("skill/undefined-name", name, use.pos, _only_under(use), hint=_only_under_hint(use))
                else:
                    linker.report("skill/undefined-name", name, use.pos, _undefined(use), hint=_undefined_hint(use))
                continue
            linker.report(
                "skill/used-before-definition",
                name,
                use.pos,
                _message(use, use.bound_line),
                hint=_hint(use, use.bound_line),
            )


def reports_undefined(linker: Linker, module: str, name: str) -> bool:
    """Whether ``check_early_names`` reports ``name`` as ``skill/undefined-name`` in ``module``
    (a check that finds the same name undefined need not say it again)."""
    uses = linker.modules[module].early_uses if module in linker.modules else ()
    return any(use.bound_line is None and use.name == name for use in uses) and not extends_builtins(linker)


def extends_builtins(linker: Linker) -> bool:
    """Whether a module of the project imports ``builtins``, through which it may add names to every module."""
    return any(
        binding.module == "builtins" and binding.level == 0
        for index in linker.modules.values()
        for binding in (*index.imports, *index.inner_imports)
    )


def _undefined(use: EarlyUse) -> str:
    return (
        f"{use.name} is used when the module is imported (line {use.pos.line}), and nothing in the module "
        "defines or imports it: importing the module raises NameError"
    )


def _only_under(use: EarlyUse) -> str:
    where = (
        '`if __name__ == "__main__":`, which does not run when the module is imported'
        if use.only_under == UNDER_MAIN_GUARD
        else "`if TYPE_CHECKING:`, which is false when code runs"
    )
    return (
        f"{use.name} is used when the module is imported (line {use.pos.line}), and the module binds it only "
        f"under {where} (line {use.only_under_line}): importing the module raises NameError"
    )


def _only_under_hint(use: EarlyUse) -> str:
    if use.only_under == UNDER_MAIN_GUARD:
        return "bind it outside the main guard: a tool's module is imported, never run as a script"
    if use.annotation:
        return (
            "add `from __future__ import annotations` at the top of the module (annotations are then not "
            "evaluated), or import it outside `if TYPE_CHECKING:`"
        )
    return "import it outside `if TYPE_CHECKING:`: the module uses it when it is imported"


def _undefined_hint(use: EarlyUse) -> str:
    if use.similar is not None:
        return f"did you mean {use.similar}? Otherwise import {use.name} or define it above its first use"
    return f"import {use.name} or define it above its first use (line {use.pos.line})"


def _message(use: EarlyUse, bound_line: int) -> str:
    line = use.pos.line
    if bound_line > line:
        when = f"before it is defined (line {bound_line})"
    else:  # read inside the statement that binds it: ``class Node: children: list[Node]``
        when = f"before the statement that defines it (line {bound_line}) has finished"
    return (
        f"{use.name} is used when the module is imported (line {line}), {when}: importing the module raises NameError"
    )


def _hint(use: EarlyUse, bound_line: int) -> str:
    if use.annotation and bound_line <= use.pos.line:
        return (
            f'quote the annotation ("{use.name}") or add `from __future__ import annotations` at the top of the module'
        )
    if use.annotation:
        return (
            f'quote the annotation ("{use.name}"), add `from __future__ import annotations` '
            f"at the top of the module, or define {use.name} above its first use"
        )
    if bound_line <= use.pos.line:
        return f"a statement cannot use the name it is defining: define {use.name} before it, or use it at call time"
    return f"define {use.name} above its first use (line {use.pos.line}), or use it only inside a function"
