"""Report the modules that read an environment variable by key while they are imported.

The index finds the reads (``index_environment``, kept in ``ModuleIndex.environment_reads``);
``check_environment_reads`` reports each whose name is ``os`` (or ``os.environ`` itself,
imported from it) as ``skill/environment-at-import``, for every module the compiler
indexed, as the command-line check does.
"""

from __future__ import annotations

from .index_types import ImportBinding
from .resolve import Linker

__all__ = ["check_environment_reads"]


def _is_os_environ(linker: Linker, module: str, name: str) -> bool:
    """Whether ``name`` (what the read starts from) is the module ``os``, or ``os.environ``."""
    binding = linker.binding(module, name, warn=False)
    item = binding.item if binding is not None else None
    if not isinstance(item, ImportBinding) or item.level != 0:
        return False
    if item.name is not None:  # from os import environ [as ...]
        return (item.module, item.name) == ("os", "environ")
    # import os [as name], or import os.path, which binds os
    return item.module == "os" or (item.module.startswith("os.") and item.local == "os")


def check_environment_reads(linker: Linker) -> None:
    """Report every environment variable read by key at import of every module."""
    for module in sorted(linker.modules):
        for name, shown, pos in linker.modules[module].environment_reads:
            if not _is_os_environ(linker, module, name):
                continue
            linker.report(
                "skill/environment-at-import",
                module,
                pos,
                f"{shown} is read when the module is imported: where the variable is not set, the import raises "
                "KeyError, and every tool whose bundle holds the module fails to load, whatever it is called with",
                hint="read the variable when the tool runs (ctx.env[...] in execute, where a missing one is that "
                "call's error), or give it a default (os.environ.get(...))",
            )
