"""What a name in the project can mean, once resolved: the symbols ``resolve.Linker`` answers with.

A module, a project class (with the classes it is defined in, for ``Outer.Inner``), a
project function, a module-level value, something from outside the project (by its
qualified name, ``canonical`` for the SDK's), or an ``UnknownSym`` whose meaning only
running the code would tell.  Plain frozen values, compared and hashed by content.
"""

from __future__ import annotations

from dataclasses import dataclass

from .index_types import ClassInfo, FunctionInfo, ValueBinding

__all__ = [
    "SDK_NAMES",
    "ClassSym",
    "ExternalSym",
    "FunctionSym",
    "ModuleSym",
    "Symbol",
    "UnknownSym",
    "ValueSym",
    "canonical",
]

#: The names of the authoring SDK, wherever in ``skillc`` they are imported from.
SDK_NAMES = frozenset({"Tool", "tool", "Skill", "Agent", "ToolContext", "ToolFlag", "FunctionTool"})


@dataclass(frozen=True, slots=True)
class ModuleSym:
    name: str


@dataclass(frozen=True, slots=True)
class ClassSym:
    module: str
    info: ClassInfo
    #: The classes it is defined in, dotted (``"Outer"`` for ``Outer.Inner``); empty at module level.
    outer: str = ""

    @property
    def qualname(self) -> str:
        return f"{self.outer}.{self.info.name}" if self.outer else self.info.name

    @property
    def key(self) -> tuple[str, str]:
        return (self.module, self.qualname)


@dataclass(frozen=True, slots=True)
class FunctionSym:
    module: str
    info: FunctionInfo


@dataclass(frozen=True, slots=True)
class ValueSym:
    module: str
    binding: ValueBinding


@dataclass(frozen=True, slots=True)
class ExternalSym:
    qualname: str


@dataclass(frozen=True, slots=True)
class UnknownSym:
    """A name whose meaning only running the code would tell (star imports, cycles).

    ``reported`` marks an unknown whose cause already has its own diagnostic (a
    module that does not parse), so that nothing downstream reports it again.
    """

    reason: str
    reported: bool = False


Symbol = ModuleSym | ClassSym | FunctionSym | ValueSym | ExternalSym | UnknownSym


def canonical(qualname: str) -> str:
    """``skillc.runtime.sdk.ToolFlag.NONE`` -> ``skillc.ToolFlag.NONE``."""
    parts = qualname.split(".")
    if parts[0] == "skillc":
        for index, part in enumerate(parts[1:], start=1):
            if part in SDK_NAMES:
                return ".".join(["skillc", *parts[index:]])
    return qualname
