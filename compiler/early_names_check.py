"""Report the names a module reads while it is imported, before it binds them.

Importing such a module raises ``NameError``, so every tool whose bundle holds it fails
when it is called, though nothing else is wrong with it.  The index finds these reads
(``index_early_names``, kept in ``ModuleIndex.early_uses``); ``check_early_names``
reports each, once per name and module, at its first read, for every module the
compiler indexed: a module no tool reaches today is one import away from it.
"""

from __future__ import annotations

from .index_types import EarlyUse
from .resolve import Linker

__all__ = ["check_early_names"]


def check_early_names(linker: Linker) -> None:
    """Report every ``EarlyUse`` of every module as ``skill/used-before-definition``."""
    for name in sorted(linker.modules):
        for use in linker.modules[name].early_uses:
            linker.report("skill/used-before-definition", name, use.pos, _message(use), hint=_hint(use))


def _message(use: EarlyUse) -> str:
    line = use.pos.line
    if use.bound_line > line:
        when = f"before it is defined (line {use.bound_line})"
    else:  # read inside the statement that binds it: ``class Node: children: list[Node]``
        when = f"before the statement that defines it (line {use.bound_line}) has finished"
    return (
        f"{use.name} is used when the module is imported (line {line}), {when}: importing the module raises NameError"
    )


def _hint(use: EarlyUse) -> str:
    if use.annotation and use.bound_line <= use.pos.line:
        return (
            f'quote the annotation ("{use.name}") or add `from __future__ import annotations` at the top of the module'
        )
    if use.annotation:
        return (
            f'quote the annotation ("{use.name}"), add `from __future__ import annotations` '
            f"at the top of the module, or define {use.name} above its first use"
        )
    if use.bound_line <= use.pos.line:
        return f"a statement cannot use the name it is defining: define {use.name} before it, or use it at call time"
    return f"define {use.name} above its first use (line {use.pos.line}), or use it only inside a function"
