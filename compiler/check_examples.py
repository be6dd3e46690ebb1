"""The examples of the checks of the project as a whole: files, imports, names, skills, the agent.

``checks`` pairs each code of ``CHECKS`` with its entry here or in ``tool_check_examples``
(``schema_check_examples`` holds the schema translator's).  ``valid`` examples are small
projects (file name under ``src/`` -> source) that compile without any diagnostic;
``invalid`` ones report the check at the place their ``at`` names.  The test suite turns
each example into a case, so a check and its documentation cannot drift apart.

Like ``checks``, this module is a leaf: it imports nothing of the compiler but its projects and ``types``.
"""

from __future__ import annotations

from .check_projects import (
    AGENT_MODULE,
    CYCLE_MODULE,
    CYCLE_NAME,
    DATA_TOOL,
    EXECUTE,
    GOOD,
    LOOKUP,
    RESOURCE_TOOL,
    SETTINGS,
    CheckExamples,
    agent,
    tool_class,
)
from .types import Example

__all__ = ["EXAMPLES"]

#: ``asyncio`` and a coroutine function to run, after ``LOOKUP``.
_ASYNC_HELPERS = "\nimport asyncio\n\n\nasync def other():\n    return 1\n"
#: Calls, as statements of their own, of what only looks like a coroutine function, after ``LOOKUP``.
_UNAWAITED_LOOKALIKES = (
    "\nimport asyncio\n\n\n"
    "def sync_version(function):\n    return lambda: None\n\n\n"
    "@sync_version\nasync def made_sync():\n    return 1\n\n\n"
    "async def ticks():\n    yield 1\n\n\n"
    "async def replaced():\n    return 1\n\n\n"
    "replaced = sync_version(replaced)\n\n\n"
    "async def shadowed():\n    return 1\n\n\n"
    "class Base:\n    async def save(self):\n        return 1\n\n    def run(self):\n        self.save()\n\n\n"
    "class Sync(Base):\n    def save(self):\n        return 2\n\n\n"
    "def total():\n    made_sync()\n    ticks()\n    replaced()\n    shadowed = print\n    shadowed()\n"
    "    if False:\n        asyncio.sleep(1)\n"
)
#: A module-level read of the data file ``src/data/prices.json``, opened as ``{}`` says.
_READ_PRICES = "\nwith open({}) as handle:\n    PRICES = handle.read()\n"

#: Function bodies that read names of the module (bound below them, in a branch, by another
#: function's ``global``), their own, those of enclosing functions, builtins and ``__class__``.
_FUNCTION_SCOPES = (
    "\nimport sys\n"
    "\ndef total(items, *more, scale=1, **options):\n"
    "    import math\n"
    "    count: Unknown = len(items)\n"
    "    squares = [value * value for value in items]\n"
    "    for index, value in enumerate(more):\n"
    "        count += index\n"
    "    if (extra := options.get('extra')) is not None:\n"
    "        count += extra\n"
    "    def inner():\n"
    "        nonlocal count\n"
    "        count += 1\n"
    "        return count + LIMIT + math.floor(scale) + len(squares)\n"
    "    class Local:\n"
    "        size = count\n"
    "        def method(self):\n"
    "            return __class__.size + inner()\n"
    "    match options:\n"
    "        case {'mode': mode, **rest}:\n"
    "            return mode, rest\n"
    "    try:\n"
    "        pass\n"
    "    except OSError as error:\n"
    "        return error\n"
    "    return Local().method(), (lambda factor: factor * SEPARATOR)(2), COUNTER\n"
    "\ndef count_up():\n"
    "    global COUNTER\n"
    "    COUNTER = 1\n"
    "\nif sys.platform == 'win32':\n"
    "    SEPARATOR = '\\\\'\n"
    "else:\n"
    "    SEPARATOR = '/'\n"
    "LIMIT = 10\n"
)
#: An import only annotations use, under ``if TYPE_CHECKING:``.
_TYPING_ONLY = (
    "\nfrom typing import TYPE_CHECKING\n"
    "if TYPE_CHECKING:\n"
    "    from decimal import Decimal\n"
    "\ndef price(value: Decimal) -> Decimal:\n"
    "    total: Decimal = value\n"
    "    return total\n"
)
#: Code that asks whether IPython put ``get_ipython`` among the builtins before it calls it.
_IPYTHON_PROBE = (
    "\ndef in_notebook():\n"
    "    try:\n"
    "        get_ipython\n"
    "    except NameError:\n"
    "        return False\n"
    "    return get_ipython() is not None\n"
)
_EXECUTE_JSON = (
    '    name = "lookup"\n'
    + SETTINGS
    + "    def execute(self, input, ctx):\n        return json.dumps({'order_id': input.order_id})\n"
)
_EXECUTE_JSON_CAUGHT = (
    '    name = "lookup"\n' + SETTINGS + "    def execute(self, input, ctx):\n"
    "        try:\n"
    "            return json.dumps({'order_id': input.order_id})\n"
    "        except Exception as error:\n"
    "            return str(error)\n"
)
_MAIN_ONLY = "\ndef suffix():\n    return SUFFIX\n\nif __name__ == '__main__':\n    SUFFIX = '!'\n"
_TYPING_AT_RUN_TIME = (
    "\nfrom typing import TYPE_CHECKING\n"
    "if TYPE_CHECKING:\n"
    "    from decimal import Decimal\n"
    "\ndef price(value):\n"
    "    return Decimal(value)\n"
)
_TYPING_AT_IMPORT = (
    "\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from decimal import Decimal\n\nRATE = Decimal('0.2')\n"
)
_CLASS_NAME_IN_METHOD = (
    '    name = "lookup"\n' + SETTINGS + "    prefix = 'order '\n\n"
    "    def execute(self, input, ctx):\n"
    "        return prefix + input.order_id\n"
)
_MISSPELT = "\nLIMIT = 10\n\ndef page():\n    return LIMTI\n"

#: Tools and helpers that use a name at import time, or only where it works, before it is bound.
LATE_TOOL = (
    "from pydantic import BaseModel\n"
    "from skillc import Tool, ToolContext\n"
    "\n"
    "class LateTool(Tool):\n"
    '    name = "late_tool"\n'
    '    description = "Uses a model defined below."\n'
    "    input_schema = LateInput\n"
    "\n"
    "    def execute(self, input: LateInput, ctx: ToolContext) -> str:\n"
    "        return input.text\n"
    "\n"
    "class LateInput(BaseModel):\n"
    "    text: str\n"
)
LATE_FUNCTION = (
    "from typing import Any\n"
    "\n"
    "from pydantic import BaseModel\n"
    "from skillc import tool\n"
    "\n"
    "@tool\n"
    "def echo_payload(payload: dict[str, Any], tree: Node | None = None) -> dict[str, Any]:\n"
    '    """Echo the payload."""\n'
    "    return payload\n"
    "\n"
    "class Node(BaseModel):\n"
    "    label: str\n"
)
LATE_NODE = "\nclass Node(BaseModel):\n    label: str\n"
#: A module-level parser of the module's own command line.
PARSER = (
    '\nimport argparse\n\nPARSER = argparse.ArgumentParser()\nPARSER.add_argument("--debug", action="store_true")\n'
)
LATE_ANNOTATED = "\ndef describe(node: Node) -> str:\n    return node.label\n" + LATE_NODE
SELF_REFERENCE = "\nclass Node(BaseModel):\n    label: str\n    children: list[Node] = []\n"
BOTH_BRANCHES = (
    "\nimport sys\n"
    'if sys.platform == "win32":\n'
    '    SEPARATOR = "\\\\"\n'
    "else:\n"
    '    SEPARATOR = "/"\n'
    "ROOT = SEPARATOR\n"
    "SEPARATOR = SEPARATOR * 2\n"
)
CLASS_BODY = "\nclass Limits:\n    DEFAULT = 5\n    MAXIMUM = DEFAULT * 2\n\nDEFAULT = 1\n"
TYPING_ONLY = (
    "from __future__ import annotations\n"
    "\n"
    "from typing import TYPE_CHECKING\n"
    "\n"
    "def summarize(report: Report) -> str:\n"
    "    return str(report)\n"
    "\n"
    "if TYPE_CHECKING:\n"
    "    from helpers import Report\n"
    "\n" + LOOKUP
)

EXAMPLES: dict[str, CheckExamples] = {
    "skill/syntax-error": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(Example({**GOOD, "broken.py": "def f(:\n    pass\n"}, ("src/broken.py", 1, 6)),),
    ),
    "skill/syntax-warning": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example({**GOOD, "patterns.py": 'import re\nDIGITS = re.compile("\\d+")\n'}, ("src/patterns.py", 2, 0)),
        ),
    ),
    "skill/file-too-large": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(Example({**GOOD, "data.py": "ROWS = 1\n" + "#" * 2_000_000 + "\n"}, ("src/data.py", 1, 0)),),
    ),
    "skill/no-agent": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example({"tools.py": LOOKUP}, ("pyproject.toml", 7, 0)),
            Example({"agent.py": "AGENT = None\n", "tools.py": LOOKUP}, ("src/agent.py", 1, 0)),
        ),
    ),
    "skill/invalid-skill-name": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {"agent.py": agent("Lookup()").replace('name="orders"', 'name="my orders"'), "tools.py": LOOKUP},
                ("src/agent.py", 3, 20),
            ),
        ),
    ),
    "skill/duplicate-tool-name": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup(), lookup2", "from tools import Lookup, lookup2"),
                    "tools.py": LOOKUP
                    + '\nlookup2 = Tool(name="lookup", description="d", input_schema=LookupInput, execute=print)\n',
                },
                ("src/tools.py", 15, 20),
            ),
            Example(
                {
                    "agent.py": agent("Lookup(), lookup2", "from tools import Lookup, lookup2"),
                    "tools.py": LOOKUP
                    + '\nlookup2 = Tool(name="LookUp", description="d", input_schema=LookupInput, execute=print)\n',
                },
                ("src/tools.py", 15, 20),
            ),
        ),
    ),
    "skill/reserved-skill-name": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {"agent.py": agent("Lookup()").replace('name="orders"', 'name="Aux"'), "tools.py": LOOKUP},
                ("src/agent.py", 3, 20),
            ),
        ),
    ),
    "skill/duplicate-skill-name": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup()").replace(
                        "skills=[orders]", 'skills=[orders, Skill(name="orders", description="Again.")]'
                    ),
                    "tools.py": LOOKUP,
                },
                ("src/agent.py", 4, 74),
            ),
            Example(
                {
                    "agent.py": agent("Lookup()").replace(
                        "skills=[orders]", 'skills=[orders, Skill(name="Orders", description="Again.")]'
                    ),
                    "tools.py": LOOKUP,
                },
                ("src/agent.py", 4, 74),
            ),
        ),
    ),
    "skill/unresolved-reference": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {"agent.py": agent("Lookup(), helper", extra="def helper():\n    pass\n"), "tools.py": LOOKUP},
                ("src/agent.py", 5, 70),
            ),
            Example({"agent.py": agent("Lookup"), "tools.py": LOOKUP}, ("src/agent.py", 3, 60)),
        ),
    ),
    "skill/wrapped-tool-ref": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": agent("logged(Lookup())", extra="def logged(tool):\n    return tool\n"),
                    "tools.py": LOOKUP,
                },
                ("src/agent.py", 5, 60),
            ),
        ),
    ),
    "skill/unresolved-import": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {"agent.py": agent("Lookup()", "from tools import Lookup, Missing"), "tools.py": LOOKUP},
                ("src/agent.py", 2, 26),
            ),
            Example(
                {
                    "agent.py": agent("Lookup()", "from tools import Lookup\nimport tools.nothing"),
                    "tools.py": LOOKUP,
                },
                ("src/agent.py", 3, 7),
            ),
        ),
    ),
    "skill/inheritance-cycle": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": tool_class(
                        '    name = "lookup"\n' + SETTINGS + EXECUTE,
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
            Example({**GOOD, "tools.py": "import helpers\n" + LOOKUP, "helpers.py": CYCLE_MODULE}),
            Example({**GOOD, "tools.py": LOOKUP + "\nfrom helpers import shout\n", "helpers.py": CYCLE_NAME}),
        ),
        invalid=(
            Example(
                {**GOOD, "tools.py": "from helpers import shout\n" + LOOKUP, "helpers.py": CYCLE_NAME},
                ("src/helpers.py", 1, 18),
            ),
        ),
    ),
    "skill/nested-event-loop": CheckExamples(
        valid=(
            Example(GOOD),
            # Awaited in the async def, or run from sync code (a thread has no loop): no loop inside a loop.
            Example(
                {**GOOD, "tools.py": LOOKUP + _ASYNC_HELPERS + "\n\nasync def total():\n    return await other()\n"}
            ),
            Example(
                {**GOOD, "tools.py": LOOKUP + _ASYNC_HELPERS + "\n\ndef total():\n    return asyncio.run(other())\n"}
            ),
            Example(
                {
                    **GOOD,
                    "tools.py": LOOKUP
                    + _ASYNC_HELPERS
                    + "\n\nasync def total():\n    def blocking():\n        return asyncio.run(other())\n\n"
                    "    return await asyncio.to_thread(blocking)\n",
                }
            ),
        ),
        invalid=(
            Example(
                {
                    **GOOD,
                    "tools.py": LOOKUP + _ASYNC_HELPERS + "\n\nasync def total():\n    return asyncio.run(other())\n",
                },
                ("src/tools.py", 23, 11),
            ),
            Example(
                {
                    **GOOD,
                    "tools.py": LOOKUP
                    + _ASYNC_HELPERS
                    + "\n\nasync def total():\n    return asyncio.get_event_loop().run_until_complete(other())\n",
                },
                ("src/tools.py", 23, 11),
            ),
        ),
    ),
    "skill/unawaited-coroutine": CheckExamples(
        valid=(
            Example(GOOD),
            # Awaited, kept, started as a task, or a call of something else: an async generator,
            # what a decorator made of an async def, a name bound again (in the module or the
            # function), a method a subclass defines again, a call in code that never runs.
            Example(
                {
                    **GOOD,
                    "tools.py": LOOKUP
                    + _ASYNC_HELPERS
                    + "\n\nasync def total():\n    await other()\n    kept = other()\n    await kept\n"
                    "    await asyncio.create_task(other())\n",
                }
            ),
            Example({**GOOD, "tools.py": LOOKUP + _UNAWAITED_LOOKALIKES}),
        ),
        invalid=(
            Example(
                {**GOOD, "tools.py": LOOKUP + _ASYNC_HELPERS + "\n\nasync def total():\n    other()\n"},
                ("src/tools.py", 23, 4),
            ),
            # In sync code, a method through self, a function imported from another module.
            Example(
                {**GOOD, "tools.py": LOOKUP + _ASYNC_HELPERS + "\n\ndef total():\n    other()\n"},
                ("src/tools.py", 23, 4),
            ),
            Example(
                {
                    **GOOD,
                    "tools.py": tool_class(
                        '    name = "lookup"\n'
                        + SETTINGS
                        + "    async def execute(self, input, ctx):\n        self.save(input)\n        return 1\n\n"
                        "    async def save(self, input):\n        return input\n"
                    ),
                },
                ("src/tools.py", 12, 8),
            ),
            Example(
                {
                    **GOOD,
                    "tools.py": "from helpers import notify\n" + LOOKUP + "\n\nasync def total():\n    notify()\n",
                    "helpers.py": "async def notify():\n    return None\n",
                },
                ("src/tools.py", 18, 4),
            ),
            # An async execute returning the coroutine it did not await.
            Example(
                {
                    **GOOD,
                    "tools.py": tool_class(
                        '    name = "lookup"\n'
                        + SETTINGS
                        + "    async def execute(self, input, ctx):\n        return self.save(input)\n\n"
                        "    async def save(self, input):\n        return input.order_id\n"
                    ),
                },
                ("src/tools.py", 12, 15),
            ),
            # A coroutine method of a collection of the data store.
            Example(
                {
                    **GOOD,
                    "tools.py": tool_class(
                        '    name = "lookup"\n'
                        + SETTINGS
                        + "    async def execute(self, input, ctx):\n"
                        + "        notes = ctx.data['notes']\n        notes.acreate({'order_id': input.order_id})\n"
                        + "        return 1\n"
                    ),
                },
                ("src/tools.py", 13, 8),
            ),
        ),
    ),
    "skill/event-loop-in-thread": CheckExamples(
        valid=(
            Example(GOOD),
            # asyncio.run starts a loop in the worker thread; a lookup that may fail is caught; an
            # async execute runs on the loop.
            Example(
                {
                    **GOOD,
                    "tools.py": tool_class(
                        '    name = "lookup"\n'
                        + SETTINGS
                        + "    def execute(self, input, ctx):\n"
                        + "        import asyncio\n"
                        + "        try:\n            loop = asyncio.get_event_loop()\n"
                        + "        except RuntimeError:\n            loop = None\n"
                        + "        return asyncio.run(asyncio.sleep(0, input.order_id)), loop is None\n"
                    ),
                }
            ),
        ),
        invalid=(
            Example(
                {
                    **GOOD,
                    "tools.py": "import asyncio\n"
                    + tool_class(
                        '    name = "lookup"\n'
                        + SETTINGS
                        + "    def execute(self, input, ctx):\n"
                        + "        return asyncio.get_event_loop().run_until_complete(asyncio.sleep(0, 1))\n"
                    ),
                },
                ("src/tools.py", 13, 15),
            ),
        ),
    ),
    "skill/sqlite-at-import": CheckExamples(
        valid=(
            Example(GOOD),
            # Opened per call; used only at import; or shared across threads on purpose.
            Example(
                {
                    **GOOD,
                    "tools.py": "import sqlite3\n"
                    + LOOKUP
                    + "\nSETUP = sqlite3.connect(':memory:')\nSETUP.close()\n"
                    + "SHARED = sqlite3.connect(':memory:', check_same_thread=False)\n\n\n"
                    + "def count():\n    with sqlite3.connect(':memory:') as conn:\n"
                    + "        return conn.total_changes + SHARED.total_changes\n",
                }
            ),
        ),
        invalid=(
            Example(
                {
                    **GOOD,
                    "tools.py": "import sqlite3\n"
                    + LOOKUP
                    + "\nDB = sqlite3.connect('orders.db')\n\n\ndef count():\n    return DB.total_changes\n",
                },
                ("src/tools.py", 16, 5),
            ),
            Example(
                {
                    **GOOD,
                    "tools.py": "from sqlite3 import connect\n"
                    + LOOKUP
                    + "\nDB: object = connect(':memory:')\ncount = lambda: DB\n",
                },
                ("src/tools.py", 16, 13),
            ),
        ),
    ),
    "skill/event-loop-at-import": CheckExamples(
        valid=(
            Example(GOOD),
            # Looked up when the code runs, or caught: nothing fails at import.  A lock needs no loop.
            Example(
                {
                    **GOOD,
                    "tools.py": "import asyncio\n"
                    + LOOKUP
                    + "\nLOCK = asyncio.Lock()\n\n\nasync def later():\n    return asyncio.get_running_loop()\n",
                }
            ),
            Example(
                {
                    **GOOD,
                    "tools.py": "import asyncio\n"
                    + LOOKUP
                    + "\ntry:\n    LOOP = asyncio.get_event_loop()\nexcept RuntimeError:\n    LOOP = None\n",
                }
            ),
        ),
        invalid=(
            Example(
                {**GOOD, "tools.py": "import asyncio\n" + LOOKUP + "\nLOOP = asyncio.get_event_loop()\n"},
                ("src/tools.py", 16, 7),
            ),
            Example(
                {
                    **GOOD,
                    "tools.py": "from asyncio import get_running_loop\n" + LOOKUP + "\nLOOP = get_running_loop()\n",
                },
                ("src/tools.py", 16, 7),
            ),
        ),
    ),
    "skill/signal-at-import": CheckExamples(
        valid=(
            Example(GOOD),
            # In a function, under the main guard, or where a ValueError is caught: nothing fails at import.
            Example(
                {**GOOD, "tools.py": "import signal\n" + LOOKUP + "\n\ndef setup():\n    signal.signal(2, None)\n"}
            ),
            Example(
                {
                    **GOOD,
                    "tools.py": "import signal\n"
                    + LOOKUP
                    + '\nif __name__ == "__main__":\n    signal.signal(2, None)\n',
                }
            ),
            Example(
                {
                    **GOOD,
                    "tools.py": "import signal\n"
                    + LOOKUP
                    + "\ntry:\n    signal.signal(2, None)\nexcept ValueError:\n    pass\n",
                }
            ),
        ),
        invalid=(
            Example(
                {**GOOD, "tools.py": "import signal\n" + LOOKUP + "\nsignal.signal(signal.SIGTERM, signal.SIG_DFL)\n"},
                ("src/tools.py", 16, 0),
            ),
            Example(
                {**GOOD, "tools.py": "from signal import set_wakeup_fd\n" + LOOKUP + "\nset_wakeup_fd(-1)\n"},
                ("src/tools.py", 16, 0),
            ),
        ),
    ),
    "skill/environment-at-import": CheckExamples(
        valid=(
            Example(GOOD),
            # With a default, caught, tested first, or read when the tool runs: nothing fails at import.
            Example({**GOOD, "tools.py": "import os\n" + LOOKUP + '\nKEY = os.environ.get("KEY")\n'}),
            Example(
                {
                    **GOOD,
                    "tools.py": "import os\n"
                    + LOOKUP
                    + '\ntry:\n    KEY = os.environ["KEY"]\nexcept KeyError:\n    KEY = None\n',
                }
            ),
            Example(
                {
                    **GOOD,
                    "tools.py": "import os\n" + LOOKUP + '\nif "KEY" in os.environ:\n    KEY = os.environ["KEY"]\n',
                }
            ),
            Example(
                {
                    **GOOD,
                    "tools.py": "import os\n" + LOOKUP + '\nif os.environ.get("KEY"):\n    KEY = os.environ["KEY"]\n',
                }
            ),
            Example({**GOOD, "tools.py": "import os\n" + LOOKUP + '\n\ndef key():\n    return os.environ["KEY"]\n'}),
        ),
        invalid=(
            Example(
                {**GOOD, "tools.py": "import os\n" + LOOKUP + '\nKEY = os.environ["KEY"]\n'}, ("src/tools.py", 16, 6)
            ),
            Example(
                {
                    **GOOD,
                    "tools.py": "from os import environ\n" + LOOKUP + '\nclass Settings:\n    key = environ["KEY"]\n',
                },
                ("src/tools.py", 17, 10),
            ),
        ),
    ),
    "skill/command-line-at-import": CheckExamples(
        valid=(
            Example(GOOD),
            # Under the main guard, or in a function, or given its arguments: no command line is read.
            Example(
                {**GOOD, "tools.py": LOOKUP + PARSER + '\nif __name__ == "__main__":\n    ARGS = PARSER.parse_args()\n'}
            ),
            Example({**GOOD, "tools.py": LOOKUP + PARSER + "\ndef options():\n    return PARSER.parse_args()\n"}),
            Example({**GOOD, "tools.py": LOOKUP + PARSER + "\nARGS = PARSER.parse_args([])\n"}),
        ),
        invalid=(
            Example({**GOOD, "tools.py": LOOKUP + PARSER + "\nARGS = PARSER.parse_args()\n"}, ("src/tools.py", 20, 7)),
            Example(
                {
                    **GOOD,
                    "tools.py": LOOKUP + PARSER + "\nclass Options:\n    known, rest = PARSER.parse_known_args()\n",
                },
                ("src/tools.py", 21, 18),
            ),
        ),
    ),
    "skill/used-before-definition": CheckExamples(
        valid=(
            # Annotations that are never evaluated at import: the future import, a string.
            Example({**GOOD, "tools.py": "from __future__ import annotations\n" + LOOKUP + LATE_ANNOTATED}),
            Example({**GOOD, "tools.py": LOOKUP + LATE_ANNOTATED.replace("node: Node", 'node: "Node"')}),
            # A use inside a function body runs when it is called.
            Example({**GOOD, "tools.py": LOOKUP + '\ndef make():\n    return Node(label="x")\n' + LATE_NODE}),
            # Bound in both branches before the use; rebinding it later changes nothing.
            Example({**GOOD, "tools.py": LOOKUP + BOTH_BRANCHES}),
            # A builtin is found until the module shadows it.
            Example(
                {**GOOD, "tools.py": LOOKUP + '\nNAMES = sorted(["b", "a"])\n\ndef sorted(items):\n    return items\n'}
            ),
            # A model that refers to itself through a string annotation.
            Example({**GOOD, "tools.py": LOOKUP + SELF_REFERENCE.replace("list[Node]", 'list["Node"]')}),
            # A class body sees the names bound above in the same body.
            Example({**GOOD, "tools.py": LOOKUP + CLASS_BODY}),
            # Imports for type checkers only, used in annotations the future import defers.
            Example({**GOOD, "tools.py": TYPING_ONLY, "helpers.py": "class Report:\n    pass\n"}),
        ),
        invalid=(
            # The input model is defined below the tool class that names it in its body.
            Example(
                {"agent.py": agent("LateTool()", "from tools import LateTool"), "tools.py": LATE_TOOL},
                ("src/tools.py", 7, 19),
            ),
            # Without the future import, a parameter annotation runs when the def does.
            Example(
                {"agent.py": agent("echo_payload", "from tools import echo_payload"), "tools.py": LATE_FUNCTION},
                ("src/tools.py", 7, 48),
            ),
            Example({**GOOD, "tools.py": LOOKUP + SELF_REFERENCE}, ("src/tools.py", 17, 19)),
            # A decorator, a default value and a base class run when their statement does.
            Example(
                {
                    **GOOD,
                    "tools.py": LOOKUP
                    + "\n@logged\ndef helper():\n    return 1\n\ndef logged(function):\n    return function\n",
                },
                ("src/tools.py", 15, 1),
            ),
            Example(
                {**GOOD, "tools.py": LOOKUP + "\ndef page(limit=LIMIT):\n    return limit\n\nLIMIT = 5\n"},
                ("src/tools.py", 15, 15),
            ),
            Example(
                {**GOOD, "tools.py": LOOKUP + "\nclass Special(Base):\n    pass\n\nclass Base:\n    pass\n"},
                ("src/tools.py", 15, 14),
            ),
        ),
    ),
    "skill/undefined-name": CheckExamples(
        valid=(
            Example(GOOD),
            # A try that catches NameError asks whether the name exists.
            Example({**GOOD, "tools.py": LOOKUP + "\ntry:\n    text = unicode\nexcept NameError:\n    text = str\n"}),
            Example({**GOOD, "tools.py": LOOKUP + _IPYTHON_PROBE}),
            # A module that reaches its namespace another way may bind anything.
            Example({**GOOD, "tools.py": LOOKUP + '\nglobals()["LIMIT"] = 5\nPAGE = LIMIT\n'}),
            # A function body may read what the module binds below it, in a branch, or in another
            # function (global); what it binds itself, what enclosing functions bind, a builtin.
            Example({**GOOD, "tools.py": LOOKUP + _FUNCTION_SCOPES}),
            # An import under TYPE_CHECKING that only annotations use.
            Example({**GOOD, "tools.py": "from __future__ import annotations\n" + LOOKUP + _TYPING_ONLY}),
        ),
        invalid=(
            # A misspelt decorator, a forgotten import, a base class that is not defined.
            Example(
                {
                    **GOOD,
                    "tools.py": LOOKUP
                    + "\ndef logged(function):\n    return function\n\n@loged\ndef helper():\n    return 1\n",
                },
                ("src/tools.py", 18, 1),
            ),
            Example({**GOOD, "tools.py": LOOKUP + "\nSTARTED = datetime.now()\n"}, ("src/tools.py", 15, 10)),
            Example({**GOOD, "tools.py": LOOKUP + "\nclass Special(Base):\n    pass\n"}, ("src/tools.py", 15, 14)),
            # In function bodies: an execute that uses a module it never imported (even inside a
            # try that catches every Exception: the call would only ever return that error)...
            Example({**GOOD, "tools.py": tool_class(_EXECUTE_JSON)}, ("src/tools.py", 12, 15)),
            Example({**GOOD, "tools.py": tool_class(_EXECUTE_JSON_CAUGHT)}, ("src/tools.py", 13, 19)),
            # ...a name bound only under the main guard, only under TYPE_CHECKING, or only in the class body...
            Example({**GOOD, "tools.py": LOOKUP + _MAIN_ONLY}, ("src/tools.py", 16, 11)),
            Example({**GOOD, "tools.py": LOOKUP + _TYPING_AT_RUN_TIME}, ("src/tools.py", 20, 11)),
            # At import: a module-level use of a TYPE_CHECKING import.
            Example({**GOOD, "tools.py": LOOKUP + _TYPING_AT_IMPORT}, ("src/tools.py", 19, 7)),
            Example({**GOOD, "tools.py": tool_class(_CLASS_NAME_IN_METHOD)}, ("src/tools.py", 14, 15)),
            # ...and a helper nothing calls yet, a lambda's body, a misspelt module-level name.
            Example({**GOOD, "tools.py": LOOKUP + "\ndef later():\n    return MISSING\n"}, ("src/tools.py", 16, 11)),
            Example({**GOOD, "tools.py": LOOKUP + "\nSHOUT = lambda text: txet.upper()\n"}, ("src/tools.py", 15, 21)),
            Example({**GOOD, "tools.py": LOOKUP + _MISSPELT}, ("src/tools.py", 18, 11)),
        ),
    ),
    "skill/working-folder-path": CheckExamples(
        valid=(
            Example(GOOD),
            # From the module's own folder, or a literal that names no file of the project.
            Example(
                {
                    **GOOD,
                    "tools.py": "from pathlib import Path\n"
                    + LOOKUP
                    + _READ_PRICES.format('Path(__file__).parent / "data/prices.json"'),
                    "data/prices.json": "{}",
                }
            ),
            Example({**GOOD, "tools.py": "import logging\n" + LOOKUP + '\nLOG = logging.getLogger("tools.lookup")\n'}),
        ),
        invalid=(
            Example(
                {**GOOD, "tools.py": LOOKUP + _READ_PRICES.format('"src/data/prices.json"'), "data/prices.json": "{}"},
                ("src/tools.py", 15, 10),
            ),
            # A file it writes, through a module imported inside the function.
            Example(
                {
                    **GOOD,
                    "tools.py": LOOKUP
                    + "\n\ndef save():\n    import sqlite3 as sq\n\n    return sq.connect('notes.db')\n",
                },
                ("src/tools.py", 19, 22),
            ),
        ),
    ),
    "skill/model-field-conflict": CheckExamples(
        valid=(
            Example(GOOD),
            # Another name in the namespace only makes pydantic warn; the configuration may lift the rule.
            Example(
                {
                    **GOOD,
                    "tools.py": LOOKUP.replace("    order_id: str\n", "    order_id: str\n    model_dumps: int = 0\n"),
                }
            ),
            Example(
                {
                    **GOOD,
                    "tools.py": LOOKUP.replace(
                        "    order_id: str\n",
                        '    model_config = {"protected_namespaces": ()}\n    order_id: str\n    model_dump: int = 0\n',
                    ),
                }
            ),
        ),
        invalid=(
            Example(
                {
                    **GOOD,
                    "tools.py": LOOKUP.replace("    order_id: str\n", "    order_id: str\n    model_dump: int = 0\n"),
                },
                ("src/tools.py", 6, 4),
            ),
        ),
    ),
    "skill/duplicate-agent": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            # Bound again: Python's agent is the second, the first would have been compiled.
            Example(
                {**GOOD, "agent.py": agent("Lookup()", extra='first = Agent(name="draft", skills=[])\n')},
                ("src/agent.py", 5, 0),
            ),
        ),
    ),
    "skill/encoding-error": CheckExamples(
        valid=(Example({**GOOD, "latin.py": b"# -*- coding: latin-1 -*-\nname = '\xe9'\n"}),),
        invalid=(Example({**GOOD, "latin.py": b"name = '\xe9t\xe9'\n"}, ("src/latin.py", 1, 8)),),
    ),
    "skill/unreadable-file": CheckExamples(valid=(Example(GOOD),)),
    "skill/internal-error": CheckExamples(valid=(Example(GOOD),)),
    "skill/unreachable-tool": CheckExamples(
        valid=(
            Example(GOOD),
            # A base tool class is reached through the registered classes that derive from it.
            Example(
                {
                    "agent.py": agent("Petstore()", "from tools import Petstore"),
                    "tools.py": LOOKUP + '\n\nclass Petstore(Lookup):\n    name = "petstore"\n',
                }
            ),
        ),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": LOOKUP
                    + '\n@tool\ndef spare(x: int) -> int:\n    """Spare."""\n    return x\n'.replace(
                        "@tool", "from skillc import tool\n\n@tool"
                    ),
                },
                ("src/tools.py", 18, 0),
            ),
        ),
    ),
    "skill/empty-skill": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(Example({"agent.py": agent(""), "tools.py": LOOKUP}, ("src/agent.py", 3, 9)),),
    ),
    "skill/get-data-at-call-time": CheckExamples(
        valid=(
            Example(GOOD),
            Example(
                {
                    "agent.py": AGENT_MODULE,
                    "tools.py": (
                        "import pkgutil\n\n"
                        'ITEMS = pkgutil.get_data(__name__, "items.json")\n\n'
                        "def version():\n"
                        '    return pkgutil.get_data("pydantic", "py.typed")\n' + LOOKUP
                    ),
                    "items.json": "{}",
                }
            ),
        ),
        invalid=(
            Example(
                {
                    "agent.py": AGENT_MODULE,
                    "tools.py": (
                        "from pkgutil import get_data\n\n"
                        "def items():\n"
                        '    return get_data(__name__, "items.json")\n' + LOOKUP
                    ),
                    "items.json": "{}",
                },
                ("src/tools.py", 4, 11),
            ),
            Example(
                {
                    "agent.py": AGENT_MODULE,
                    "tools.py": (
                        'import pkgutil\n\ndef items():\n    return pkgutil.get_data("tools", "items.json")\n' + LOOKUP
                    ),
                    "items.json": "{}",
                },
                ("src/tools.py", 4, 11),
            ),
        ),
    ),
    "skill/star-import": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example({"agent.py": agent("Lookup()", "from tools import *"), "tools.py": LOOKUP}, ("src/agent.py", 2, 0)),
        ),
    ),
    "skill/conditional-definition": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": tool_class(
                        '    name = "lookup"\n' + SETTINGS + EXECUTE,
                        bases="Base",
                        header="import sys\nif sys.version_info >= (3, 12):\n    class Base(Tool): pass\nelse:\n    class Base(Tool): timeout = 5\n",
                    ),
                },
                ("src/tools.py", 7, 4),
            ),
        ),
    ),
    "skill/undeclared-dependency": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {"agent.py": agent("Lookup()"), "tools.py": "import requests\n" + LOOKUP},
                ("src/tools.py", 1, 7),
            ),
        ),
    ),
    # Its invalid projects declare a package that is not installed, in their own pyproject.toml:
    # tests/test_requirements.py builds them.
    "skill/dependency-not-installed": CheckExamples(valid=(Example(GOOD),), invalid=()),
    "skill/dynamic-import": CheckExamples(
        valid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": "import importlib\n"
                    + LOOKUP.replace(
                        "return input.order_id", 'return importlib.import_module("helpers").shout(input.order_id)'
                    ),
                    "helpers.py": "def shout(text):\n    return text.upper()\n",
                }
            ),
        ),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": "import importlib\n"
                    + LOOKUP.replace("return input.order_id", "return importlib.import_module(input.order_id).NAME"),
                },
                ("src/tools.py", 14, 15),
            ),
        ),
    ),
    "skill/bundle-not-self-contained": CheckExamples(valid=(Example(GOOD),)),
    "skill/schema-mismatch": CheckExamples(valid=(Example(GOOD),)),
    "skill/symlink-loop": CheckExamples(valid=(Example(GOOD),)),
    "skill/symlink-outside-project": CheckExamples(valid=(Example(GOOD),)),
    "skill/dangling-symlink": CheckExamples(valid=(Example(GOOD),)),
    "skill/unknown-config-key": CheckExamples(valid=(Example(GOOD),)),
    "skill/missing-data-file": CheckExamples(
        valid=(
            Example({**GOOD, "tools.py": DATA_TOOL, "data/prices.json": '{"A1": 3}\n'}),
            Example({"agent.py": AGENT_MODULE, "tools/__init__.py": RESOURCE_TOOL, "tools/prices.json": "{}\n"}),
            # Read only when it is there: the code tests it first, directly or through a name.
            Example(
                {
                    **GOOD,
                    "tools.py": "import os\nfrom pathlib import Path\n\nHERE = Path(__file__).parent\n\n\n"
                    "def settings():\n    path = HERE / 'local.txt'\n    if not path.exists():\n        return ''\n"
                    "    return path.read_text()\n\n\n"
                    "def extra():\n    name = os.path.join(os.path.dirname(__file__), 'extra.json')\n"
                    "    return open(name).read() if os.path.isfile(name) else '{}'\n" + LOOKUP,
                }
            ),
        ),
        invalid=(
            Example({**GOOD, "tools.py": DATA_TOOL}, ("src/tools.py", 4, 21)),
            Example({"agent.py": AGENT_MODULE, "tools/__init__.py": RESOURCE_TOOL}, ("src/tools/__init__.py", 4, 20)),
        ),
    ),
    "skill/write-into-bundle": CheckExamples(
        valid=(
            # Read only, opened to read, or written outside the bundle.
            Example({**GOOD, "tools.py": DATA_TOOL, "data/prices.json": '{"A1": 3}\n'}),
            Example(
                {
                    **GOOD,
                    "tools.py": DATA_TOOL.replace(
                        '(Path(__file__).parent / "data" / "prices.json").read_text()',
                        'open(Path(__file__).parent / "data" / "prices.json", "rb").read()',
                    )
                    + '\nwith open("/tmp/prices.log", "a") as log:\n    log.write("loaded")\n',
                    "data/prices.json": '{"A1": 3}\n',
                }
            ),
        ),
        invalid=(
            Example(
                {
                    **GOOD,
                    "tools.py": DATA_TOOL.replace(
                        ".read_text())", ".read_text())\nCOPY = Path(__file__).parent / 'copy.json'"
                    )
                    + "\nCOPY.write_text('{}')\n",
                    "data/prices.json": '{"A1": 3}\n',
                },
                ("src/tools.py", 20, 0),
            ),
            Example(
                {
                    **GOOD,
                    "tools.py": "import os\n"
                    + LOOKUP
                    + '\nLOG = open(os.path.join(os.path.dirname(__file__), "log.txt"), "a")\n',
                },
                ("src/tools.py", 16, 6),
            ),
        ),
    ),
    "skill/database-in-bundle": CheckExamples(
        valid=(
            Example(GOOD),
            # Read-only, through a URI the compiler does not follow; or a database outside the bundle.
            Example(
                {
                    **GOOD,
                    "tools.py": "import sqlite3\nfrom pathlib import Path\n"
                    + LOOKUP
                    + "\nDB = Path(__file__).parent / 'data' / 'prices.db'\n\n\ndef prices():\n"
                    + "    with sqlite3.connect(f'file:{DB}?mode=ro', uri=True) as conn:\n        return conn\n\n\n"
                    + "def cache():\n    return sqlite3.connect('/var/cache/prices.db')\n",
                    "data/prices.db": "",
                }
            ),
        ),
        invalid=(
            # Made in the bundle when missing, where the old hint said to add the file.
            Example(
                {
                    **GOOD,
                    "tools.py": "import sqlite3\nfrom pathlib import Path\n"
                    + LOOKUP
                    + "\n\ndef log():\n    return sqlite3.connect(Path(__file__).parent / 'log.sqlite')\n",
                },
                ("src/tools.py", 19, 11),
            ),
        ),
    ),
}
