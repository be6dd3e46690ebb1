"""What a bundle that fails to import usually means, by the class of the exception, and what to do.

For the bundles ``skill compile --verify`` imports (``verify``) and those ``--allow-import``
imports for their schemas (``artifacts``).
"""

from __future__ import annotations

__all__ = ["import_failure_hint"]

#: What each kind of import failure usually means, and what to do about it.
_HINTS = {
    "ModuleNotFoundError": (
        "a module loaded dynamically (importlib.import_module, __import__) or a third-party package "
        "that is not installed is missing; import project modules with an import statement and "
        "declare third-party packages in [project] dependencies"
    ),
    "ImportError": "a name the module imports does not exist where it imports it from",
    "KeyError": (
        "the tool reads a setting when it is built (os.environ[...] in a constructor, say): put the "
        "variable in the project's .env or the environment when you run --verify, or read it in "
        "execute from ctx.env, where a missing key is a tool error instead of a broken bundle"
    ),
    "ToolDefinitionError": (
        "the SDK refused the tool when its module was imported; a type hint that names something "
        "imported only under `if TYPE_CHECKING:` is a common cause"
    ),
    "NameError": "a name the module uses at import time is not defined there (imported only under TYPE_CHECKING?)",
}
_DEFAULT_HINT = "importing the tool's module raised this error; import the module in a test to see why"


def import_failure_hint(error_type: str | None) -> str:
    """The hint for a bundle that failed to import with an exception of class ``error_type``."""
    return _HINTS.get(error_type or "", _DEFAULT_HINT)
