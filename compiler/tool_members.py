"""What attributes an instance of a project's tool class has, when the sources say it all.

``tool_members`` gathers, along the class's MRO, every name its project classes bind in
their bodies (settings, attributes, methods, properties, nested classes) or assign on
``self`` in a method, and what every ``skillc.Tool`` has (``contracts.spec.TOOL_MEMBERS``).
It answers ``None`` whenever an instance may have more than that: a base from outside the
project other than ``skillc.Tool`` (and ``object``), a base the compiler cannot resolve,
a class decorator or a metaclass keyword, a class body with statements the index does not
read (``if``, ``for``...), a ``__getattr__``, or a method that reaches the instance's
attributes by name (``setattr(self, ...)``: ``ModuleIndex.dynamic_instances``).
"""

from __future__ import annotations

from ..contracts.spec import TOOL_MEMBERS
from .model_members import bases_resolved, instance_names
from .resolve import Linker
from .symbols import ClassSym, ExternalSym

__all__ = ["tool_members"]

#: The external bases whose instances have only what ``TOOL_MEMBERS`` lists.
_KNOWN_BASES = frozenset({"skillc.Tool", "builtins.object", "object"})


def tool_members(linker: Linker, cls: ClassSym) -> frozenset[str] | None:
    """Every attribute an instance of the tool class ``cls`` has, or ``None`` when the sources cannot tell."""
    names = set(TOOL_MEMBERS)
    for item in linker.mro(cls):
        if isinstance(item, ExternalSym):
            if item.qualname not in _KNOWN_BASES:
                return None
            continue
        info = item.info
        if info.skipped or info.decorators or info.keywords:
            return None
        if not bases_resolved(linker, item):
            return None
        if item.qualname in linker.modules[item.module].dynamic_instances:
            return None
        names.update(instance_names(info))
        if "__getattr__" in names or "__getattribute__" in names:
            return None
    return frozenset(names)
