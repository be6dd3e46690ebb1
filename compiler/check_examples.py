"""Every diagnostic check's examples: projects that must not report it, and projects that must.

``checks`` pairs each code of ``CHECKS`` with its entry here (``schema_check_examples``
holds the schema translator's).  ``valid`` examples are small projects (file name
under ``src/`` -> source) that compile without any diagnostic; ``invalid`` ones report
the check at the place their ``at`` names.  The test suite turns each example into a
case, so a check and its documentation cannot drift apart.

Like ``checks``, this module is a leaf: it imports nothing of the compiler but ``types``.
"""

from __future__ import annotations

from typing import NamedTuple

from .types import Example

__all__ = ["AGENT_MODULE", "EXAMPLES", "CheckExamples"]


class CheckExamples(NamedTuple):
    """The projects that must not report a check (``valid``), and those that must (``invalid``)."""

    valid: tuple[Example, ...] = ()
    invalid: tuple[Example, ...] = ()


def _agent(tools: str, imports: str = "from tools import Lookup", extra: str = "") -> str:
    """An entry module with one skill holding ``tools``."""
    return (
        "from skillc import Agent, Skill\n"
        f"{imports}\n"
        f"{extra}"
        'orders = Skill(name="orders", description="Orders.", tools=[' + tools + "])\n"
        'agent = Agent(name="shop", persona="Helpful.", skills=[orders])\n'
    )


_LOOKUP = (
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
_GOOD = {"agent.py": _agent("Lookup()"), "tools.py": _LOOKUP}


def _tool(body: str, bases: str = "Tool", header: str = "") -> str:
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


_EXECUTE = "    def execute(self, input, ctx):\n        return 1\n"
#: A helper that imports a name back from tools.py (its LookupInput), or the module only.
_CYCLE_NAME = "from tools import LookupInput\n\ndef shout(text):\n    return LookupInput(order_id=text.upper())\n"
_CYCLE_MODULE = "import tools\n\ndef shout(text):\n    return tools.LookupInput(order_id=text.upper())\n"
_SETTINGS = '    description = "Look up."\n    input_schema = LookupInput\n'
#: The entry module most examples share: one skill, holding the tool ``Lookup()``.
AGENT_MODULE = _agent("Lookup()")

#: The examples of each check of ``checks.CHECKS`` but the schema translator's.
EXAMPLES: dict[str, CheckExamples] = {
    "skill/syntax-error": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(Example({**_GOOD, "broken.py": "def f(:\n    pass\n"}, ("src/broken.py", 1, 6)),),
    ),
    "skill/syntax-warning": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example({**_GOOD, "patterns.py": 'import re\nDIGITS = re.compile("\\d+")\n'}, ("src/patterns.py", 2, 0)),
        ),
    ),
    "skill/file-too-large": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(Example({**_GOOD, "data.py": "ROWS = 1\n" + "#" * 2_000_000 + "\n"}, ("src/data.py", 1, 0)),),
    ),
    "skill/no-agent": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example({"tools.py": _LOOKUP}, ("pyproject.toml", 7, 0)),
            Example({"agent.py": "AGENT = None\n", "tools.py": _LOOKUP}, ("src/agent.py", 1, 0)),
        ),
    ),
    "skill/missing-name": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example({"agent.py": _agent("Lookup()"), "tools.py": _tool(_SETTINGS + _EXECUTE)}, ("src/tools.py", 7, 0)),
        ),
    ),
    "skill/missing-execute": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {"agent.py": _agent("Lookup()"), "tools.py": _tool('    name = "lookup"\n' + _SETTINGS)},
                ("src/tools.py", 7, 0),
            ),
            Example(
                {
                    "agent.py": _agent("lookup", "from tools import lookup"),
                    "tools.py": 'from skillc import Tool\nlookup = Tool(name="lookup", description="d")\n',
                },
                ("src/tools.py", 2, 9),
            ),
        ),
    ),
    "skill/invalid-tool-name": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": _agent("Lookup()"),
                    "tools.py": _tool('    name = "../lookup"\n' + _SETTINGS + _EXECUTE),
                },
                ("src/tools.py", 8, 11),
            ),
        ),
    ),
    "skill/invalid-skill-name": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {"agent.py": _agent("Lookup()").replace('name="orders"', 'name="my orders"'), "tools.py": _LOOKUP},
                ("src/agent.py", 3, 20),
            ),
        ),
    ),
    "skill/dynamic-value": CheckExamples(
        valid=(
            Example(
                {
                    "agent.py": _agent("Lookup()"),
                    "tools.py": 'NAME = "lookup"\n'
                    + _tool("    name = NAME\n" + _SETTINGS + _EXECUTE).replace('NAME = "lookup"\n', ""),
                }
            ),
            Example(
                {
                    "agent.py": _agent("Lookup()"),
                    "tools.py": _tool("    name = NAME\n" + _SETTINGS + _EXECUTE, header='NAME = "lookup"\n'),
                }
            ),
        ),
        invalid=(
            Example(
                {
                    "agent.py": _agent("Lookup()"),
                    "tools.py": _tool('    name = "look" + "up"\n' + _SETTINGS + _EXECUTE),
                },
                ("src/tools.py", 8, 11),
            ),
        ),
    ),
    "skill/invalid-setting": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": _agent("Lookup()"),
                    "tools.py": _tool('    name = "lookup"\n    timeout = -1\n' + _SETTINGS + _EXECUTE),
                },
                ("src/tools.py", 9, 14),
            ),
        ),
    ),
    "skill/unknown-setting": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": _agent("ping", "from tools import ping"),
                    "tools.py": 'from skillc import tool\n\n@tool(lazy=True)\ndef ping(text: str) -> str:\n    """Echo."""\n    return text\n',
                },
                ("src/tools.py", 3, 11),
            ),
        ),
    ),
    "skill/tool-is-model": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": _agent("Lookup()"),
                    "tools.py": _tool('    name = "lookup"\n' + _SETTINGS + _EXECUTE, bases="Tool, BaseModel"),
                },
                ("src/tools.py", 7, 0),
            ),
        ),
    ),
    "skill/misspelled-setting": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": _agent("Lookup()"),
                    "tools.py": _tool('    name = "lookup"\n    timout = 5\n' + _SETTINGS + _EXECUTE),
                },
                ("src/tools.py", 9, 4),
            ),
        ),
    ),
    "skill/duplicate-tool-name": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": _agent("Lookup(), lookup2", "from tools import Lookup, lookup2"),
                    "tools.py": _LOOKUP
                    + '\nlookup2 = Tool(name="lookup", description="d", input_schema=LookupInput, execute=print)\n',
                },
                ("src/tools.py", 15, 20),
            ),
            Example(
                {
                    "agent.py": _agent("Lookup(), lookup2", "from tools import Lookup, lookup2"),
                    "tools.py": _LOOKUP
                    + '\nlookup2 = Tool(name="LookUp", description="d", input_schema=LookupInput, execute=print)\n',
                },
                ("src/tools.py", 15, 20),
            ),
        ),
    ),
    "skill/reserved-tool-name": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {"agent.py": _agent("Lookup()"), "tools.py": _tool('    name = "nul"\n' + _SETTINGS + _EXECUTE)},
                ("src/tools.py", 8, 11),
            ),
        ),
    ),
    "skill/reserved-skill-name": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {"agent.py": _agent("Lookup()").replace('name="orders"', 'name="Aux"'), "tools.py": _LOOKUP},
                ("src/agent.py", 3, 20),
            ),
        ),
    ),
    "skill/duplicate-skill-name": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": _agent("Lookup()").replace(
                        "skills=[orders]", 'skills=[orders, Skill(name="orders", description="Again.")]'
                    ),
                    "tools.py": _LOOKUP,
                },
                ("src/agent.py", 4, 74),
            ),
            Example(
                {
                    "agent.py": _agent("Lookup()").replace(
                        "skills=[orders]", 'skills=[orders, Skill(name="Orders", description="Again.")]'
                    ),
                    "tools.py": _LOOKUP,
                },
                ("src/agent.py", 4, 74),
            ),
        ),
    ),
    "skill/unresolved-reference": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {"agent.py": _agent("Lookup(), helper", extra="def helper():\n    pass\n"), "tools.py": _LOOKUP},
                ("src/agent.py", 5, 70),
            ),
            Example({"agent.py": _agent("Lookup"), "tools.py": _LOOKUP}, ("src/agent.py", 3, 60)),
        ),
    ),
    "skill/wrapped-tool-ref": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": _agent("logged(Lookup())", extra="def logged(tool):\n    return tool\n"),
                    "tools.py": _LOOKUP,
                },
                ("src/agent.py", 5, 60),
            ),
        ),
    ),
    "skill/unresolved-import": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {"agent.py": _agent("Lookup()", "from tools import Lookup, Missing"), "tools.py": _LOOKUP},
                ("src/agent.py", 2, 26),
            ),
            Example(
                {
                    "agent.py": _agent("Lookup()", "from tools import Lookup\nimport tools.nothing"),
                    "tools.py": _LOOKUP,
                },
                ("src/agent.py", 3, 7),
            ),
        ),
    ),
    "skill/inheritance-cycle": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": _agent("Lookup()"),
                    "tools.py": _tool(
                        '    name = "lookup"\n' + _SETTINGS + _EXECUTE,
                        bases="B",
                        header="class A(B): pass\nclass B(A): pass\n",
                    ),
                },
                ("src/tools.py", 4, 0),
            ),
        ),
    ),
    "skill/import-cycle": CheckExamples(
        valid=(
            Example({**_GOOD, "tools.py": "import helpers\n" + _LOOKUP, "helpers.py": _CYCLE_MODULE}),
            Example({**_GOOD, "tools.py": _LOOKUP + "\nfrom helpers import shout\n", "helpers.py": _CYCLE_NAME}),
        ),
        invalid=(
            Example(
                {**_GOOD, "tools.py": "from helpers import shout\n" + _LOOKUP, "helpers.py": _CYCLE_NAME},
                ("src/helpers.py", 1, 18),
            ),
        ),
    ),
    "skill/encoding-error": CheckExamples(
        valid=(Example({**_GOOD, "latin.py": b"# -*- coding: latin-1 -*-\nname = '\xe9'\n"}),),
        invalid=(Example({**_GOOD, "latin.py": b"name = '\xe9t\xe9'\n"}, ("src/latin.py", 1, 8)),),
    ),
    "skill/unreadable-file": CheckExamples(valid=(Example(_GOOD),)),
    "skill/internal-error": CheckExamples(valid=(Example(_GOOD),)),
    "skill/tool-name-style": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {"agent.py": _agent("Lookup()"), "tools.py": _tool('    name = "LookUp"\n' + _SETTINGS + _EXECUTE)},
                ("src/tools.py", 8, 11),
            ),
        ),
    ),
    "skill/missing-input-schema": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": _agent("Lookup()"),
                    "tools.py": _tool('    name = "lookup"\n    description = "Look up."\n' + _EXECUTE),
                },
                ("src/tools.py", 7, 0),
            ),
        ),
    ),
    "skill/constructor-args-dropped": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(Example({"agent.py": _agent('Lookup("db")'), "tools.py": _LOOKUP}, ("src/agent.py", 3, 60)),),
    ),
    "skill/init-requires-arguments": CheckExamples(
        valid=(
            Example(
                {
                    "agent.py": _agent("Lookup()"),
                    "tools.py": _tool(
                        '    name = "lookup"\n'
                        + _SETTINGS
                        + _EXECUTE
                        + "    def __init__(self, db=None):\n        self.db = db\n"
                    ),
                }
            ),
        ),
        invalid=(
            Example(
                {
                    "agent.py": _agent("Lookup()"),
                    "tools.py": _tool(
                        '    name = "lookup"\n'
                        + _SETTINGS
                        + _EXECUTE
                        + "    def __init__(self, db):\n        self.db = db\n"
                    ),
                },
                ("src/tools.py", 13, 4),
            ),
        ),
    ),
    "skill/missing-description": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": _agent("Lookup()"),
                    "tools.py": _tool('    name = "lookup"\n    input_schema = LookupInput\n' + _EXECUTE),
                },
                ("src/tools.py", 7, 0),
            ),
        ),
    ),
    "skill/unreachable-tool": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": _agent("Lookup()"),
                    "tools.py": _LOOKUP
                    + '\n@tool\ndef spare(x: int) -> int:\n    """Spare."""\n    return x\n'.replace(
                        "@tool", "from skillc import tool\n\n@tool"
                    ),
                },
                ("src/tools.py", 18, 0),
            ),
        ),
    ),
    "skill/empty-skill": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(Example({"agent.py": _agent(""), "tools.py": _LOOKUP}, ("src/agent.py", 3, 9)),),
    ),
    "skill/star-import": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {"agent.py": _agent("Lookup()", "from tools import *"), "tools.py": _LOOKUP}, ("src/agent.py", 2, 0)
            ),
        ),
    ),
    "skill/conditional-definition": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": _agent("Lookup()"),
                    "tools.py": _tool(
                        '    name = "lookup"\n' + _SETTINGS + _EXECUTE,
                        bases="Base",
                        header="import sys\nif sys.version_info >= (3, 12):\n    class Base(Tool): pass\nelse:\n    class Base(Tool): timeout = 5\n",
                    ),
                },
                ("src/tools.py", 7, 4),
            ),
        ),
    ),
    "skill/undeclared-dependency": CheckExamples(
        valid=(Example(_GOOD),),
        invalid=(
            Example(
                {"agent.py": _agent("Lookup()"), "tools.py": "import yaml\n" + _LOOKUP},
                ("src/tools.py", 1, 7),
            ),
        ),
    ),
    "skill/bundle-not-self-contained": CheckExamples(valid=(Example(_GOOD),)),
    "skill/schema-mismatch": CheckExamples(valid=(Example(_GOOD),)),
    "skill/symlink-loop": CheckExamples(valid=(Example(_GOOD),)),
    "skill/symlink-outside-project": CheckExamples(valid=(Example(_GOOD),)),
    "skill/dangling-symlink": CheckExamples(valid=(Example(_GOOD),)),
    "skill/unknown-config-key": CheckExamples(valid=(Example(_GOOD),)),
}
