"""Read a Google-style docstring into a description and per-argument descriptions.

The function form of a tool takes its description from its docstring and the
descriptions of its parameters from the ``Args:`` section.  The compiler reads the same
docstring from the source text, so this module is pure string work with no imports of
user code.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

__all__ = ["Docstring", "parse_docstring"]

# Headers that end the free-text description (Google style, as napoleon reads them).
_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Returns|Return|"
    r"Yields|Yield|Raises|Raise|Examples|Example|Notes|Note|Warnings|Warning|"
    r"See Also|Attributes|Todo|References):\s*$"
)
_ARG_SECTIONS = frozenset({"Args", "Arguments", "Parameters", "Params"})
# "name (type): text" or "name: text"; the type in parentheses is ignored.
_ARG_LINE = re.compile(r"^\*{0,2}(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(\([^)]*\))?\s*:\s*(?P<text>.*)$")


@dataclass(frozen=True)
class Docstring:
    """What a docstring says: the description and each argument's description."""

    description: str = ""
    args: dict[str, str] = field(default_factory=dict)


def parse_docstring(text: str | None) -> Docstring:
    """Split ``text`` into the description before the first section and the ``Args:``."""
    if not text:
        return Docstring()
    lines = inspect.cleandoc(text).splitlines()
    description: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    arg_indent: int | None = None
    for line in lines:
        header = _SECTION.match(line)
        if header:
            section, current, arg_indent = header.group(1), None, None
            continue
        if section is None:
            description.append(line)
            continue
        if section not in _ARG_SECTIONS or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if arg_indent is None:
            arg_indent = indent
        entry = _ARG_LINE.match(line.strip()) if indent <= arg_indent else None
        if entry:
            current = entry.group("name")
            args[current] = entry.group("text").strip()
        elif current is not None:
            args[current] = f"{args[current]} {line.strip()}".strip()
    return Docstring(description="\n".join(description).strip(), args=args)
