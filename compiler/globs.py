"""Glob patterns of ``[tool.skill] include`` and ``exclude``, matched against paths relative to ``src``.

A pattern matches a whole path, ``/``-separated: ``*`` is any run of characters but
``/``, ``?`` one such character, ``[abc]`` (``[!abc]``) one of (none of) those, and
``**`` as a whole part any number of folders, none included: ``**/*.json`` is every
JSON file, ``data/**`` everything under ``data/``, ``*.txt`` a text file of ``src``
itself.  This module is a leaf.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

__all__ = ["compile_glob", "matches_any"]


def _part(part: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(part):
        char = part[index]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            start = index + 2 if part[index + 1 : index + 2] == "!" else index + 1
            end = part.find("]", start + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                negate = "^" if start == index + 2 else ""
                members = part[start:end].replace("\\", "\\\\").replace("^", "\\^")
                out.append(f"[{negate}{members}]")
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


@functools.lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """The regular expression matching the paths ``pattern`` names."""
    parts = pattern.strip("/").split("/")
    regex = ""
    for number, part in enumerate(parts):
        last = number == len(parts) - 1
        if part == "**":
            regex += ".*" if last else "(?:[^/]+/)*"
        else:
            regex += _part(part) + ("" if last else "/")
    return re.compile(regex + r"\Z", re.DOTALL)


def matches_any(path: str, patterns: Iterable[str]) -> bool:
    """Whether ``path`` (relative to ``src``, ``/``-separated) matches one of ``patterns``."""
    return any(compile_glob(pattern).match(path) for pattern in patterns)
