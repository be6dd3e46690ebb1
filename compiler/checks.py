"""The diagnostics the compiler can report: code, severity, and what each one means.

Every check carries examples: small projects that must not report it (``valid``) and
projects that must report it at a given place (``invalid``).  The test suite turns
each example into a case, so a check and its documentation cannot drift apart.

This module is a leaf: the stages import it (``report`` sets each diagnostic's severity
from it), and it imports none of them.
"""

from __future__ import annotations

from .types import Check, Example, Severity

__all__ = ["CHECKS", "SCHEMA_CHECKS", "Check", "Example", "severity_of"]


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

CHECKS: dict[str, Check] = {
    check.code: check
    for check in (
        Check(
            "skill/syntax-error",
            Severity.ERROR,
            "A file does not parse; the rest of the project is still checked.",
            valid=(Example(_GOOD),),
            invalid=(Example({**_GOOD, "broken.py": "def f(:\n    pass\n"}, ("src/broken.py", 1, 6)),),
        ),
        Check(
            "skill/syntax-warning",
            Severity.WARNING,
            "Python warns about a construct when it compiles the file (an invalid escape sequence, say).",
            valid=(Example(_GOOD),),
            invalid=(
                Example(
                    {**_GOOD, "patterns.py": 'import re\nDIGITS = re.compile("\\d+")\n'}, ("src/patterns.py", 2, 0)
                ),
            ),
        ),
        Check(
            "skill/file-too-large",
            Severity.ERROR,
            "A source file is larger than [tool.skill] max_file_bytes; it is not read.",
            valid=(Example(_GOOD),),
            invalid=(Example({**_GOOD, "data.py": "ROWS = 1\n" + "#" * 2_000_000 + "\n"}, ("src/data.py", 1, 0)),),
        ),
        Check(
            "skill/no-agent",
            Severity.ERROR,
            "The entry module is missing or defines no Agent.",
            valid=(Example(_GOOD),),
            invalid=(
                Example({"tools.py": _LOOKUP}, ("pyproject.toml", 7, 0)),
                Example({"agent.py": "AGENT = None\n", "tools.py": _LOOKUP}, ("src/agent.py", 1, 0)),
            ),
        ),
        Check(
            "skill/missing-name",
            Severity.ERROR,
            "A registered tool has no name.",
            valid=(Example(_GOOD),),
            invalid=(
                Example(
                    {"agent.py": _agent("Lookup()"), "tools.py": _tool(_SETTINGS + _EXECUTE)}, ("src/tools.py", 7, 0)
                ),
            ),
        ),
        Check(
            "skill/missing-execute",
            Severity.ERROR,
            "Tool must have an execute function.",
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
        Check(
            "skill/invalid-tool-name",
            Severity.ERROR,
            "A tool name must match ^[a-zA-Z0-9_-]+$, which also keeps it inside dist/.",
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
        Check(
            "skill/invalid-skill-name",
            Severity.ERROR,
            "A skill or agent name must match ^[a-zA-Z0-9_-]+$.",
            valid=(Example(_GOOD),),
            invalid=(
                Example(
                    {"agent.py": _agent("Lookup()").replace('name="orders"', 'name="my orders"'), "tools.py": _LOOKUP},
                    ("src/agent.py", 3, 20),
                ),
            ),
        ),
        Check(
            "skill/dynamic-value",
            Severity.ERROR,
            "A name, description or setting is not a literal or a module-level constant bound to one.",
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
        Check(
            "skill/invalid-setting",
            Severity.ERROR,
            "A setting has a value that can never work (a timeout that is not positive, say).",
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
        Check(
            "skill/duplicate-tool-name",
            Severity.ERROR,
            "Two tools of the agent have the same name, or names that differ only in case.",
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
        Check(
            "skill/reserved-tool-name",
            Severity.ERROR,
            "A tool name is a Windows device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9, in any case), "
            "so its folder of dist/ cannot exist there.",
            valid=(Example(_GOOD),),
            invalid=(
                Example(
                    {"agent.py": _agent("Lookup()"), "tools.py": _tool('    name = "nul"\n' + _SETTINGS + _EXECUTE)},
                    ("src/tools.py", 8, 11),
                ),
            ),
        ),
        Check(
            "skill/reserved-skill-name",
            Severity.ERROR,
            "A skill name is a Windows device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9, in any case), "
            "so its folder of dist/ cannot exist there.",
            valid=(Example(_GOOD),),
            invalid=(
                Example(
                    {"agent.py": _agent("Lookup()").replace('name="orders"', 'name="Aux"'), "tools.py": _LOOKUP},
                    ("src/agent.py", 3, 20),
                ),
            ),
        ),
        Check(
            "skill/duplicate-skill-name",
            Severity.ERROR,
            "Two skills of the agent have the same name, or names that differ only in case.",
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
        Check(
            "skill/unresolved-reference",
            Severity.ERROR,
            "An entry of tools=[...] or skills=[...] is not a tool or skill.",
            valid=(Example(_GOOD),),
            invalid=(
                Example(
                    {"agent.py": _agent("Lookup(), helper", extra="def helper():\n    pass\n"), "tools.py": _LOOKUP},
                    ("src/agent.py", 5, 70),
                ),
                Example({"agent.py": _agent("Lookup"), "tools.py": _LOOKUP}, ("src/agent.py", 3, 60)),
            ),
        ),
        Check(
            "skill/wrapped-tool-ref",
            Severity.ERROR,
            "An entry of tools=[...] is wrapped in another call, which would register nothing.",
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
        Check(
            "skill/unresolved-import",
            Severity.ERROR,
            "A project-local import resolves to no module or name.",
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
        Check(
            "skill/inheritance-cycle",
            Severity.ERROR,
            "Classes inherit from each other in a cycle.",
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
        Check(
            "skill/import-cycle",
            Severity.ERROR,
            "A from-import runs while the module it imports from is still initialising, before it "
            "binds the name: Python's circular-import ImportError.",
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
        Check(
            "skill/encoding-error",
            Severity.ERROR,
            "A file is not valid in its declared encoding (UTF-8 by default).",
            valid=(Example({**_GOOD, "latin.py": b"# -*- coding: latin-1 -*-\nname = '\xe9'\n"}),),
            invalid=(Example({**_GOOD, "latin.py": b"name = '\xe9t\xe9'\n"}, ("src/latin.py", 1, 8)),),
        ),
        Check(
            "skill/unreadable-file",
            Severity.ERROR,
            "A file or folder of the project cannot be read.",
            valid=(Example(_GOOD),),
        ),
        Check(
            "skill/internal-error",
            Severity.ERROR,
            "skillc failed on a file; this is a bug to report.",
            valid=(Example(_GOOD),),
        ),
        Check(
            "skill/tool-name-style",
            Severity.WARNING,
            "By convention a tool name matches ^[a-z][a-z0-9_-]*$.",
            valid=(Example(_GOOD),),
            invalid=(
                Example(
                    {"agent.py": _agent("Lookup()"), "tools.py": _tool('    name = "LookUp"\n' + _SETTINGS + _EXECUTE)},
                    ("src/tools.py", 8, 11),
                ),
            ),
        ),
        Check(
            "skill/missing-input-schema",
            Severity.WARNING,
            "Tool should have an input_schema for type safety.",
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
        Check(
            "skill/constructor-args-dropped",
            Severity.WARNING,
            "A class-form tool is registered with arguments, which the compiled tool never receives.",
            valid=(Example(_GOOD),),
            invalid=(Example({"agent.py": _agent('Lookup("db")'), "tools.py": _LOOKUP}, ("src/agent.py", 3, 60)),),
        ),
        Check(
            "skill/init-requires-arguments",
            Severity.ERROR,
            "A class-form tool's __init__ needs arguments, but the compiled tool is created with none.",
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
        Check(
            "skill/missing-description",
            Severity.WARNING,
            "A tool has no description, so the model cannot tell when to use it.",
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
        Check(
            "skill/unreachable-tool",
            Severity.WARNING,
            "A tool is defined but the agent never reaches it.",
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
        Check(
            "skill/empty-skill",
            Severity.WARNING,
            "A skill has no tools.",
            valid=(Example(_GOOD),),
            invalid=(Example({"agent.py": _agent(""), "tools.py": _LOOKUP}, ("src/agent.py", 3, 9)),),
        ),
        Check(
            "skill/star-import",
            Severity.WARNING,
            "A star import cannot be resolved statically.",
            valid=(Example(_GOOD),),
            invalid=(
                Example(
                    {"agent.py": _agent("Lookup()", "from tools import *"), "tools.py": _LOOKUP}, ("src/agent.py", 2, 0)
                ),
            ),
        ),
        Check(
            "skill/conditional-definition",
            Severity.WARNING,
            "A base class or tool is bound differently in different branches.",
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
        Check(
            "skill/undeclared-dependency",
            Severity.WARNING,
            "A tool's module imports a third-party package the project does not declare.",
            valid=(Example(_GOOD),),
            invalid=(
                Example(
                    {"agent.py": _agent("Lookup()"), "tools.py": "import yaml\n" + _LOOKUP},
                    ("src/tools.py", 1, 7),
                ),
            ),
        ),
        Check(
            "skill/bundle-not-self-contained",
            Severity.ERROR,
            "A bundle does not import on its own (skill compile --verify), e.g. a module loaded dynamically.",
            valid=(Example(_GOOD),),
        ),
        Check(
            "skill/schema-mismatch",
            Severity.ERROR,
            "The static schema differs from pydantic's own (skill compile --verify): a bug in skillc.",
            valid=(Example(_GOOD),),
        ),
        Check(
            "skill/symlink-loop",
            Severity.WARNING,
            "A symbolic link in the source tree leads back to a folder above it; it is not followed.",
            valid=(Example(_GOOD),),
        ),
        Check(
            "skill/symlink-outside-project",
            Severity.WARNING,
            "A symbolic link in the source tree leads outside the project (and outside every "
            "[tool.skill] allow_outside folder); it is not followed, so nothing it points to is bundled.",
            valid=(Example(_GOOD),),
        ),
        Check(
            "skill/dangling-symlink",
            Severity.WARNING,
            "A symbolic link in the source tree points to nothing; it is skipped.",
            valid=(Example(_GOOD),),
        ),
        Check(
            "skill/unknown-config-key",
            Severity.WARNING,
            "[tool.skill] holds a key skillc does not know (often a typo).",
            valid=(Example(_GOOD),),
        ),
    )
}


# --- The schema translator's checks (compiler/schema*.py) ----------------------------

_AGENT = _agent("Lookup()")


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

SCHEMA_CHECKS: tuple[Check, ...] = (
    Check(
        "skill/schema-unsupported",
        Severity.ERROR,
        "A model uses a construct outside the subset of pydantic that skillc translates to "
        'JSON Schema statically; [tool.skill] schema = "import" lets pydantic build it instead.',
        valid=(Example({"agent.py": _AGENT, "tools.py": _model_tools(_SUPPORTED_MODEL, imports=_TYPING)}),),
        invalid=(
            Example(
                {
                    "agent.py": _AGENT,
                    "tools.py": _model_tools(
                        "    order_id: str\n    address: IPv4Address\n", imports="from ipaddress import IPv4Address\n"
                    ),
                },
                ("src/tools.py", 8, 13),
            ),
            Example(
                {
                    "agent.py": _AGENT,
                    "tools.py": _model_tools(
                        "    order_id: str\n    since: str = Field(default=today())\n",
                        code='def today() -> str:\n    return "2024-01-01"\n\n\n',
                    ),
                },
                ("src/tools.py", 11, 31),
            ),
        ),
    ),
    Check(
        "skill/strict-incompatible",
        Severity.ERROR,
        "A tool with strict = True has an input schema that OpenAI's strict mode cannot express "
        "(a free-form dict, a value of any type, a tuple of mixed types, open extra fields).",
        valid=(
            Example(
                {
                    "agent.py": _AGENT,
                    "tools.py": _model_tools('    order_id: str\n    note: str = ""\n', settings="    strict = True\n"),
                }
            ),
        ),
        invalid=(
            Example(
                {
                    "agent.py": _AGENT,
                    "tools.py": _model_tools(
                        "    order_id: str\n    tags: dict[str, str] = {}\n", settings="    strict = True\n"
                    ),
                },
                ("src/tools.py", 10, 0),
            ),
        ),
    ),
)
CHECKS.update((check.code, check) for check in SCHEMA_CHECKS)


def severity_of(code: str) -> Severity:
    """The severity every diagnostic with ``code`` has."""
    return CHECKS[code].severity
