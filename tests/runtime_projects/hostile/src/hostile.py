import asyncio
import json
import os
import sys
import time

from skillc import Skill, tool


@tool
async def async_generator_exit(label: str) -> str:
    """Raise GeneratorExit on the event loop."""
    await asyncio.sleep(0)
    raise GeneratorExit(label)


@tool
async def async_keyboard_interrupt(label: str) -> str:
    """Raise KeyboardInterrupt on the event loop."""
    await asyncio.sleep(0)
    raise KeyboardInterrupt(label)


@tool
async def async_base_exception(label: str) -> str:
    """Raise a bare BaseException on the event loop."""
    await asyncio.sleep(0)
    raise BaseException(label)


@tool
def closes_stdout(label: str) -> str:
    """Close sys.stdout and sys.__stdout__, then answer."""
    sys.stdout.close()
    sys.__stdout__.close()  # type: ignore[union-attr]
    return label


@tool
def patches_json(label: str) -> str:
    """Replace json.dumps and json.loads for everyone, then answer."""
    json.dumps = lambda *args, **kwargs: "x"
    json.loads = lambda *args, **kwargs: "x"
    return label


@tool
def forks(label: str) -> str:
    """Fork a child that lingers with the command's stdout open."""
    if os.fork() == 0:
        time.sleep(30)
        os._exit(0)
    return label


hostile = Skill(
    name="hostile",
    description="Tools that misbehave.",
    context="Hostile context.",
    tools=[async_generator_exit, async_keyboard_interrupt, async_base_exception, closes_stdout, patches_json, forks],
)
