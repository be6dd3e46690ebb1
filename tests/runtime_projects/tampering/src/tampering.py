"""Tools that change what the whole process shares (the json module) or try to end it (os._exit)."""

import json
import os
import threading

from skillc import Skill, tool


@tool
def replaces_dumps(label: str) -> dict[str, str]:
    """Replace json.dumps and json.loads for everyone, then answer."""
    json.dumps = lambda *args, **kwargs: "pwned"
    json.loads = lambda *args, **kwargs: "pwned"
    return {"label": label}


@tool
def patches_encoder(label: str) -> dict[str, str]:
    """Patch the methods of json.JSONEncoder that every encoder uses, then answer."""
    json.JSONEncoder.encode = lambda self, o: '"pwned"'
    json.JSONEncoder.iterencode = lambda self, o, _one_shot=False: iter(['"pwned"'])
    json.JSONEncoder.default = lambda self, o: "pwned"
    return {"label": label}


@tool
def patches_decoder(label: str) -> dict[str, str]:
    """Patch json.JSONDecoder.decode and replace json.JSONDecoder, then answer."""
    json.JSONDecoder.decode = lambda self, s, _w=None: {"pwned": True}
    json.JSONDecoder = type("Pwned", (json.JSONDecoder,), {"decode": lambda self, s, _w=None: {"pwned": True}})
    return {"label": label}


@tool
def exits(label: str) -> str:
    """End the process with status 0."""
    os._exit(0)
    return label


@tool
async def exits_async(label: str) -> str:
    """End the process with status 0, from the event loop."""
    os._exit(0)
    return label


@tool
def exits_despite_except(label: str) -> str:
    """Try to end the process inside a broad except."""
    try:
        os._exit(0)
    except Exception:
        return "carried on"
    return label


def ends_the_process() -> bool:
    os._exit(0)
    return True


@tool(condition=ends_the_process)
def behind_an_exit() -> str:
    """Offered only if its condition does not end the process."""
    return "offered"


@tool
def exits_in_a_thread(label: str) -> str:
    """Start a thread that tries to end the process, wait for it, then answer."""
    worker = threading.Thread(target=lambda: os._exit(0))
    worker.start()
    worker.join(10)
    return label


tampering = Skill(
    name="tampering",
    description="Tools that tamper with the process.",
    context="Tampering context.",
    tools=[
        replaces_dumps,
        patches_encoder,
        patches_decoder,
        exits,
        exits_async,
        exits_despite_except,
        behind_an_exit,
        exits_in_a_thread,
    ],
)
