"""What the tests of stopping a command share: tools that keep a log open, write to it
without flushing, then stall, and a bounded wait for one of them to start.
"""

from __future__ import annotations

import time
from pathlib import Path

__all__ = ["STALLING_TOOLS", "START_TIMEOUT", "log_env", "wait_for"]

#: The start of a tools module: ``LOG`` (opened at import, never closed or flushed, as many
#: tools keep a log), ``started(name)``, and the tools ``stall`` (sync) and ``stall_async``,
#: which write a line and sleep.  A test adds its own tools and the agent.
STALLING_TOOLS = '''\
import asyncio
import os
import signal
import sys
import threading
import time
from pathlib import Path

from skillc import Agent, Skill, tool

#: Opened when the bundle is imported and never closed or flushed, as many tools keep a log.
LOG = open(os.environ["TOOL_LOG"], "a")


def started(name: str) -> None:
    Path(os.environ["TOOL_STARTED"], name).touch()


@tool(timeout=120)
def stall(seconds: float = 60.0) -> str:
    """Write a line, then sleep (in a worker thread)."""
    LOG.write("stall began\\n")
    started("stall")
    time.sleep(seconds)
    return "done"


@tool(timeout=120)
async def stall_async(seconds: float = 60.0) -> str:
    """Write a line, then sleep (on the event loop)."""
    LOG.write("stall_async began\\n")
    started("stall_async")
    await asyncio.sleep(seconds)
    return "done"
'''

#: The longest a test waits for a tool to start.
START_TIMEOUT = 60.0


def log_env(folder: Path) -> dict[str, str]:
    """The variables the tools read: their log's path, and the folder where they say they started."""
    started = folder / "started"
    started.mkdir()
    return {"TOOL_LOG": str(folder / "tool.log"), "TOOL_STARTED": str(started)}


def wait_for(path: Path, timeout: float = START_TIMEOUT) -> None:
    """Wait until ``path`` exists (a tool started), at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} did not start within {timeout:g} s"
        time.sleep(0.01)
