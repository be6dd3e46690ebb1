"""Command lines parsed without typer: the options of a command, declared once, read twice.

A command that should start quickly is a plain function whose parameters say everything
about its options, as a typer command's would::

    def test(name: Annotated[str | None, option("--name", help="The tool to run.")] = None, ...) -> int:

``cli.app`` turns it into a typer command (``cli.typer_commands``), which gives ``--help``,
usage errors and every unusual command line.  ``parse_plain`` reads the same signature and
takes only what it can parse exactly as click would: known options with valid values, the
arguments in order, nothing else.  For anything else (help, a typo, a missing or doubtful
value, ``--``, combined short options) it returns ``None`` and the command line goes to
typer, so what a user sees is never decided here.  Importing typer and building its command
take some 30 ms, an eighth of a ``skill test``, that a plain command line need not wait for.
Its types are named tuples: their classes are quicker to make than dataclasses, and this
module loads on every such start.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Sequence
from enum import Enum
from functools import cache
from pathlib import Path
from types import NoneType, UnionType
from typing import Annotated, Any, NamedTuple

__all__ = ["Argument", "Option", "Param", "argument", "option", "params_of", "parse_plain"]


class Option(NamedTuple):
    """An option of a command: its flags (``"-e", "--environment"``) and its help."""

    flags: tuple[str, ...]
    help: str


class Argument(NamedTuple):
    """A positional argument of a command: its help, and the name its usage shows (``metavar``)."""

    help: str
    metavar: str | None = None


def option(*flags: str, help: str) -> Option:
    """Declare an option: ``Annotated[str | None, option("--name", help=...)] = None``."""
    return Option(flags, help)


def argument(*, help: str, metavar: str | None = None) -> Argument:
    """Declare a positional argument: ``Annotated[Path, argument(help=...)] = Path(".")``."""
    return Argument(help, metavar)


#: The value types a plain parse converts (``str | None`` and ``Host | None`` too); a bool is a flag.
_KINDS = (str, int, bool, Path, Enum)


class Param(NamedTuple):
    """One parameter of a command, as declared: its name, its annotation, its value type and default."""

    name: str
    #: The annotated type itself (``str | None``), as typer is given it.
    annotation: Any
    #: The value's type without ``None`` (``str``).
    kind: type
    default: Any
    declared: Option | Argument


def _kind(annotation: Any) -> type:
    """The value type of ``annotation``: ``X`` for ``X`` and for ``X | None``."""
    if isinstance(annotation, UnionType) or typing.get_origin(annotation) is typing.Union:
        members = [member for member in typing.get_args(annotation) if member is not NoneType]
        if len(members) == 1:
            return _kind(members[0])
    if isinstance(annotation, type) and issubclass(annotation, _KINDS):
        return annotation
    raise TypeError(f"a quick command takes str, int, bool, Path or Enum values, not {annotation!r}")


@cache
def params_of(command: Callable[..., Any]) -> tuple[Param, ...]:
    """The declared parameters of ``command``, in order; a ``TypeError`` for one that is not declared."""
    hints = typing.get_type_hints(command, include_extras=True)
    params = []
    for parameter in inspect.signature(command).parameters.values():
        hint: Any = hints.get(parameter.name)
        declared = [item for item in getattr(hint, "__metadata__", ()) if isinstance(item, Option | Argument)]
        if typing.get_origin(hint) is not Annotated or len(declared) != 1:
            raise TypeError(f"{command.__name__}({parameter.name}) needs one option(...) or argument(...)")
        if parameter.default is inspect.Parameter.empty:
            raise TypeError(f"{command.__name__}({parameter.name}) needs a default")
        kind = _kind(hint.__origin__)
        if kind is bool and parameter.default is not False:
            raise TypeError(f"{command.__name__}({parameter.name}): a flag is off unless given")
        params.append(Param(parameter.name, hint.__origin__, kind, parameter.default, declared[0]))
    return tuple(params)


class _Doubtful(Exception):
    """This command line is for typer to parse."""


def _convert(param: Param, text: str) -> Any:
    """``text`` as ``param``'s value, where click would take it as it is; ``_Doubtful`` otherwise."""
    kind = param.kind
    if issubclass(kind, Enum):
        for member in kind:
            if member.value == text:
                return member
        raise _Doubtful
    if kind is int:
        if not (text.isascii() and text.isdigit()):
            raise _Doubtful
        return int(text)
    if kind is Path:
        if not text:
            raise _Doubtful
        return Path(text)
    return text


def parse_plain(command: Callable[..., Any], args: Sequence[str]) -> dict[str, Any] | None:
    """The keyword arguments that ``args`` (what follows the command's name) give ``command``,
    exactly as its typer command would pass them; ``None`` when typer should parse ``args``.

    A value is taken from ``--flag=value`` or from the next argument unless that one starts
    with ``-``; an option given twice keeps the last value, as with click.
    """
    params = params_of(command)
    flags = {flag: param for param in params if isinstance(param.declared, Option) for flag in param.declared.flags}
    positional = [param for param in params if isinstance(param.declared, Argument)]
    values = {param.name: param.default for param in params}
    rest = iter(args)
    taken = 0
    try:
        for token in rest:
            if not token.startswith("-"):
                if taken == len(positional):
                    raise _Doubtful
                values[positional[taken].name] = _convert(positional[taken], token)
                taken += 1
                continue
            name, has_inline, inline = token.partition("=") if token.startswith("--") else (token, "", "")
            param = flags.get(name)
            if param is None:
                raise _Doubtful
            if param.kind is bool:
                if has_inline:
                    raise _Doubtful
                values[param.name] = True
                continue
            text = inline if has_inline else next(rest, None)
            if text is None or (not has_inline and text.startswith("-")):
                raise _Doubtful
            values[param.name] = _convert(param, text)
    except _Doubtful:
        return None
    return values
