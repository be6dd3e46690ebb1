"""Typer commands made from the plain ones of ``cli.commands``: the same options, typer's own objects.

``typer_command(function)`` is a function typer reads exactly as if ``function`` had been
written with ``typer.Option`` and ``typer.Argument`` in its annotations: same names, types,
defaults, flags, help texts and docstring, so its ``--help`` and its usage errors are typer's.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import update_wrapper
from typing import Annotated, Any

import typer

from .quick import Option, params_of

__all__ = ["typer_command"]


def typer_command(function: Callable[..., int]) -> Callable[..., int]:
    """``function`` as typer reads a command, each ``option``/``argument`` of its signature made typer's."""
    parameters = []
    for param in params_of(function):
        declared = param.declared
        info = (
            typer.Option(*declared.flags, help=declared.help)
            if isinstance(declared, Option)
            else typer.Argument(help=declared.help, metavar=declared.metavar)
        )
        parameters.append(
            inspect.Parameter(
                param.name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=param.default,
                annotation=Annotated[param.annotation, info],
            )
        )

    def command(**values: Any) -> int:
        return function(**values)

    update_wrapper(command, function, assigned=("__module__", "__name__", "__qualname__", "__doc__"), updated=())
    signature = inspect.Signature(parameters, return_annotation=int)
    command.__signature__ = signature  # type: ignore[attr-defined]
    command.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters} | {"return": int}
    return command
