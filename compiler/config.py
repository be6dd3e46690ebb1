"""Find and read ``[tool.skill]``: walk up to the project's ``pyproject.toml``, once.

The result is a ``Config`` with absolute paths.  A missing or malformed file is a
``ConfigError`` (exit 2); a key skillc does not know is a warning, since it is most
often a typo that would otherwise be silently ignored.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..runtime.errors import ConfigError
from .types import Config, Diagnostic, Severity

__all__ = ["KNOWN_KEYS", "locate_config", "read_config"]

KNOWN_KEYS = frozenset({"entry", "src", "out", "schema", "chat"})
DEFAULTS = {"entry": "src/agent.py", "src": "src", "out": "dist"}
PYPROJECT = "pyproject.toml"


def _has_skill_table(text: str) -> bool:
    return re.search(r"^\s*\[\s*tool\s*\.\s*skill\b", text, re.M) is not None


def locate_config(start: Path) -> Path:
    """Return the nearest ``pyproject.toml`` with a ``[tool.skill]`` table, from ``start`` up."""
    start = start.resolve()
    if not start.exists():
        raise ConfigError(f"{start} does not exist")
    folder = start if start.is_dir() else start.parent
    nearest: Path | None = None
    for candidate in (folder, *folder.parents):
        pyproject = candidate / PYPROJECT
        if not pyproject.is_file():
            continue
        nearest = nearest or pyproject
        try:
            if _has_skill_table(pyproject.read_text(encoding="utf-8")):
                return pyproject
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigError(f"cannot read {pyproject}: {error}") from error
    if nearest is not None:
        raise ConfigError(
            f"{nearest} has no [tool.skill] table",
            hint='add [tool.skill] with entry = "src/agent.py" (or run `skill init` for a new project)',
        )
    raise ConfigError(
        f"no pyproject.toml with a [tool.skill] table in {folder} or any folder above it",
        hint="run the command inside a skillc project, or create one with `skill init NAME`",
    )


def _key_line(text: str, key: str) -> int:
    """The line of ``key = ...`` inside ``[tool.skill]``, else of the table's header."""
    in_table = False
    header = 1
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            in_table = re.fullmatch(r"\[\s*tool\s*\.\s*skill\s*\](\s*#.*)?", stripped) is not None
            header = number if in_table else header
        elif in_table and re.match(rf"{re.escape(key)}\s*=", stripped):
            return number
    return header


def _path_setting(table: Mapping[str, Any], key: str, pyproject: Path) -> str:
    value = table.get(key, DEFAULTS[key])
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{pyproject}: [tool.skill] {key} must be a non-empty string path")
    return value


def read_config(pyproject: Path, *, out: Path | None = None) -> Config:
    """Read ``[tool.skill]`` of ``pyproject`` into a ``Config``; ``out`` overrides the file's."""
    try:
        text = pyproject.read_text(encoding="utf-8")
        document = tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read {pyproject}: {error}") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{pyproject} is not valid TOML: {error}") from error
    tool = document.get("tool", {})
    table = tool.get("skill") if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.skill] must be a table")
    root = pyproject.parent.resolve()
    relative = pyproject.name
    warnings = tuple(
        Diagnostic(
            code="skill/unknown-config-key",
            severity=Severity.WARNING,
            message=f"unknown key {key!r} in [tool.skill]",
            path=relative,
            line=_key_line(text, key),
            col=0,
            hint=f"known keys: {', '.join(sorted(KNOWN_KEYS))}",
        )
        for key in sorted(set(table) - KNOWN_KEYS)
    )
    src = (root / _path_setting(table, "src", pyproject)).resolve()
    entry = (root / _path_setting(table, "entry", pyproject)).resolve()
    out_dir = out.resolve() if out is not None else (root / _path_setting(table, "out", pyproject)).resolve()
    if not src.is_relative_to(root):
        raise ConfigError(f"{pyproject}: [tool.skill] src must be inside the project")
    if not entry.is_relative_to(src):
        raise ConfigError(
            f"{pyproject}: [tool.skill] entry {entry.relative_to(root) if entry.is_relative_to(root) else entry} "
            f"must be a file inside src ({src.relative_to(root)})"
        )
    if entry.suffix != ".py":
        raise ConfigError(f"{pyproject}: [tool.skill] entry must be a .py file")
    if out_dir == root or out_dir == src or src.is_relative_to(out_dir):
        raise ConfigError(f"{pyproject}: [tool.skill] out must be a folder of its own, not {out_dir}")
    schema = table.get("schema", "static")
    if schema not in ("static", "import"):
        raise ConfigError(f'{pyproject}: [tool.skill] schema must be "static" or "import"')
    chat = table.get("chat", {})
    if not isinstance(chat, dict):
        raise ConfigError(f"{pyproject}: [tool.skill.chat] must be a table")
    return Config(
        root=root,
        pyproject=pyproject.resolve(),
        entry=entry,
        src=src,
        out=out_dir,
        schema=schema,
        chat=chat,
        warnings=warnings,
        entry_line=_key_line(text, "entry"),
        dependencies=_dependencies(document, pyproject),
    )


def _dependencies(document: Mapping[str, Any], pyproject: Path) -> tuple[str, ...]:
    project = document.get("project", {})
    dependencies = project.get("dependencies", []) if isinstance(project, dict) else []
    if not isinstance(dependencies, list) or not all(isinstance(item, str) for item in dependencies):
        raise ConfigError(f"{pyproject}: [project] dependencies must be a list of strings")
    return tuple(dependencies)
