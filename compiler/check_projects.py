"""The small projects the checks' examples are made of: an entry module, a tool class, a model.

``check_examples`` and ``tool_check_examples`` (and ``schema_check_examples``) build their
examples from these, so that each example shows only what makes it valid or invalid.
Like ``checks``, this module is a leaf: it imports nothing of the compiler but ``types``.
"""

from __future__ import annotations

from typing import NamedTuple

from .types import Example

__all__ = [
    "AGENT_MODULE",
    "CYCLE_MODULE",
    "CYCLE_NAME",
    "DATA_TOOL",
    "EXECUTE",
    "GOOD",
    "LOOKUP",
    "RESOURCE_TOOL",
    "SETTINGS",
    "CheckExamples",
    "agent",
    "tool_class",
]


class CheckExamples(NamedTuple):
    """The projects that must not report a check (``valid``), and those that must (``invalid``)."""

    valid: tuple[Example, ...] = ()
    invalid: tuple[Example, ...] = ()


def agent(tools: str, imports: str = "from tools import Lookup", extra: str = "") -> str:
    """An entry module with one skill holding ``tools``."""
    return (
        "from skillc import Agent, Skill\n"
        f"{imports}\n"
        f"{extra}"
        'orders = Skill(name="orders", description="Orders.", tools=[' + tools + "])\n"
        'agent = Agent(name="shop", persona="Helpful.", skills=[orders])\n'
    )


LOOKUP = (
    "from pydantic import BaseModel\n"
    "from skillc import Tool\n"
    "\n"
    "class LookupInput(BaseModel):\n"
    "    order_id: str\n"
    "\n"
    "class Lookup(Tool):\n"
    '    name = "lookup"\n'
    '    description = "Look up an order."\n'
    "    input_schema = LookupInput\n"
    "\n"
    "    def execute(self, input, ctx):\n"
    "        return input.order_id\n"
)
GOOD = {"agent.py": agent("Lookup()"), "tools.py": LOOKUP}


def tool_class(body: str, bases: str = "Tool", header: str = "") -> str:
    return (
        "from pydantic import BaseModel\n"
        "from skillc import Tool\n"
        f"{header}"
        "\n"
        "class LookupInput(BaseModel):\n"
        "    order_id: str\n"
        "\n"
        f"class Lookup({bases}):\n"
        f"{body}"
    )


EXECUTE = "    def execute(self, input, ctx):\n        return 1\n"
#: A helper that imports a name back from tools.py (its LookupInput), or the module only.
CYCLE_NAME = "from tools import LookupInput\n\ndef shout(text):\n    return LookupInput(order_id=text.upper())\n"
CYCLE_MODULE = "import tools\n\ndef shout(text):\n    return tools.LookupInput(order_id=text.upper())\n"
SETTINGS = '    description = "Look up."\n    input_schema = LookupInput\n'
#: The entry module most examples share: one skill, holding the tool ``Lookup()``.
AGENT_MODULE = agent("Lookup()")

#: A tool reading a data file next to its module, and one reading it with importlib.resources.
DATA_TOOL = (
    "import json\n"
    "from pathlib import Path\n\n"
    'PRICES = json.loads((Path(__file__).parent / "data" / "prices.json").read_text())\n' + LOOKUP
)
RESOURCE_TOOL = (
    "import json\n"
    "from importlib.resources import files\n\n"
    'PRICES = json.loads(files("tools").joinpath("prices.json").read_text())\n' + LOOKUP
)
