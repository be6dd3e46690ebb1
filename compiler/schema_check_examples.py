"""The examples of the schema translator's checks: models inside and outside the static subset.

``checks`` pairs each code of ``SCHEMA_CHECKS`` with its entry here, as it pairs the
other checks with ``check_examples``: ``valid`` projects compile without any
diagnostic, ``invalid`` ones report the check at the place their ``at`` names.  A
leaf, like ``checks``: it imports nothing of the compiler but ``types`` and
``check_examples``.
"""

from __future__ import annotations

from .check_projects import AGENT_MODULE, CheckExamples, agent
from .types import Example

__all__ = ["SCHEMA_EXAMPLES"]


def _model_tools(model: str, imports: str = "", code: str = "", settings: str = "") -> str:
    """A tools module: the model ``LookupInput`` (body ``model``) and a class tool using it."""
    return (
        f"{imports}from pydantic import BaseModel, Field\n"
        "from skillc import Tool\n"
        "\n"
        "\n"
        f"{code}"
        f"class LookupInput(BaseModel):\n{model}"
        "\n"
        "\n"
        "class Lookup(Tool):\n"
        '    name = "lookup"\n'
        '    description = "Look up an order."\n'
        "    input_schema = LookupInput\n"
        f"{settings}"
        "\n"
        "    def execute(self, input, ctx):\n"
        "        return input.order_id\n"
    )


_SUPPORTED_MODEL = (
    '    """Which order to look up."""\n'
    "\n"
    '    order_id: str = Field(pattern=r"^A\\d{4}$", description="The order id, like A1001.")\n'
    '    carrier: Optional[Literal["ups", "dhl"]] = None\n'
    "    tags: list[str] = []\n"
)
_TYPING = "from typing import Literal, Optional\n"
_VALIDATOR = "from pydantic import field_validator\n"
#: A field validator of ``LookupInput`` for the fields ``{}`` gives (the arguments of ``field_validator``).
_VALIDATES = (
    "\n    @field_validator({})\n    @classmethod\n    def stripped(cls, value):\n        return value.strip()\n"
)

#: A tool whose output model serializes itself as a string (autogen's code execution result).
_SERIALIZED_OUTPUT = (
    "from pydantic import BaseModel, model_serializer\n"
    "from skillc import Tool\n\n\n"
    "class LookupInput(BaseModel):\n    order_id: str\n\n\n"
    "class Found(BaseModel):\n    status: str\n\n    @model_serializer\n    def as_text(self) -> str:\n"
    "        return self.status\n\n\n"
    'class Lookup(Tool):\n    name = "lookup"\n    description = "Look up."\n    input_schema = LookupInput\n'
    "    output_schema = Found\n\n    def execute(self, input, ctx):\n        return Found(status='shipped')\n"
)

#: The examples of each check of ``checks.SCHEMA_CHECKS``.
SCHEMA_EXAMPLES: dict[str, CheckExamples] = {
    "skill/schema-unsupported": CheckExamples(
        valid=(Example({"agent.py": AGENT_MODULE, "tools.py": _model_tools(_SUPPORTED_MODEL, imports=_TYPING)}),),
        invalid=(
            Example(
                {
                    "agent.py": AGENT_MODULE,
                    "tools.py": _model_tools(
                        "    order_id: str\n    address: Fraction\n", imports="from fractions import Fraction\n"
                    ),
                },
                ("src/tools.py", 8, 13),
            ),
            # Another framework's context kept as a parameter (a FastMCP tool ported as it was).
            Example(
                {
                    "agent.py": agent("echo", "from tools import echo"),
                    "tools.py": "from mcp.server.fastmcp import Context\nfrom skillc import tool\n\n\n"
                    '@tool\ndef echo(text: str, ctx: Context) -> str:\n    """Echo."""\n    return text\n',
                },
                ("src/tools.py", 6, 25),
            ),
            # An output model sent as its own serializer makes it, which its fields' schema does not describe.
            Example({"agent.py": AGENT_MODULE, "tools.py": _SERIALIZED_OUTPUT}, ("src/tools.py", 21, 20)),
            Example(
                {
                    "agent.py": AGENT_MODULE,
                    "tools.py": _model_tools(
                        "    order_id: str\n    since: str = Field(default=today())\n",
                        code='def today() -> str:\n    return "2024-01-01"\n\n\n',
                    ),
                },
                ("src/tools.py", 11, 31),
            ),
        ),
    ),
    "skill/unknown-field": CheckExamples(
        valid=(
            # The field it names, every field, or a field it says a subclass may define.
            Example(
                {
                    "agent.py": AGENT_MODULE,
                    "tools.py": _model_tools(
                        "    order_id: str\n" + _VALIDATES.format('"order_id"'), imports=_VALIDATOR
                    ),
                }
            ),
            Example(
                {
                    "agent.py": AGENT_MODULE,
                    "tools.py": _model_tools("    order_id: str\n" + _VALIDATES.format('"*"'), imports=_VALIDATOR),
                }
            ),
            Example(
                {
                    "agent.py": AGENT_MODULE,
                    "tools.py": _model_tools(
                        "    order_id: str\n" + _VALIDATES.format('"carrier", check_fields=False'), imports=_VALIDATOR
                    ),
                }
            ),
        ),
        invalid=(
            Example(
                {
                    "agent.py": AGENT_MODULE,
                    "tools.py": _model_tools("    order_id: str\n" + _VALIDATES.format('"order"'), imports=_VALIDATOR),
                },
                ("src/tools.py", 9, 21),
            ),
        ),
    ),
    "skill/strict-incompatible": CheckExamples(
        valid=(
            Example(
                {
                    "agent.py": AGENT_MODULE,
                    "tools.py": _model_tools('    order_id: str\n    note: str = ""\n', settings="    strict = True\n"),
                }
            ),
        ),
        invalid=(
            Example(
                {
                    "agent.py": AGENT_MODULE,
                    "tools.py": _model_tools(
                        "    order_id: str\n    tags: dict[str, str] = {}\n", settings="    strict = True\n"
                    ),
                },
                ("src/tools.py", 10, 0),
            ),
        ),
    ),
}
