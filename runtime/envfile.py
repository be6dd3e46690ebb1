"""Read a project's environment files: ``.env``, then ``.env.<environment>`` over it.

The syntax is the usual dotenv one: ``KEY=value`` lines, blank lines and ``#``
comments, an optional ``export`` prefix, values bare (a `` #`` starts a comment),
in single quotes (literal; ``\\'`` and ``\\\\`` only) or in double quotes (the
escapes ``\\n \\t \\r \\" \\\\`` and friends, and line breaks inside).  Variables are
not expanded: ``$HOME`` stays ``$HOME``.

The values are secrets as often as not, so they are never logged, and an error
names the file and line but never repeats the line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Final

from ..contracts.errors import ConfigError, UsageError
from ..contracts.spec import ENVIRONMENTS

__all__ = ["export_missing", "load_env", "parse_env", "shell_variables", "with_process_env"]

_KEY: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_EXPORT: Final = re.compile(r"export[ \t]+")
_BLANK: Final = re.compile(r"[ \t]*")
_DOUBLE_ESCAPES: Final = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    '"': '"',
    "\\": "\\",
    "'": "'",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "$": "$",
}


class _Syntax(Exception):
    def __init__(self, line: int, problem: str) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem


class _Reader:
    """A cursor over the text of one file."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    @property
    def line(self) -> int:
        return self.text.count("\n", 0, self.at) + 1

    def peek(self) -> str:
        return self.text[self.at : self.at + 1]

    def match(self, pattern: re.Pattern[str]) -> str | None:
        found = pattern.match(self.text, self.at)
        if found is None:
            return None
        self.at = found.end()
        return found.group()

    def rest_of_line(self) -> str:
        end = self.text.find("\n", self.at)
        end = len(self.text) if end < 0 else end
        piece, self.at = self.text[self.at : end], end
        return piece

    def end_of_entry(self) -> None:
        """After a quoted value: only blanks and a comment may follow on the line."""
        self.match(_BLANK)
        if self.peek() == "#":
            self.rest_of_line()
        elif self.peek() not in ("", "\n"):
            raise _Syntax(self.line, "unexpected text after the closing quote")

    def quoted(self, quote: str) -> str:
        start_line = self.line
        self.at += 1
        out: list[str] = []
        while True:
            char = self.peek()
            if char == "":
                raise _Syntax(start_line, f"the value's {quote} quote is never closed")
            self.at += 1
            if char == quote:
                return "".join(out)
            if char == "\\":
                following = self.peek()
                if quote == '"' and following in _DOUBLE_ESCAPES:
                    out.append(_DOUBLE_ESCAPES[following])
                    self.at += 1
                    continue
                if quote == "'" and following in ("'", "\\"):
                    out.append(following)
                    self.at += 1
                    continue
            out.append(char)


def parse_env(text: str) -> dict[str, str]:
    """The variables of one dotenv document; ``ValueError`` names the line of a mistake."""
    reader = _Reader(text.removeprefix("\ufeff").replace("\r\n", "\n"))
    found: dict[str, str] = {}
    try:
        while reader.at < len(reader.text):
            reader.match(_BLANK)
            char = reader.peek()
            if char in ("\n", "#", ""):
                reader.rest_of_line()
                reader.at += 1
                continue
            reader.match(_EXPORT)
            key = reader.match(_KEY)
            if key is None:
                raise _Syntax(reader.line, "expected a variable name")
            reader.match(_BLANK)
            if reader.peek() != "=":
                raise _Syntax(reader.line, "expected '=' after the variable name")
            reader.at += 1
            reader.match(_BLANK)
            if reader.peek() in ('"', "'"):
                value = reader.quoted(reader.peek())
                reader.end_of_entry()
            else:
                value = re.split(r"[ \t]#", reader.rest_of_line(), maxsplit=1)[0].strip()
            found[key] = value
            reader.at += 1
    except _Syntax as error:
        raise ValueError(f"line {error.line}: {error.problem}") from None
    return found


def _read(path: Path) -> dict[str, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text") from None
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        return parse_env(text)
    except ValueError as error:
        raise ConfigError(
            f"{path}: {error}", hint="write one KEY=value per line; quote values with spaces or #"
        ) from None


def load_env(project_root: Path, environment: str) -> dict[str, str]:
    """The project's variables for ``environment``: ``.env``, overridden by ``.env.<environment>``.

    Missing files are empty; a malformed one is a ``ConfigError`` naming its line.
    """
    if environment not in ENVIRONMENTS:
        raise UsageError(f"environment must be one of {', '.join(ENVIRONMENTS)}, not {environment!r}")
    root = Path(project_root)
    return {**_read(root / ".env"), **_read(root / f".env.{environment}")}


#: The variables ``export_missing`` put into ``os.environ``, with their values: not the shell's.
_EXPORTED: dict[str, str] = {}


def shell_variables(process: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``process`` (``os.environ``) that the shell set, not a project's files.

    Read key by key, while tools' threads may set and remove variables: one removed
    meanwhile is left out (``items()`` would fail the whole read with a ``KeyError``).
    """
    shell: dict[str, str] = {}
    for key in list(process):
        value = process.get(key)
        if value is not None and _EXPORTED.get(key) != value:
            shell[key] = value
    return shell


def with_process_env(variables: Mapping[str, str], process: Mapping[str, str]) -> dict[str, str]:
    """What a tool sees as ``ctx.env``: the files' variables, and the shell's over them.

    As with python-dotenv, a variable set in the shell wins over the same key in a file.
    """
    return {**variables, **shell_variables(process)}


def export_missing(variables: Mapping[str, str], target: MutableMapping[str, str]) -> list[str]:
    """Put into ``target`` (``os.environ``) each variable the shell did not set; the keys it set.

    That is python-dotenv's ``load_dotenv()`` (``override=False``): SDK clients that read
    ``os.getenv`` see the files' keys, and the shell's values stay.  A key a project's files
    put there before is the files' too: the project opened last sets it.
    """
    shell = shell_variables(target)
    added = [key for key in variables if key not in shell]
    for key in added:
        target[key] = _EXPORTED[key] = variables[key]
    return added
