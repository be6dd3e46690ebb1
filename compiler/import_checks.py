"""Check the project's imports: each project-local one resolves, none fails in a cycle.

``check_imports`` reports star imports (their names cannot be known statically),
project-local imports of a module or name that does not exist, wherever the import
sits (a lazy import in a function fails when the tool is called), and the calls of
``import_module``/``__import__`` whose module name is not a literal, which no bundle
can be sure to hold; a module that exists but does not parse is left to its own
syntax error.  ``report_import_cycles`` reports
the from-imports that run while the module they import from is still initialising,
from each module Python imports first: the entry module, each tool's module and each
conditional skill's module.  Every problem is a ``Finding`` on the linker.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cycles import ImportStart, find_import_cycles
from .resolve import Linker
from .types import SkillInfo, ToolInfo

__all__ = ["check_imports", "report_import_cycles"]


def check_imports(linker: Linker) -> None:
    """Report every star import, every project-local import that resolves to nothing, every
    dynamic import, and every ``pkgutil.get_data`` of a project package in a function."""
    for name in sorted(linker.modules):
        index = linker.modules[name]
        _report_late_data_reads(linker, name)
        for call in index.dynamic_imports:
            linker.report(
                "skill/dynamic-import",
                name,
                call.pos,
                f"{call.kind}({call.text}) imports a module only running the code can name: "
                "the compiler cannot put it in the tool's bundle",
                hint="import the module with an import statement, or pass its name as a literal string",
            )
        missing_reported: set[tuple[str, int]] = set()
        for item in (*index.imports, *index.inner_imports):
            written = f"{'.' * item.level}{item.module}"
            if item.star:
                target = linker.absolute(name, item)
                local = target is not None and linker.is_local(target)
                linker.report(
                    "skill/star-import",
                    name,
                    item.pos,
                    f"'from {written} import *' hides which names this module takes from it"
                    if local
                    else f"'from {written} import *' cannot be resolved statically: "
                    "the names it binds are unknown to the compiler",
                    hint="import the names you use explicitly",
                )
                continue
            if item.level == 0 and not linker.is_local(item.module):
                continue
            target = linker.absolute(name, item)
            if target is None:
                linker.report(
                    "skill/unresolved-import",
                    name,
                    item.pos,
                    f"relative import {written!r} goes above the import root",
                )
            elif not linker.is_module(target):
                if (target, item.pos.line) in missing_reported:
                    continue  # one report per statement for a module that is missing
                missing_reported.add((target, item.pos.line))
                linker.report(
                    "skill/unresolved-import",
                    name,
                    item.pos,
                    f"no module {target!r} in the project",
                    hint=f"the import root is {linker.config.src.relative_to(linker.config.root).as_posix()}/",
                )
            elif target in linker.failed:
                continue  # the module does not parse: its syntax error is the report
            elif item.name is not None and linker.resolve_import(name, item) is None:
                linker.report(
                    "skill/unresolved-import",
                    name,
                    item.pos,
                    f"module {target!r} has no {item.name!r}",
                )


def _report_late_data_reads(linker: Linker, name: str) -> None:
    """``skill/get-data-at-call-time``: a function of ``name`` reads a project package's data with ``pkgutil.get_data``."""
    index = linker.modules[name]
    package_of_module = name if index.is_package else name.rpartition(".")[0]
    for written, pos in index.late_data_reads:
        package = {"__name__": name, "__package__": package_of_module}.get(written, written)
        if not package or not linker.is_local(package):
            continue  # an installed package: found at call time the standard way
        shown = written if written in ("__name__", "__package__") else repr(written)
        linker.report(
            "skill/get-data-at-call-time",
            name,
            pos,
            f"pkgutil.get_data({shown}, ...) in a function looks the package up when it runs, and the "
            "modules of a tool's bundle cannot be found that way: the call fails when the tool is called",
            hint="read the file at module level (DATA = pkgutil.get_data(__name__, 'file.json')) and use DATA "
            "in the function, or keep importlib.resources.files(__package__) at module level",
        )


def report_import_cycles(linker: Linker, entry: str, tools: Sequence[ToolInfo], skills: Sequence[SkillInfo]) -> None:
    """Report the from-imports that fail in a cycle, from each module imported first.

    The entry module is what importing the agent runs; each tool's bundle imports the
    tool's module first, and each skill condition's bundle the skill's module.
    """
    starts = [ImportStart(entry, f"when the entry module {entry} is imported")]
    starts += [
        ImportStart(tool.module, f"when the bundle of tool {tool.name!r} imports {tool.module} first") for tool in tools
    ]
    starts += [
        ImportStart(skill.module, f"when the condition of skill {skill.name!r} imports {skill.module} first")
        for skill in skills
        if skill.has_condition
    ]
    for cycle in find_import_cycles(linker, starts):
        linker.report(
            "skill/import-cycle",
            cycle.module,
            cycle.pos,
            cycle.message,
            hint=cycle.hint,
            related=tuple((linker.path_of(module), pos, note) for module, pos, note in cycle.related),
        )
