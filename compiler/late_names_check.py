"""Report the names function bodies read that nothing binds where they run.

Calling such a function raises ``NameError`` at that read: a tool whose ``execute`` uses
a module it never imported compiles, loads, and then fails on every call.  The index
finds these reads (``index_function_bodies``, kept in ``ModuleIndex.late_uses``);
``check_late_names`` reports each as ``skill/undefined-name``, once per name and module,
at its first read, for every module the compiler indexed, as ``check_early_names`` does
for the reads of code run at import.
"""

from __future__ import annotations

from .early_names_check import extends_builtins
from .index_early_names import UNDER_MAIN_GUARD, UNDER_TYPE_CHECKING
from .index_types import LateUse
from .resolve import Linker

__all__ = ["check_late_names"]


def check_late_names(linker: Linker) -> None:
    """Report every ``LateUse`` of every module as ``skill/undefined-name``.

    A name the module's import-time code already reads undefined is reported there only
    (the import fails first).  No name is reported in a project one of whose modules
    imports ``builtins``: that module may add names to every other's builtins.
    """
    if extends_builtins(linker):
        return
    for name in sorted(linker.modules):
        index = linker.modules[name]
        undefined_at_import = {use.name for use in index.early_uses if use.bound_line is None}
        for use in index.late_uses:
            if use.name not in undefined_at_import:
                linker.report("skill/undefined-name", name, use.pos, _message(use), hint=_hint(use))


def _message(use: LateUse) -> str:
    read = f"{use.name} is used in {use.function} (line {use.pos.line})"
    fails = f"calling {use.function} raises NameError there"
    if use.bound_in is None:
        return f"{read}, and neither the function nor the module defines or imports it: {fails}"
    if use.bound_in == UNDER_MAIN_GUARD:
        return (
            f'{read}, and the module binds it only under `if __name__ == "__main__":` (line {use.bound_line}), '
            f"which never runs when the module is imported: {fails}"
        )
    if use.bound_in == UNDER_TYPE_CHECKING:
        return (
            f"{read}, and the module binds it only under `if TYPE_CHECKING:` (line {use.bound_line}), "
            f"which is false when code runs: {fails}"
        )
    return (
        f"{read}, and only the body of class {use.bound_in} binds it (line {use.bound_line}), "
        f"which the functions inside the class do not see: {fails}"
    )


def _hint(use: LateUse) -> str:
    if use.bound_in is None:
        if use.similar is not None:
            return f"did you mean {use.similar}? Otherwise import {use.name} at the top of the module, or define it"
        return f"import {use.name} at the top of the module, or define it"
    if use.bound_in == UNDER_MAIN_GUARD:
        return "bind it outside the main guard: a tool's module is imported, never run as a script"
    if use.bound_in == UNDER_TYPE_CHECKING:
        return "import it outside `if TYPE_CHECKING:`: the function uses it when it runs, not only in annotations"
    return f"read it as self.{use.name} or {use.bound_in}.{use.name}"
