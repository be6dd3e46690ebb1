"""Report the modules that parse the command line while they are imported.

The index finds the calls (``index_command_line``, kept in
``ModuleIndex.command_line_parses``); ``check_command_line`` reports each as
``skill/command-line-at-import``, for every module the compiler indexed, as the
import-time name check does: a module no tool reaches today is one import away from it.
"""

from __future__ import annotations

from .resolve import Linker

__all__ = ["check_command_line"]


def check_command_line(linker: Linker) -> None:
    """Report every command-line parse at import of every module."""
    for name in sorted(linker.modules):
        for called, pos in linker.modules[name].command_line_parses:
            linker.report(
                "skill/command-line-at-import",
                name,
                pos,
                f"{called}() parses the command line when the module is imported: in a compiled tool that is the "
                "command line of the process loading it (skill test, skill serve, a host), which the parser "
                "refuses (it exits) or reads as its own",
                hint='parse the command line under `if __name__ == "__main__":`, or give the parser its arguments '
                "(parse_args([...])); a tool reads its settings from ctx.env or its input",
            )
