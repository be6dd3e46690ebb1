"""Tools of pydantic-ai's documentation (docs/tools.md), ported to skillc.

Kept: the signatures, docstrings, models and bodies.  Changed: ``@agent.tool_plain(...)``
is ``@tool`` (skillc reads Google-style ``Args:`` sections by default).
"""

import random

from pydantic import BaseModel
from skillc import tool


@tool
def roll_dice() -> str:
    """Roll a six-sided die and return the result."""
    return str(random.randint(1, 6))


@tool
def foobar(a: int, b: str, c: dict[str, list[float]]) -> str:
    """Get me foobar.

    Args:
        a: apple pie
        b: banana cake
        c: carrot smoothie
    """
    return f'{a} {b} {c}'


class Foobar(BaseModel):
    """This is a Foobar"""

    x: int
    y: str
    z: float = 3.14


@tool
def describe_foobar(f: Foobar) -> str:
    """Describe a Foobar."""
    return str(f)
