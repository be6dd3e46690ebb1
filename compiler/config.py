"""Find and read ``[tool.skill]``: walk up to the project's ``pyproject.toml``, once.

The result is a ``Config`` with absolute paths.  A missing or malformed file is a
``ConfigError`` (exit 2); a key skillc does not know is a warning, since it is most
often a typo that would otherwise be silently ignored.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from ..contracts.errors import ConfigError
from ..contracts.settings import PER_CALL, SETTINGS, InvalidSetting
from .report import Reporter
from .types import Config, Finding, Pos

__all__ = ["KNOWN_KEYS", "STRICT_MODES", "locate_config", "read_config"]

KNOWN_KEYS = frozenset(
    {
        "entry",
        "src",
        "out",
        "schema",
        "chat",
        "data",
        "defaults",
        "max_file_bytes",
        "allow_outside",
        "include",
        "exclude",
    }
)
#: ``[tool.skill.chat] strict``: what ``skill chat`` sends as each tool's ``strict`` (each tool's own by default).
STRICT_MODES: Final = ("per-tool", "all", "none")
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


def _key_lines(text: str) -> tuple[int, dict[str, int]]:
    """The line of ``[tool.skill]``'s header, and of each ``key = ...`` inside it.

    One pass over the file, so that a table with thousands of keys costs no more than
    reading it.
    """
    in_table = False
    header = 1
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            in_table = re.fullmatch(r"\[\s*tool\s*\.\s*skill\s*\](\s*#.*)?", stripped) is not None
            header = number if in_table else header
        elif in_table:
            match = _KEY.match(stripped)
            if match is not None:
                lines.setdefault(match.group(1).strip("\"'"), number)
    return header, lines


_KEY = re.compile(r"""("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*=""")


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
    header, key_lines = _key_lines(text)
    known = ", ".join(sorted(KNOWN_KEYS))
    reporter = Reporter(root)
    warnings = tuple(
        reporter.diagnostic(
            Finding(
                "skill/unknown-config-key",
                f"unknown key {key!r} in [tool.skill]",
                relative,
                Pos(key_lines.get(key, header), 0),
                hint=f"known keys: {known}",
            )
        )
        for key in sorted(set(table) - KNOWN_KEYS)
    )
    src = (root / _path_setting(table, "src", pyproject)).resolve()
    entry = (root / _path_setting(table, "entry", pyproject)).resolve()
    out_dir = _out_folder(root, src, pyproject, table, out)
    if not src.is_relative_to(root):
        raise ConfigError(f"{pyproject}: [tool.skill] src must be inside the project")
    if not entry.is_relative_to(src):
        raise ConfigError(
            f"{pyproject}: [tool.skill] entry {entry.relative_to(root) if entry.is_relative_to(root) else entry} "
            f"must be a file inside src ({src.relative_to(root)})"
        )
    if entry.suffix != ".py":
        raise ConfigError(f"{pyproject}: [tool.skill] entry must be a .py file")
    schema = table.get("schema", "static")
    if schema not in ("static", "import"):
        raise ConfigError(f'{pyproject}: [tool.skill] schema must be "static" or "import"')
    chat = table.get("chat", {})
    if not isinstance(chat, dict):
        raise ConfigError(f"{pyproject}: [tool.skill.chat] must be a table")
    if chat.get("strict", STRICT_MODES[0]) not in STRICT_MODES:
        raise ConfigError(
            f"{pyproject}: [tool.skill.chat] strict must be " + ", ".join(f'"{mode}"' for mode in STRICT_MODES),
            hint='"all" makes every tool strict (deepseek\'s strict mode needs one value for all), "none" no tool',
        )
    return Config(
        root=root,
        pyproject=pyproject.resolve(),
        entry=entry,
        src=src,
        out=out_dir,
        schema=schema,
        chat=chat,
        defaults=_setting_defaults(table, pyproject),
        warnings=warnings,
        entry_line=key_lines.get("entry", header),
        dependencies=_dependencies(document, pyproject),
        max_file_bytes=_max_file_bytes(table, pyproject),
        outside_roots=_outside_roots(table, root, pyproject),
        include=_globs(table, "include", Config.include, pyproject),
        exclude=_globs(table, "exclude", Config.exclude, pyproject),
        **_data_settings(table, root, pyproject),
    )


def _setting_defaults(table: Mapping[str, Any], pyproject: Path) -> dict[str, object]:
    """``[tool.skill.defaults]``: a value for any row of the settings table, for the tools that do not set it.

    Each is checked by its row's rule, as a tool's own value is; a setting decided per call
    (a function) cannot be written in TOML, so only plain values are taken.
    """
    defaults = table.get("defaults", {})
    if not isinstance(defaults, dict):
        raise ConfigError(f"{pyproject}: [tool.skill.defaults] must be a table")
    rows = {setting.name: setting for setting in SETTINGS}
    checked: dict[str, object] = {}
    for key, value in defaults.items():
        setting = rows.get(key)
        if setting is None:
            raise ConfigError(
                f"{pyproject}: [tool.skill.defaults] has {key!r}, which is not a tool setting",
                hint="the settings are " + ", ".join(rows),
            )
        if not setting.project_default:
            raise ConfigError(
                f"{pyproject}: [tool.skill.defaults] cannot set {key!r}: it is set on each tool that needs it"
            )
        try:
            checked[key] = setting.plain(value)
        except InvalidSetting as error:
            raise ConfigError(f"{pyproject}: [tool.skill.defaults] {error}, not {value!r}") from None
        if setting.per_call and checked[key] == PER_CALL:
            raise ConfigError(f"{pyproject}: [tool.skill.defaults] {key} must be a value; a function is set per tool")
    return checked


#: The keys of ``[tool.skill.data]``.
DATA_KEYS = ("path", "url")


def _data_settings(table: Mapping[str, Any], root: Path, pyproject: Path) -> dict[str, Any]:
    """``[tool.skill.data]``: where ``ctx.data`` keeps its documents (checked strictly: a typo could
    send production data somewhere else)."""
    data = table.get("data", {})
    if not isinstance(data, dict):
        raise ConfigError(f"{pyproject}: [tool.skill.data] must be a table")
    unknown = sorted(set(data) - set(DATA_KEYS))
    if unknown:
        raise ConfigError(
            f"{pyproject}: unknown key {unknown[0]!r} in [tool.skill.data]", hint=f"known keys: {', '.join(DATA_KEYS)}"
        )
    url, path = data.get("url"), data.get("path")
    if url is not None and (not isinstance(url, str) or not url.strip()):
        raise ConfigError(f"{pyproject}: [tool.skill.data] url must be a non-empty string (a postgresql:// URL)")
    if path is not None and (not isinstance(path, str) or not path.strip()):
        raise ConfigError(f"{pyproject}: [tool.skill.data] path must be a non-empty string path")
    return {"data_url": url, "data_folder": (root / path).resolve() if path is not None else None}


def _globs(table: Mapping[str, Any], key: str, default: tuple[str, ...], pyproject: Path) -> tuple[str, ...]:
    """``include`` / ``exclude``: globs of data files, relative to ``src`` and kept inside it."""
    value = table.get(key, list(default))
    example = 'include = ["**/*.json", "data/**"]' if key == "include" else 'exclude = ["**/*.csv"]'
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise ConfigError(
            f"{pyproject}: [tool.skill] {key} must be a list of glob patterns",
            hint=f"patterns are relative to src, e.g. {example}",
        )
    for pattern in value:
        if pattern.startswith("/") or "\\" in pattern or ".." in pattern.split("/") or re.match(r"^[A-Za-z]:", pattern):
            raise ConfigError(
                f"{pyproject}: [tool.skill] {key} pattern {pattern!r} must be a relative path inside src "
                "(no leading '/', no '..', '/' as separator)",
                hint=f"patterns are relative to src, e.g. {example}",
            )
    return tuple(value)


def _outside_roots(table: Mapping[str, Any], root: Path, pyproject: Path) -> tuple[Path, ...]:
    """``allow_outside``: folders outside the project that symlinks in the sources may lead into."""
    value = table.get("allow_outside", [])
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise ConfigError(
            f"{pyproject}: [tool.skill] allow_outside must be a list of folder paths",
            hint='paths are relative to the project, e.g. allow_outside = ["../shared-lib"]',
        )
    return tuple((root / item).resolve() for item in value)


def _max_file_bytes(table: Mapping[str, Any], pyproject: Path) -> int:
    value = table.get("max_file_bytes", Config.max_file_bytes)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{pyproject}: [tool.skill] max_file_bytes must be a whole number of bytes, 1 or more")
    return value


def _out_folder(root: Path, src: Path, pyproject: Path, table: Mapping[str, Any], given: Path | None) -> Path:
    """The output folder, refused when writing it could replace something that is not output.

    A folder named in ``pyproject.toml`` (which arrives with a cloned repository) must
    stay inside the project; one given on the command line may be anywhere.  Neither
    may be a symbolic link, the project, a folder above it, or the source tree or a
    folder inside it.  Whether an existing folder is skillc's own output is checked
    when it is about to be replaced (``output.check_output_folder``).
    """
    if given is not None:
        lexical, origin = Path(os.path.abspath(given)), "--out"
    else:
        setting = _path_setting(table, "out", pyproject)
        lexical, origin = Path(os.path.abspath(root / setting)), f"{pyproject}: [tool.skill] out"
    if lexical.is_symlink():
        raise ConfigError(
            f"{origin} names {lexical}, a symbolic link; skillc does not replace what a link points to",
            hint="name a real folder (or one that does not exist yet)",
        )
    resolved = lexical.resolve()
    if given is None and not resolved.is_relative_to(root):
        raise ConfigError(
            f"{origin} leads outside the project ({resolved}); a configuration may only name a folder inside it",
            hint="give a folder outside the project on the command line instead: skill compile --out PATH",
        )
    if root.is_relative_to(resolved):
        raise ConfigError(f"{origin} names {resolved}, which holds the project itself; out must be a folder of its own")
    if src.is_relative_to(resolved) or resolved.is_relative_to(src):
        raise ConfigError(
            f"{origin} names {resolved}, which is or holds source files; out must be a folder of its own",
            hint=f"keep the output apart from the sources in {src.relative_to(root)}/ (the default is dist)",
        )
    return resolved


def _dependencies(document: Mapping[str, Any], pyproject: Path) -> tuple[str, ...]:
    project = document.get("project", {})
    dependencies = project.get("dependencies", []) if isinstance(project, dict) else []
    if not isinstance(dependencies, list) or not all(isinstance(item, str) for item in dependencies):
        raise ConfigError(f"{pyproject}: [project] dependencies must be a list of strings")
    return tuple(dependencies)
