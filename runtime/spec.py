"""The rules a tool definition follows, shared by the authoring SDK and the compiler.

The compiler checks these rules statically and the SDK checks them when a tool is
constructed in plain Python; keeping them in one place keeps the two in agreement.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "DEFAULT_CONDITION_TIMEOUT",
    "DEFAULT_RETRIES",
    "DEFAULT_TIMEOUT",
    "ENVIRONMENTS",
    "MANIFEST",
    "MANIFEST_FORMAT",
    "MAX_NAME_LENGTH",
    "function_input_model_name",
    "NAME_PATTERN",
    "NAME_STYLE_PATTERN",
    "is_valid_name",
    "is_conventional_name",
]

#: A tool or skill name must match this, which also keeps it from escaping ``dist/``.
NAME_PATTERN: Final = re.compile(r"[a-zA-Z0-9_-]+")
#: The conventional spelling of a name; other valid names get a style warning.
NAME_STYLE_PATTERN: Final = re.compile(r"[a-z][a-z0-9_-]*")
#: OpenAI caps function names at 64 characters.
MAX_NAME_LENGTH: Final = 64

DEFAULT_TIMEOUT: Final = 60.0
DEFAULT_RETRIES: Final = 0
DEFAULT_CONDITION_TIMEOUT: Final = 30.0
ENVIRONMENTS: Final = ("sandbox", "production")
#: The file in ``dist/`` that lists everything else, and the version of its shape: the
#: compiler writes it, the runtime reads it.
MANIFEST: Final = "manifest.json"
MANIFEST_FORMAT: Final = 1


def is_valid_name(name: object) -> bool:
    """Tell whether ``name`` may name a tool or skill."""
    return (
        isinstance(name, str)
        and len(name) <= MAX_NAME_LENGTH
        and NAME_PATTERN.fullmatch(name) is not None
    )


def is_conventional_name(name: str) -> bool:
    """Tell whether ``name`` follows the lower-case naming convention."""
    return NAME_STYLE_PATTERN.fullmatch(name) is not None


def function_input_model_name(function_name: str) -> str:
    """Name the input model of a function-form tool (its schema's ``title``).

    ``cancel_order`` gives ``CancelOrderInput``.  The compiler names it the same way.
    """
    return "".join(part[:1].upper() + part[1:] for part in function_name.split("_")) + "Input"
