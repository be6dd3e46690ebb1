import asyncio
import importlib
import sys

from skillc import tool


@tool
def noisy(label: str) -> str:
    """Print, then answer."""
    print(f"NOISY-OUT {label}")
    print(f"NOISY-ERR {label}", file=sys.stderr)
    return label


@tool
async def async_noisy(label: str) -> str:
    """Print on the event loop, then answer."""
    print(f"NOISY-ASYNC {label}")
    await asyncio.sleep(0)
    return label


@tool
def quitter(code: int) -> str:
    """Call sys.exit in a worker thread."""
    sys.exit(code)


@tool
async def async_quitter(code: int) -> str:
    """Call sys.exit on the event loop."""
    await asyncio.sleep(0)
    sys.exit(code)


@tool
def sneaky(module: str) -> str:
    """Import a module of the project that the bundle does not hold."""
    return str(importlib.import_module(module).VALUE)


@tool(needs_approval=True)
def approve_me(order_id: str) -> str:
    """Do something a person must approve."""
    return f"done {order_id}"
