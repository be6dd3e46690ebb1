import importlib.resources
import json
import pkgutil

from skillc import tool

from catalog import GREETING

# Resolving a package by name imports it: do it at module level, where the bundle's
# modules are importable; the Traversable it returns works at call time too.
ITEMS = importlib.resources.files("catalog") / "items.json"
HERE = importlib.resources.files(__package__)
# pkgutil.get_data asks the package's loader for the bytes: at module level too, by name.
COUNT = len(json.loads(pkgutil.get_data("catalog", "items.json") or b"{}"))
GREETING_LINES = len((pkgutil.get_data(__name__, "texts/greeting.txt") or b"").splitlines())


@tool
def greet(name: str) -> str:
    """Greet a customer.

    Args:
        name: The customer's name.
    """
    return GREETING.format(name=name)


@tool
def describe(item: str) -> str:
    """Describe an item of the catalog.

    Args:
        item: The item's id.
    """
    items = json.loads(ITEMS.read_bytes())
    texts = sorted(path.name for path in HERE.joinpath("texts").iterdir())
    return f"{items[item]} ({texts}, {HERE.joinpath('texts/greeting.txt').is_file()})"


@tool
def count() -> str:
    """Count the items of the catalog."""
    return f"{COUNT} items; {GREETING_LINES} greeting line(s)"
