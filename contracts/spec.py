"""The rules a tool definition follows, shared by the authoring SDK and the compiler.

The compiler checks these rules statically and the SDK checks them when a tool is
constructed in plain Python; keeping them in one place keeps the two in agreement.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "DEFAULT_CONDITION_TIMEOUT",
    "ENVIRONMENTS",
    "MANIFEST",
    "MANIFEST_FORMAT",
    "MAX_NAME_LENGTH",
    "function_input_model_name",
    "host_tool_name",
    "NAME_PATTERN",
    "NAME_STYLE_PATTERN",
    "WINDOWS_DEVICE_NAMES",
    "case_collision_error",
    "folder_key",
    "is_valid_name",
    "is_conventional_name",
    "reserved_name_error",
    "windows_device_name",
]

#: A tool or skill name must match this, which also keeps it from escaping ``dist/``.
NAME_PATTERN: Final = re.compile(r"[a-zA-Z0-9_-]+")
#: The conventional spelling of a name; other valid names get a style warning.
NAME_STYLE_PATTERN: Final = re.compile(r"[a-z][a-z0-9_-]*")
#: OpenAI caps function names at 64 characters.
MAX_NAME_LENGTH: Final = 64
#: What Windows opens instead of a file or folder of that name, in any folder: the list
#: of ``ntpath.isreserved`` (Python 3.13), which follows Microsoft's "Naming Files".
WINDOWS_DEVICE_NAMES: Final = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
    | {f"{port}{digit}" for port in ("COM", "LPT") for digit in "123456789\u00b9\u00b2\u00b3"}
)

DEFAULT_CONDITION_TIMEOUT: Final = 30.0
#: What the ``ctx`` a tool is called with has (``skillc.ToolContext``, a frozen dataclass): the
#: compiler checks a tool's reads of it against these (the test suite against the class).
TOOL_CONTEXT_MEMBERS: Final = frozenset(
    {
        "activate",
        "call_id",
        "current",
        "data",
        "env",
        "environment",
        "for_call",
        "logger",
        "session",
        "skill",
        "state",
        "tool",
        "user",
    }
)
#: The coroutine methods of ``ctx.data`` (``skillc.runtime.data.DataStore``) and of its collections
#: (``Collection``): a call of one does nothing until it is awaited.  The compiler reports such a
#: call whose coroutine is dropped (the test suite checks these against the classes).
DATA_STORE_COROUTINES: Final = frozenset({"acollections", "in_thread"})
COLLECTION_COROUTINES: Final = frozenset(
    {
        "aclear",
        "acount",
        "acreate",
        "adelete",
        "afind",
        "afind_one",
        "aget",
        "ainsert_many",
        "apatch",
        "aput",
        "areplace",
        "asearch",
    }
)
#: What the data store and a collection of it have (their public attributes and methods): the
#: compiler checks a tool's reads of them against these (the test suite against instances).
DATA_STORE_MEMBERS: Final = DATA_STORE_COROUTINES | frozenset(
    {"backend", "clear", "close", "collection", "collections", "description", "kind"}
)
COLLECTION_MEMBERS: Final = COLLECTION_COROUTINES | frozenset(
    {
        "clear",
        "count",
        "create",
        "delete",
        "find",
        "find_one",
        "get",
        "insert_many",
        "name",
        "patch",
        "put",
        "replace",
        "search",
        "store",
    }
)
#: Where tools import the class of a collection from.
COLLECTION_CLASSES: Final = frozenset({"skillc.runtime.data.Collection", "skillc.runtime.data.api.Collection"})
#: What an instance of a tool class has from ``skillc.Tool`` (its class attributes, methods and the
#: attributes its ``__init__`` sets): the compiler checks a tool's reads of ``self`` against these and
#: the class's own (the test suite against the class).
TOOL_MEMBERS: Final = frozenset(
    {
        "_check",
        "_check_client",
        "_declared_schemas",
        "_skillc_settings",
        "client",
        "compact",
        "condition_function",
        "description",
        "destructive",
        "execute",
        "form",
        "idempotent",
        "input_schema",
        "lazy",
        "max_output_chars",
        "metadata",
        "name",
        "needs_approval",
        "open_world",
        "output_schema",
        "read_only",
        "required",
        "retries",
        "strict",
        "timeout",
        "title",
        "voice",
    }
)
#: The logger a tool's code logs to (``ctx.logger``); the commands show its records on standard error.
TOOL_LOGGER: Final = "skillc.tool"

ENVIRONMENTS: Final = ("sandbox", "production")
#: The file in ``dist/`` that lists everything else, and the version of its shape: the
#: compiler writes it, the runtime reads it.
MANIFEST: Final = "manifest.json"
MANIFEST_FORMAT: Final = 1


def is_valid_name(name: object) -> bool:
    """Tell whether ``name`` may name a tool or skill."""
    return isinstance(name, str) and len(name) <= MAX_NAME_LENGTH and NAME_PATTERN.fullmatch(name) is not None


def windows_device_name(name: str) -> str | None:
    """The Windows device a folder called ``name`` would be, or ``None``.

    Windows compares case-insensitively and ignores what follows the first dot and
    trailing spaces before it: ``nul``, ``NUL.txt`` and ``Nul .tar.gz`` are all ``NUL``.
    """
    device = name.partition(".")[0].rstrip(" ").upper()
    return device if device in WINDOWS_DEVICE_NAMES else None


def reserved_name_error(kind: str, name: str) -> str | None:
    """Why a ``kind`` ("tool" or "skill") cannot be called ``name``, or ``None`` if it can.

    Each tool and skill gets a folder ``dist/<kind>s/<name>/``, which Windows cannot
    create under a device name.
    """
    device = windows_device_name(name)
    if device is None:
        return None
    return (
        f"{kind} name {name!r} is reserved on Windows ({device} is a device name there), "
        f"so its folder dist/{kind}s/{name}/ cannot be created"
    )


def folder_key(name: str) -> str:
    """What two names are compared by on the file systems of macOS and Windows."""
    return name.casefold()


def case_collision_error(kind: str, first: str, second: str) -> str:
    """Why two ``kind`` names that differ only in case cannot both be used."""
    return (
        f"{kind} names {first!r} and {second!r} differ only in case, so on macOS and "
        f"Windows they would share one folder in dist/{kind}s/"
    )


def host_tool_name(server: str, tool: str) -> str:
    """The name a host that prefixes tools with their MCP server's name gives ``tool`` of ``server``.

    Claude Code's, the longest prefix in use: ``mcp__<server>__<tool>``.  ``skill serve`` names
    its server after the agent, and model APIs refuse a name longer than ``MAX_NAME_LENGTH``.
    """
    return f"mcp__{server}__{tool}"


def is_conventional_name(name: str) -> bool:
    """Tell whether ``name`` follows the lower-case naming convention."""
    return NAME_STYLE_PATTERN.fullmatch(name) is not None


def function_input_model_name(function_name: str) -> str:
    """Name the input model of a function-form tool (its schema's ``title``).

    ``cancel_order`` gives ``CancelOrderInput``.  The compiler names it the same way.
    """
    return "".join(part[:1].upper() + part[1:] for part in function_name.split("_")) + "Input"
