"""A module that fails when it is imported: only the tool defined here suffers."""

from skillc import tool

print("BROKEN-IMPORT printing at import")


@tool
def import_fails() -> str:
    """Never gets to run."""
    return "unreachable"


raise RuntimeError("the configuration service is unreachable")
