"""The examples of the checks of one tool's definition: its name, description, execute and settings.

See ``check_examples`` for what an example is.  A leaf, like it.
"""

from __future__ import annotations

from .check_projects import EXECUTE, GOOD, LOOKUP, SETTINGS, CheckExamples, agent, tool_class
from .types import Example

__all__ = ["TOOL_EXAMPLES"]

#: Two strict tools; without the first ``strict = True`` the skill mixes them.
_STRICT_PAIR = (
    LOOKUP.replace('    name = "lookup"\n', '    name = "lookup"\n    strict = True\n')
    + "\n\nclass Other(Lookup):\n"
    + '    name = "other"\n'
    + "    strict = True\n"
)


#: A client-side tool in each form, with nothing to run.
#: A @tool function whose needs_approval function reads ``input.{read}``.
_APPROVED = (
    "from skillc import tool\n\n\ndef approve(input, ctx):\n    return input.{read} == 'A1'\n\n\n"
    '@tool(needs_approval=approve)\ndef lookup(order_id: str) -> str:\n    """Look up an order."""\n    return order_id\n'
)


#: ``Lookup`` whose output model is ``Found``; its ``execute`` is annotated to return ``{returns}``.
_RESULTS = (
    "from typing import ClassVar\n\nfrom pydantic import BaseModel\nfrom skillc import Tool\n\n\n"
    "class LookupInput(BaseModel):\n    order_id: str\n\n\n"
    "class Found(BaseModel):\n    status: str\n    note: str = ''\n    kind: ClassVar[str]\n\n\n"
    "class Shipped(Found):\n    carrier: str = 'ups'\n\n\n"
    "class Similar(BaseModel):\n    status: str\n\n\n"
    "class Other(BaseModel):\n    order_id: str\n\n\n"
    'class Lookup(Tool):\n    name = "lookup"\n    description = "Look up."\n    input_schema = LookupInput\n'
    "    output_schema = Found\n\n    def execute(self, input, ctx) -> {returns}:\n        return Found(status='x')\n"
)


def _lookup(methods: str) -> dict[str, str]:
    """The one-tool project whose class ``Lookup`` has its name, its settings and then ``methods``."""
    return {"agent.py": agent("Lookup()"), "tools.py": tool_class('    name = "lookup"\n' + SETTINGS + methods)}


_CLIENT_CLASS = tool_class('    name = "lookup"\n' + SETTINGS + "    client = True\n")
_CLIENT_FUNCTION = (
    "from skillc import tool\n\n@tool(client=True)\ndef lookup(order_id: str) -> str:\n"
    '    """Look up an order."""\n    ...\n'
)
_CLIENT_OBJECT = (
    "from pydantic import BaseModel\nfrom skillc import Tool\n\nclass LookupInput(BaseModel):\n    order_id: str\n\n"
    'lookup = Tool(name="lookup", description="d", input_schema=LookupInput, client=True{})\n'
)
_FUNCTION_AGENT = agent("lookup", "from tools import lookup")


def _input_reads(body: str, keywords: str = "") -> str:
    """A tool class whose input model derives from a project model; ``body`` is its ``execute``'s."""
    return (
        "from pydantic import BaseModel\n"
        "from skillc import Tool\n"
        "\n"
        "class Order(BaseModel):\n"
        "    order_id: str\n"
        "\n"
        f"class LookupInput(Order{', ' + keywords if keywords else ''}):\n"
        "    express: bool = False\n"
        "\n"
        "    @property\n"
        "    def label(self) -> str:\n"
        "        return self.order_id.upper()\n"
        "\n"
        "class Lookup(Tool):\n"
        '    name = "lookup"\n' + SETTINGS + "    def execute(self, input, ctx):\n" + body
    )


#: An execute that reads only what its input and its context have.
_READS_KNOWN = "        return input.order_id, input.express, input.label, input.model_dump(), ctx.user, ctx.env\n"


def _decorated(decorators: str, *, wraps: bool) -> str:
    """A ``@tool`` function ``lookup`` under ``decorators``, beside the project decorators they may name:
    ``timed`` (a wrapper, with ``@functools.wraps`` when ``wraps``), ``retry(times)`` (a factory of
    the same), ``register`` (returns what it is given) and ``forget`` (returns nothing)."""
    wrapped = "    @functools.wraps(fn)\n" if wraps else ""
    return (
        "import functools\n\nfrom skillc import tool\n\nREGISTRY = []\n\n\n"
        f"def timed(fn):\n{wrapped}    def wrapper(*args, **kwargs):\n        return fn(*args, **kwargs)\n\n"
        "    return wrapper\n\n\n"
        f"def retry(times):\n    def decorate(fn):\n{wrapped.replace('    @', '        @')}"
        "        def wrapper(*args, **kwargs):\n            return fn(*args, **kwargs)\n\n"
        "        return wrapper\n\n    return decorate\n\n\n"
        "def register(fn):\n    REGISTRY.append(fn)\n    return fn\n\n\n"
        "def forget(fn):\n    REGISTRY.append(fn)\n\n\n"
        f'{decorators}def lookup(order_id: str) -> str:\n    """Look up an order."""\n    return order_id\n'
    )


#: A ``@tool`` function annotated to return ``Profile``, a class with ``decorator`` (or none).
_RETURNS = (
    "from dataclasses import dataclass\n\nfrom skillc import tool\n\n\n{decorator}class Profile:\n"
    "    name: str = 'Ann'\n\n\n@tool\ndef lookup(order_id: str) -> Profile:\n"
    '    """Look up an order."""\n    return Profile()\n'
)


def _lookup_returning_profile() -> str:
    """``Lookup`` whose ``execute`` is annotated to return a plain ``Profile``."""
    source = tool_class('    name = "lookup"\n' + SETTINGS + EXECUTE)
    return "class Profile:\n    pass\n\n" + source.replace(
        "def execute(self, input, ctx):", "def execute(self, input, ctx) -> Profile:"
    )


def _mixed_in(methods: str) -> str:
    """``Lookup`` deriving from a class from outside the project as well as from ``Tool``, then ``methods``."""
    source = tool_class('    name = "lookup"\n' + SETTINGS + methods)
    return "from abc import ABC\n" + source.replace("class Lookup(Tool):", "class Lookup(ABC, Tool):")


TOOL_EXAMPLES: dict[str, CheckExamples] = {
    "skill/client-tool-execute": CheckExamples(
        valid=(
            Example({"agent.py": agent("Lookup()"), "tools.py": _CLIENT_CLASS}),
            Example({"agent.py": _FUNCTION_AGENT, "tools.py": _CLIENT_FUNCTION}),
            Example({"agent.py": _FUNCTION_AGENT, "tools.py": _CLIENT_OBJECT.format("")}),
        ),
        invalid=(
            Example({"agent.py": agent("Lookup()"), "tools.py": _CLIENT_CLASS + EXECUTE}, ("src/tools.py", 12, 4)),
            Example(
                {
                    "agent.py": _FUNCTION_AGENT,
                    "tools.py": _CLIENT_FUNCTION.replace("    ...\n", "    return order_id\n"),
                },
                ("src/tools.py", 6, 4),
            ),
            Example(
                {"agent.py": _FUNCTION_AGENT, "tools.py": _CLIENT_OBJECT.format(", execute=print")},
                ("src/tools.py", 7, 93),
            ),
        ),
    ),
    "skill/client-tool-condition": CheckExamples(
        valid=(Example({"agent.py": agent("Lookup()"), "tools.py": _CLIENT_CLASS}),),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": _CLIENT_CLASS + "    def condition(self):\n        return True\n",
                },
                ("src/tools.py", 12, 4),
            ),
            Example(
                {"agent.py": _FUNCTION_AGENT, "tools.py": _CLIENT_OBJECT.format(", condition=lambda: True")},
                ("src/tools.py", 7, 95),
            ),
        ),
    ),
    "skill/missing-name": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {"agent.py": agent("Lookup()"), "tools.py": tool_class(SETTINGS + EXECUTE)}, ("src/tools.py", 7, 0)
            ),
        ),
    ),
    "skill/missing-execute": CheckExamples(
        valid=(
            Example(GOOD),
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": _mixed_in("\n    def execute(self, input, ctx):\n        return input.order_id\n"),
                }
            ),
        ),
        invalid=(
            Example(
                {"agent.py": agent("Lookup()"), "tools.py": tool_class('    name = "lookup"\n' + SETTINGS)},
                ("src/tools.py", 7, 0),
            ),
            # A base from outside the project may define execute, but the compiler does not read its code.
            Example({"agent.py": agent("Lookup()"), "tools.py": _mixed_in("")}, ("src/tools.py", 8, 0)),
            Example(
                {
                    "agent.py": agent("lookup", "from tools import lookup"),
                    "tools.py": 'from skillc import Tool\nlookup = Tool(name="lookup", description="d")\n',
                },
                ("src/tools.py", 2, 9),
            ),
        ),
    ),
    "skill/generator-function": CheckExamples(
        valid=(
            Example(GOOD),
            Example(
                _lookup(
                    "    def execute(self, input, ctx):\n"
                    + "        def parts():\n"
                    + "            yield 'yield is a word here'\n"
                    + "        return list(parts())\n"
                )
            ),
        ),
        invalid=(
            Example(
                _lookup(
                    "    async def execute(self, input, ctx):\n"
                    + "        for number in range(3):\n"
                    + "            yield number\n"
                ),
                ("src/tools.py", 13, 12),
            ),
            Example(
                {
                    "agent.py": agent("lookup", "from tools import lookup"),
                    "tools.py": (
                        "from skillc import tool\n"
                        "\n"
                        "@tool\n"
                        "def lookup(order_id: str):\n"
                        '    """Look up an order."""\n'
                        "    yield from order_id\n"
                    ),
                },
                ("src/tools.py", 6, 4),
            ),
            Example(
                _lookup(EXECUTE + "    def condition(self):\n        yield True\n"),
                ("src/tools.py", 14, 8),
            ),
        ),
    ),
    "skill/result-type": CheckExamples(
        valid=(
            Example(GOOD),
            # The output model itself, a subclass, a model with every field it requires, or no annotation.
            Example({"agent.py": agent("Lookup()"), "tools.py": _RESULTS.format(returns="Found")}),
            Example({"agent.py": agent("Lookup()"), "tools.py": _RESULTS.format(returns="Shipped")}),
            Example({"agent.py": agent("Lookup()"), "tools.py": _RESULTS.format(returns="Similar | None")}),
        ),
        invalid=(
            Example(
                {"agent.py": agent("Lookup()"), "tools.py": _RESULTS.format(returns="Other")}, ("src/tools.py", 35, 37)
            ),
        ),
    ),
    "skill/input-type": CheckExamples(
        valid=(
            Example(GOOD),
            Example(_lookup("    def execute(self, input: LookupInput, ctx):\n        return 1\n")),
            Example(_lookup("    def execute(self, input: LookupInput | None, ctx):\n        return 1\n")),
            Example(_lookup("    def execute(self, input: BaseModel, ctx):\n        return 1\n")),
            Example(_lookup("    def execute(self, input: object, ctx):\n        return 1\n")),
            Example(_lookup('    def execute(self, input: "str", ctx):\n        return 1\n')),
        ),
        invalid=(
            # LangChain's _run(self, order_id: str) takes the fields one by one.
            Example(
                _lookup("    def execute(self, order_id: str, ctx):\n        return 1\n"), ("src/tools.py", 11, 22)
            ),
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": tool_class(
                        '    name = "lookup"\n'
                        + SETTINGS
                        + "    def execute(self, text: Optional[str], ctx):\n        return 1\n",
                        header="from typing import Optional\n",
                    ),
                },
                ("src/tools.py", 12, 22),
            ),
            Example(_lookup("    def execute(self, input: dict, ctx):\n        return 1\n"), ("src/tools.py", 11, 22)),
            Example(
                _lookup(EXECUTE + "    def needs_approval(self, input: Lookup, ctx):\n        return True\n"),
                ("src/tools.py", 13, 29),
            ),
        ),
    ),
    "skill/call-signature": CheckExamples(
        valid=(
            Example(GOOD),
            Example(_lookup("    @staticmethod\n    def execute(input, ctx):\n        return 1\n")),
            Example(
                _lookup(
                    "    def execute(self, input, ctx, limit=5, *, page=1):\n        return 1\n"
                    + "    def condition(self, strict=False):\n        return True\n"
                )
            ),
            Example(_lookup("    def execute(self, *args):\n        return 1\n")),
        ),
        invalid=(
            Example(
                {
                    "agent.py": (
                        "from skillc import Agent, Skill\n"
                        "from tools import Lookup\n"
                        "def ready(ctx):\n"
                        "    return True\n"
                        'orders = Skill(name="orders", description="Orders.", tools=[Lookup()], condition=ready)\n'
                        'agent = Agent(name="shop", persona="Helpful.", skills=[orders])\n'
                    ),
                    "tools.py": LOOKUP,
                },
                ("src/agent.py", 3, 0),
            ),
            Example(
                _lookup("    def execute(self, input):\n        return 1\n"),
                ("src/tools.py", 11, 4),
            ),
            Example(
                _lookup("    def execute(self, input, ctx, limit):\n        return 1\n"),
                ("src/tools.py", 11, 4),
            ),
            Example(
                _lookup(EXECUTE + "    def condition(self, ctx):\n        return True\n"),
                ("src/tools.py", 13, 4),
            ),
            Example(
                {
                    "agent.py": agent("lookup", "from tools import lookup"),
                    "tools.py": (
                        "from pydantic import BaseModel\n"
                        "from skillc import Tool\n"
                        "\n"
                        "class LookupInput(BaseModel):\n"
                        "    order_id: str\n"
                        "\n"
                        "def run(input):\n"
                        "    return input.order_id\n"
                        "\n"
                        'lookup = Tool(name="lookup", description="d", input_schema=LookupInput, execute=run)\n'
                    ),
                },
                ("src/tools.py", 7, 0),
            ),
            Example(
                {
                    "agent.py": agent("lookup", "from tools import lookup"),
                    "tools.py": (
                        "from skillc import tool\n"
                        "\n"
                        "def ask(order_id, ctx, reason):\n"
                        "    return True\n"
                        "\n"
                        "@tool(needs_approval=ask)\n"
                        "def lookup(order_id: str) -> str:\n"
                        '    """Look up an order."""\n'
                        "    return order_id\n"
                    ),
                },
                ("src/tools.py", 3, 0),
            ),
        ),
    ),
    "skill/invalid-tool-name": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": tool_class('    name = "../lookup"\n' + SETTINGS + EXECUTE),
                },
                ("src/tools.py", 8, 11),
            ),
        ),
    ),
    "skill/dynamic-value": CheckExamples(
        valid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": 'NAME = "lookup"\n'
                    + tool_class("    name = NAME\n" + SETTINGS + EXECUTE).replace('NAME = "lookup"\n', ""),
                }
            ),
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": tool_class("    name = NAME\n" + SETTINGS + EXECUTE, header='NAME = "lookup"\n'),
                }
            ),
            Example(
                _lookup(
                    "    def __init__(self, limit=10):\n"
                    + "        self.limit = limit\n"
                    + "        def helper(self):\n"
                    + "            self.timeout = 5\n"
                    + EXECUTE
                )
            ),
        ),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": tool_class('    name = "look" + "up"\n' + SETTINGS + EXECUTE),
                },
                ("src/tools.py", 8, 11),
            ),
            Example(
                _lookup(
                    "    def __init__(self, slow=False):\n"
                    + "        self.limit, self.timeout = 10, 60 if slow else 5\n"
                    + EXECUTE
                ),
                ("src/tools.py", 12, 20),
            ),
        ),
    ),
    "skill/invalid-setting": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": tool_class('    name = "lookup"\n    timeout = -1\n' + SETTINGS + EXECUTE),
                },
                ("src/tools.py", 9, 14),
            ),
        ),
    ),
    "skill/unknown-setting": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": agent("ping", "from tools import ping"),
                    "tools.py": 'from skillc import tool\n\n@tool(cache=True)\ndef ping(text: str) -> str:\n    """Echo."""\n    return text\n',
                },
                ("src/tools.py", 3, 12),
            ),
        ),
    ),
    "skill/tool-is-model": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": tool_class('    name = "lookup"\n' + SETTINGS + EXECUTE, bases="Tool, BaseModel"),
                },
                ("src/tools.py", 7, 0),
            ),
        ),
    ),
    "skill/misspelled-setting": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": tool_class('    name = "lookup"\n    timout = 5\n' + SETTINGS + EXECUTE),
                },
                ("src/tools.py", 9, 4),
            ),
        ),
    ),
    "skill/unknown-attribute": CheckExamples(
        valid=(
            Example(GOOD),
            # A @tool function's approval function reads the fields of its input, and pydantic's members.
            Example(
                {"agent.py": agent("lookup", "from tools import lookup"), "tools.py": _APPROVED.format(read="order_id")}
            ),
            Example(
                {
                    "agent.py": agent("lookup", "from tools import lookup"),
                    "tools.py": _APPROVED.format(read="model_dump()"),
                }
            ),
            # A field of a base model, a property, a method, pydantic's own; extra fields allowed;
            # code that asks first (hasattr) or catches the AttributeError.
            Example({"agent.py": agent("Lookup()"), "tools.py": _input_reads(_READS_KNOWN)}),
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": _input_reads("        return input.note\n", 'extra="allow"'),
                }
            ),
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": _input_reads("        return input.note if hasattr(input, 'note') else None\n"),
                }
            ),
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": _input_reads(
                        "        try:\n            return input.note\n        except AttributeError:\n            return None\n"
                    ),
                }
            ),
        ),
        invalid=(
            Example(
                {
                    "agent.py": agent("lookup", "from tools import lookup"),
                    "tools.py": _APPROVED.format(read="get('order_id')"),
                },
                ("src/tools.py", 5, 11),
            ),
            # A misspelt field, and one the model does not have at all.
            Example(
                {"agent.py": agent("Lookup()"), "tools.py": _input_reads("        return input.ordr_id\n")},
                ("src/tools.py", 19, 15),
            ),
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": _input_reads("        return input.order_id, input.note\n"),
                },
                ("src/tools.py", 19, 31),
            ),
            # The context: a misspelt attribute of ToolContext.
            Example(
                {"agent.py": agent("Lookup()"), "tools.py": _input_reads("        return ctx.usr\n")},
                ("src/tools.py", 19, 15),
            ),
            # The tool itself: a misspelt setting read through self.
            Example(
                {"agent.py": agent("Lookup()"), "tools.py": _input_reads("        return self.nmae\n")},
                ("src/tools.py", 19, 15),
            ),
            # The data store: a collection has no insert_one (its create is meant).
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": _input_reads(
                        "        notes = ctx.data['notes']\n        return notes.insert_one({'order_id': input.order_id})\n"
                    ),
                },
                ("src/tools.py", 20, 15),
            ),
        ),
    ),
    "skill/unserializable-result": CheckExamples(
        valid=(
            Example(GOOD),
            # A dataclass (or a model) is sent as JSON; so is a dataclass deriving from a plain base.
            Example({"agent.py": _FUNCTION_AGENT, "tools.py": _RETURNS.format(decorator="@dataclass\n")}),
            Example(
                {
                    "agent.py": _FUNCTION_AGENT,
                    "tools.py": _RETURNS.format(decorator="") + "\n@dataclass\nclass Found(Profile):\n    pass\n",
                }
            ),
        ),
        invalid=(
            Example({"agent.py": _FUNCTION_AGENT, "tools.py": _RETURNS.format(decorator="")}, ("src/tools.py", 11, 29)),
            Example(
                {"agent.py": agent("Lookup()"), "tools.py": _lookup_returning_profile()},
                ("src/tools.py", 14, 37),
            ),
            # Inside the annotation: a call that returns one fails.
            Example(
                {
                    "agent.py": _FUNCTION_AGENT,
                    "tools.py": _RETURNS.format(decorator="").replace("-> Profile:", "-> list[Profile] | None:"),
                },
                ("src/tools.py", 11, 34),
            ),
        ),
    ),
    "skill/replacing-decorator": CheckExamples(
        valid=(
            Example(GOOD),
            # A wrapper with @functools.wraps presents the function's signature; a registry keeps it.
            Example({"agent.py": _FUNCTION_AGENT, "tools.py": _decorated("@tool\n@timed\n", wraps=True)}),
            Example({"agent.py": _FUNCTION_AGENT, "tools.py": _decorated("@register\n@tool\n", wraps=False)}),
            Example({"agent.py": _FUNCTION_AGENT, "tools.py": _decorated("@tool\n@retry(3)\n", wraps=True)}),
        ),
        invalid=(
            Example(
                {"agent.py": _FUNCTION_AGENT, "tools.py": _decorated("@tool\n@timed\n", wraps=False)},
                ("src/tools.py", 35, 1),
            ),
            Example(
                {"agent.py": _FUNCTION_AGENT, "tools.py": _decorated("@timed\n@tool\n", wraps=True)},
                ("src/tools.py", 36, 1),
            ),
            Example(
                {"agent.py": _FUNCTION_AGENT, "tools.py": _decorated("@tool\n@retry(3)\n", wraps=False)},
                ("src/tools.py", 35, 1),
            ),
            Example(
                {"agent.py": _FUNCTION_AGENT, "tools.py": _decorated("@tool\n@forget\n", wraps=True)},
                ("src/tools.py", 37, 1),
            ),
        ),
    ),
    "skill/foreign-setting": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": tool_class('    name = "lookup"\n' + SETTINGS + EXECUTE).replace(
                        "    input_schema = LookupInput", "    args_schema = LookupInput"
                    ),
                },
                ("src/tools.py", 10, 4),
            ),
        ),
    ),
    "skill/reserved-tool-name": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {"agent.py": agent("Lookup()"), "tools.py": tool_class('    name = "nul"\n' + SETTINGS + EXECUTE)},
                ("src/tools.py", 8, 11),
            ),
        ),
    ),
    "skill/tool-name-style": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {"agent.py": agent("Lookup()"), "tools.py": tool_class('    name = "LookUp"\n' + SETTINGS + EXECUTE)},
                ("src/tools.py", 8, 11),
            ),
        ),
    ),
    "skill/host-tool-name": CheckExamples(
        valid=(
            Example(GOOD),
            # "mcp__shop__" and 53 characters: 64, as long as a model API takes.
            Example({"agent.py": agent("Lookup()"), "tools.py": LOOKUP.replace('"lookup"', '"' + "l" * 53 + '"')}),
        ),
        invalid=(
            Example(
                {"agent.py": agent("Lookup()"), "tools.py": LOOKUP.replace('"lookup"', '"' + "l" * 54 + '"')},
                ("src/tools.py", 8, 11),
            ),
        ),
    ),
    "skill/mixed-strict": CheckExamples(
        valid=(
            Example(GOOD),
            Example(
                {"agent.py": agent("Lookup(), Other()", "from tools import Lookup, Other"), "tools.py": _STRICT_PAIR}
            ),
        ),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup(), Other()", "from tools import Lookup, Other"),
                    "tools.py": _STRICT_PAIR.replace("    strict = True\n", "", 1),
                },
                ("src/tools.py", 18, 13),
            ),
        ),
    ),
    "skill/missing-input-schema": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": tool_class('    name = "lookup"\n    description = "Look up."\n' + EXECUTE),
                },
                ("src/tools.py", 7, 0),
            ),
        ),
    ),
    "skill/constructor-args-dropped": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {"agent.py": agent("Lookup(open_db())", extra="open_db = print\n"), "tools.py": LOOKUP},
                ("src/agent.py", 4, 67),
            ),
        ),
    ),
    "skill/constructor-args-invalid": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(Example({"agent.py": agent('Lookup("db")'), "tools.py": LOOKUP}, ("src/agent.py", 3, 60)),),
    ),
    "skill/init-requires-arguments": CheckExamples(
        valid=(Example(_lookup(EXECUTE + "    def __init__(self, db=None):\n        self.db = db\n")),),
        invalid=(
            Example(
                _lookup(EXECUTE + "    def __init__(self, db):\n        self.db = db\n"),
                ("src/tools.py", 13, 4),
            ),
        ),
    ),
    "skill/missing-description": CheckExamples(
        valid=(Example(GOOD),),
        invalid=(
            Example(
                {
                    "agent.py": agent("Lookup()"),
                    "tools.py": tool_class('    name = "lookup"\n    input_schema = LookupInput\n' + EXECUTE),
                },
                ("src/tools.py", 7, 0),
            ),
        ),
    ),
}
