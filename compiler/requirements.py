"""Which declared dependency provides a third-party import, if any.

A tool's third-party imports become its requirements, named as ``[project]
dependencies`` declares them.  An import is provided by a declared distribution when
its top-level name is that distribution's (``yaml`` is not ``PyYAML``, so the installed
distributions' own lists of top-level names are asked next), or when a declared
distribution requires the one providing it, directly or not: pydantic brings
``typing_extensions`` and ``annotated_types``, skillc brings pydantic.  The installed
distributions' metadata answers both questions; reading it is slow, so it is read only
for an import that is not itself a declared name, and at most once per compile.

What a compile's results depend on outside the project, ``environment_key``, is made here
too: the installed distributions (pydantic's version decides the schemas, the others'
metadata the requirements), skillc's and Python's versions.
"""

from __future__ import annotations

import os
import platform
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final

from ..contracts.version import __version__

__all__ = ["IMPLIED_IMPORTS", "Dependencies", "declared_requirements", "environment_key", "normalize"]

_METADATA_SUFFIXES = (".dist-info", ".egg-info")


def environment_key() -> str:
    """What the compiled results depend on besides the project: skillc's version, Python's,
    and every distribution installed where imports are found (``sys.path``, in order), with its
    version.  Folders that hold no distribution do not count.

    The metadata folders' names hold both (``pydantic-2.14.4.dist-info``), so listing them
    is enough and takes well under a millisecond: no metadata file is read.
    """
    parts = [__version__, platform.python_implementation(), sys.version]
    for folder in sys.path:
        try:
            with os.scandir(folder or ".") as entries:
                names = sorted(entry.name for entry in entries if entry.name.endswith(_METADATA_SUFFIXES))
        except OSError:  # a missing folder, a zip file: no distributions there
            continue
        if names:  # a folder of sources only (the current one, under ``python -m``) changes nothing
            parts.append(f"{folder}:{','.join(names)}")
    return "\n".join(parts)


_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?")
_EXTRA = re.compile(r"""\bextra\s*==\s*['"]([^'"]+)['"]""")


def normalize(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


#: Names whose use imports a module that their own distribution does not require (one of
#: its extras does): (module, name) -> (the module, the requirement that brings it).  A
#: model with an ``EmailStr`` field imports ``email_validator`` when its class is made.
IMPLIED_IMPORTS: Final[Mapping[tuple[str, str], tuple[str, str]]] = {
    (module, name): ("email_validator", "pydantic[email]")
    for module in ("pydantic", "pydantic.networks")
    for name in ("EmailStr", "NameEmail", "validate_email")
}


def declared_requirements(dependencies: Iterable[object]) -> dict[str, str]:
    """``[project] dependencies`` by normalised distribution name."""
    found: dict[str, str] = {}
    for requirement in dependencies:
        if isinstance(requirement, str):
            match = _REQUIREMENT.match(requirement)
            if match:
                found[normalize(match.group(1))] = requirement.strip()
    return found


def _parsed(requirement: str) -> tuple[str, frozenset[str], frozenset[str]] | None:
    """A requirement's normalised name, the extras it asks for, and the extras its marker needs."""
    match = _REQUIREMENT.match(requirement)
    if match is None:
        return None
    extras = frozenset(normalize(extra.strip()) for extra in (match.group(2) or "").split(",") if extra.strip())
    _, _, marker = requirement.partition(";")
    return normalize(match.group(1)), extras, frozenset(normalize(extra) for extra in _EXTRA.findall(marker))


class Dependencies:
    """The project's declared dependencies, and what each brings in.

    ``distributions()`` maps top-level import names to the distributions providing them
    (``importlib.metadata.packages_distributions()``); ``requires(name)`` lists an
    installed distribution's requirements (``importlib.metadata.requires``), ``None``
    when it is not installed; ``installed(top)`` says whether the environment can import
    the top-level module ``top``.  All are asked only when an import needs them.
    """

    def __init__(
        self,
        dependencies: Iterable[object],
        distributions: Callable[[], Mapping[str, Sequence[str]]],
        requires: Callable[[str], Sequence[str] | None],
        installed: Callable[[str], bool],
    ) -> None:
        self.declared = declared_requirements(dependencies)
        self._distributions = distributions
        self._requires = requires
        self._installed = installed
        self._brought: dict[str, str] | None = None
        self._importable: dict[str, bool] = {}

    def installed(self, top: str) -> bool:
        """Whether this environment (the one ``skill`` runs in) can import the top-level module ``top``."""
        known = self._importable.get(top)
        if known is None:
            known = self._importable[top] = self._installed(top)
        return known

    def distribution_for(self, top: str) -> str | None:
        """The installed distribution that provides the import ``top`` (``yaml`` -> ``PyYAML``); ``None`` if none is known."""
        provided = self._distributions().get(top, [])
        return provided[0] if provided else None

    def requirement_for(self, top: str) -> str | None:
        """The declared requirement that provides the import ``top``; ``None`` when none does."""
        direct = self.declared.get(normalize(top))
        if direct is not None:
            return direct
        candidates = [normalize(name) for name in self._distributions().get(top, [])]
        for name in candidates:
            if name in self.declared:
                return self.declared[name]
        brought = self._brought_in()
        return next((brought[name] for name in [*candidates, normalize(top)] if name in brought), None)

    def _brought_in(self) -> dict[str, str]:
        """Every distribution a declared one requires, directly or not -> the declared requirement."""
        if self._brought is None:
            self._brought = {}
            for root, requirement in self.declared.items():
                parsed = _parsed(requirement)
                pending = [(root, parsed[1] if parsed else frozenset[str]())]
                visited: set[tuple[str, frozenset[str]]] = set()
                while pending:
                    name, extras = pending.pop()
                    if (name, extras) in visited:
                        continue
                    visited.add((name, extras))
                    for child in self._requires(name) or ():
                        found = _parsed(child)
                        if found is None or (found[2] and not found[2] & extras):
                            continue  # only with an extra that was not asked for
                        self._brought.setdefault(found[0], requirement)
                        pending.append((found[0], found[1]))
        return self._brought
