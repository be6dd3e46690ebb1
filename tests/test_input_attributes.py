"""An execute that reads an attribute its input (where the model is known whole) or its context does not have fails the compile."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest
from helpers import SKILL, run_command, write_project
from pydantic import BaseModel, RootModel
from skillc import Tool
from skillc.compiler.api import compile_project
from skillc.compiler.check_projects import AGENT_MODULE, LOOKUP
from skillc.compiler.index_function_bodies import read_function_bodies
from skillc.compiler.index_types import ParameterRead
from skillc.compiler.schema_types import BASE_MODEL_MEMBERS
from skillc.compiler.types import Diagnostic, Pos
from skillc.contracts.spec import TOOL_CONTEXT_MEMBERS, TOOL_MEMBERS
from skillc.runtime.context import ToolContext

HEAD = "from pydantic import BaseModel\nfrom skillc import Tool\n\n"
#: The tool class of the checks' own examples, its execute's body left to each test.
TOOL = LOOKUP[LOOKUP.index("class Lookup(Tool):") :].replace("        return input.order_id\n", "{body}")


def _compile(root: Path, models: str, body: str, extra: dict[str, str] | None = None) -> list[Diagnostic]:
    write_project(
        root, {"tools.py": HEAD + models + "\n" + TOOL.format(body=body), "agent.py": AGENT_MODULE, **(extra or {})}
    )
    report = compile_project(root, use_cache=False)
    return [item for item in report.diagnostics if item.code == "skill/unknown-attribute"]


MODEL = "class LookupInput(BaseModel):\n    order_id: str\n    express: bool = False\n"


def test_a_misspelt_field_is_reported_at_the_read_with_the_field_it_resembles(tmp_path: Path) -> None:
    [found] = _compile(tmp_path, MODEL, "        return input.ordr_id\n")
    assert (found.path, found.line, found.col) == ("src/tools.py", 14, 15)
    assert found.message == (
        "Lookup.execute() reads input.ordr_id, but its input model LookupInput has no field or attribute ordr_id: "
        "every call that gets there raises AttributeError"
    )
    assert found.hint == "did you mean input.order_id?"


def test_a_name_like_no_field_gets_the_fields_listed(tmp_path: Path) -> None:
    [found] = _compile(tmp_path, MODEL, "        return input.customer\n")
    assert found.hint == "the fields of LookupInput are: order_id, express"


def test_each_attribute_is_reported_once_at_its_first_read(tmp_path: Path) -> None:
    found = _compile(
        tmp_path, MODEL, "        if input.note:\n            return input.note, input.tag\n        return None\n"
    )
    assert [(item.line, item.message.split(",")[0]) for item in found] == [
        (14, "Lookup.execute() reads input.note"),
        (15, "Lookup.execute() reads input.tag"),
    ]


@pytest.mark.parametrize(
    ("models", "body"),
    [
        # A base from outside the project may add anything; so may a __getattr__ or extra fields.
        pytest.param(
            "from pydantic_settings import BaseSettings\n\nclass LookupInput(BaseSettings):\n    order_id: str\n",
            "        return input.anything\n",
            id="external-base",
        ),
        pytest.param(
            MODEL + "\n    def __getattr__(self, name):\n        return name\n",
            "        return input.anything\n",
            id="getattr",
        ),
        pytest.param(
            "from pydantic import ConfigDict\n\nclass LookupInput(BaseModel):\n"
            "    model_config = ConfigDict(extra='allow')\n    order_id: str\n",
            "        return input.anything\n",
            id="extra-allow",
        ),
        pytest.param(
            "SETTINGS = {'extra': 'allow'}\n\nclass LookupInput(BaseModel):\n    model_config = SETTINGS\n    order_id: str\n",
            "        return input.anything\n",
            id="config-not-literal",
        ),
        pytest.param(
            "import sys\n\nclass LookupInput(BaseModel):\n    order_id: str\n"
            "    if sys.version_info >= (3, 12):\n        note: str = ''\n",
            "        return input.note\n",
            id="class-body-not-read",
        ),
        # The execute rebinds its input, or asks about it, or sets the attribute first.
        pytest.param(MODEL, "        input = ctx\n        return input.anything\n", id="rebound"),
        pytest.param(MODEL, "        return getattr(input, 'note', None) or input.note\n", id="asked"),
        pytest.param(MODEL, "        input.note = 1\n        return input.note\n", id="set"),
        # pydantic's own members, and what methods assign on self.
        pytest.param(
            MODEL + "\n    def model_post_init(self, context):\n        self._seen = True\n",
            "        return input.model_dump_json(), input.model_fields_set, input._seen\n",
            id="pydantic-and-self",
        ),
    ],
)
def test_nothing_is_reported_where_the_model_may_have_more_or_the_code_may_cope(
    tmp_path: Path, models: str, body: str
) -> None:
    assert _compile(tmp_path, models, body) == []


def test_a_shared_execute_is_checked_against_each_tool_s_own_model(tmp_path: Path) -> None:
    tools = (
        HEAD + "class BaseInput(BaseModel):\n    order_id: str\n\n"
        "class ExpressInput(BaseInput):\n    express: bool = False\n\n"
        "class Shared(Tool):\n"
        '    description = "Look up an order."\n\n'
        "    def execute(self, input, ctx):\n"
        "        return input.express\n\n"
        'class Fast(Shared):\n    name = "fast"\n    input_schema = ExpressInput\n\n'
        'class Plain(Shared):\n    name = "plain"\n    input_schema = BaseInput\n'
    )
    agent = (
        "from skillc import Agent, Skill\nfrom tools import Fast, Plain\n\n"
        'agent = Agent(name="shop", skills=[Skill(name="orders", description="Orders.", tools=[Fast(), Plain()])])\n'
    )
    write_project(tmp_path, {"tools.py": tools, "agent.py": agent})
    found = [
        item
        for item in compile_project(tmp_path, use_cache=False).diagnostics
        if item.code == "skill/unknown-attribute"
    ]
    assert [(item.line, item.message) for item in found] == [
        (
            14,
            "Shared.execute() reads input.express, but its input model BaseInput has no field or attribute express: "
            "every call that gets there raises AttributeError",
        )
    ]


def test_the_index_keeps_the_first_read_of_each_parameter_attribute_outside_guards() -> None:
    source = (
        "def execute(self, input, ctx):\n"
        "    a = input.x + input.x\n"
        "    try:\n"
        "        b = input.y\n"
        "    except AttributeError:\n"
        "        b = None\n"
        "    def inner():\n"
        "        return input.z\n"
        "    return ctx.user, input.__class__, self.name, a, b, inner\n"
    )
    reads = read_function_bodies(ast.parse(source), source.encode(), lambda node: Pos(node.lineno, node.col_offset))
    assert reads.parameter_reads == (
        ParameterRead("execute", "input", "x", Pos(2, 8)),
        ParameterRead("execute", "ctx", "user", Pos(9, 11)),
        ParameterRead("execute", "self", "name", Pos(9, 38)),
    )


def test_every_public_member_of_pydantic_s_models_is_known() -> None:
    for model in (BaseModel, RootModel):
        public = {name for name in dir(model) if not name.startswith("_")}
        assert public <= BASE_MODEL_MEMBERS | {"root"}, public - BASE_MODEL_MEMBERS


def test_skill_compile_refuses_the_project_and_writes_no_dist(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        {
            "tools.py": HEAD + MODEL + "\n" + TOOL.format(body="        return input.ordr_id\n"),
            "agent.py": AGENT_MODULE,
        },
    )
    finished = run_command([str(SKILL), "compile", str(tmp_path)], cwd=tmp_path)
    assert finished.code == 1
    assert "src/tools.py:14:16: error[skill/unknown-attribute] Lookup.execute() reads input.ordr_id" in finished.stdout
    assert "hint: did you mean input.order_id?" in finished.stdout
    assert not (tmp_path / "dist").exists()


def test_the_context_s_members_are_those_of_the_tool_context_class() -> None:
    public = {name for name in dir(ToolContext) if not name.startswith("_")}
    assert {field.name for field in dataclasses.fields(ToolContext)} | public == TOOL_CONTEXT_MEMBERS


def test_a_misspelt_context_attribute_is_reported_in_a_class_and_in_a_function(tmp_path: Path) -> None:
    [found] = _compile(tmp_path, MODEL, "        ctx.logger.info('x')\n        return ctx.env['A'], ctx.usr\n")
    assert (found.line, found.col) == (15, 29)
    assert found.message == (
        "Lookup.execute() reads ctx.usr, but the ToolContext a tool is called with has no attribute usr: "
        "every call that gets there raises AttributeError"
    )
    assert found.hint == "did you mean ctx.user?"
    function = (
        "from skillc import ToolContext, tool\n\n"
        "@tool\n"
        "def lookup(order_id: str, context: ToolContext, note: str = '') -> str:\n"
        '    """Look up an order."""\n'
        "    return context.sesion, note.upper()\n"
    )
    agent = AGENT_MODULE.replace("from tools import Lookup", "from tools import lookup").replace("Lookup()", "lookup")
    write_project(tmp_path, {"tools.py": function, "agent.py": agent})
    found_there = [
        item
        for item in compile_project(tmp_path, use_cache=False).diagnostics
        if item.code == "skill/unknown-attribute"
    ]
    assert [(item.line, item.message.split(",")[0], item.hint) for item in found_there] == [
        (6, "lookup() reads context.sesion", "did you mean context.session?")
    ]


def test_needs_approval_is_checked_as_execute_is(tmp_path: Path) -> None:
    body = "        return input.order_id\n\n    def needs_approval(self, input, ctx):\n        return input.expres or ctx.usr\n"
    found = _compile(tmp_path, MODEL, body)
    assert [(item.line, item.message.split(",")[0], item.hint) for item in found] == [
        (17, "Lookup.needs_approval() reads input.expres", "did you mean input.express?"),
        (17, "Lookup.needs_approval() reads ctx.usr", "did you mean ctx.user?"),
    ]


def test_the_tool_s_members_are_those_of_the_tool_class() -> None:
    class Minimal(Tool):
        name = "minimal"

        def execute(self, input: object, ctx: ToolContext) -> object:
            return None

    inherited = {name for name in dir(Tool) if not name.startswith("__")}
    assert inherited | set(Tool.__annotations__) | set(vars(Minimal())) == TOOL_MEMBERS


#: A tool class whose class body and ``execute`` body each test gives.
SELF_TOOL = """\
from pydantic import BaseModel
from skillc import Tool


class LookupInput(BaseModel):
    order_id: str


class Base(Tool):
    prefix = "order "

    @property
    def label(self):
        return self.prefix.strip()


{decorator}class Lookup(Base{bases}):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput
{members}
    def execute(self, input, ctx):
        return {body}
"""


@pytest.mark.parametrize(
    ("members", "body", "extra", "expected"),
    [
        pytest.param("", "self.nmae", {}, (23, 15, "did you mean self.name?"), id="misspelt-setting"),
        pytest.param("", "self.prefx", {}, (23, 15, "did you mean self.prefix?"), id="misspelt-base-attribute"),
        pytest.param(
            "",
            "self.session",
            {},
            (23, 15, "define session in Lookup, or set self.session in a method"),
            id="never-set",
        ),
        pytest.param(
            "\n    def condition(self):\n        return self.enabled\n",
            "1",
            {},
            (23, 15, "define enabled in Lookup, or set self.enabled in a method"),
            id="condition",
        ),
        # What the class, its bases, skillc.Tool and its methods give an instance.
        pytest.param("", "(self.name, self.prefix, self.label, self.timeout, self.execute)", {}, None, id="known"),
        pytest.param(
            "\n    def __init__(self):\n        self.session = 1\n", "self.session", {}, None, id="set-in-init"
        ),
        # What only running the code would tell.
        pytest.param(
            "\n    def __init__(self, **given):\n        for key, value in given.items():\n"
            "            setattr(self, key, value)\n",
            "self.anything",
            {},
            None,
            id="setattr",
        ),
        pytest.param(
            "\n    def __getattr__(self, name):\n        return name\n", "self.anything", {}, None, id="getattr"
        ),
        pytest.param("", "self.anything", {"bases": ", Mixin", "header": "from mixins import Mixin\n"}, None, id="ext"),
        pytest.param("", "self.anything", {"decorator": "@register\n"}, None, id="class-decorator"),
        # A helper method execute calls: its self is an instance of the tool while no class derives from it.
        pytest.param(
            "\n    host = 'x'\n\n    def base_url(self):\n        return self.hosst\n",
            "self.base_url()",
            {},
            (25, 15, "did you mean self.host?"),
            id="helper-method",
        ),
        pytest.param(
            "\n    host = 'x'\n\n    def base_url(self):\n        return self.hosst\n",
            "self.base_url()",
            {"derived": "\n\nclass Other(Lookup):\n    hosst = 'y'\n"},
            None,
            id="helper-method-of-a-derived-class",
        ),
    ],
)
def test_a_tool_class_reading_an_attribute_of_self_it_lacks_fails_the_compile(
    tmp_path: Path, members: str, body: str, extra: dict[str, str], expected: tuple[int, int, str] | None
) -> None:
    tools = extra.get("header", "") + SELF_TOOL.format(
        decorator=extra.get("decorator", ""), bases=extra.get("bases", ""), members=members, body=body
    )
    tools += extra.get("derived", "")
    if "register" in tools:
        tools = "def register(cls):\n    cls.anything = 1\n    return cls\n\n\n" + tools
    files = {"tools.py": tools, "agent.py": AGENT_MODULE}
    if "mixins" in tools:
        files["mixins.py"] = "import collections\n\n\nclass Mixin(collections.UserDict):\n    pass\n"
    write_project(tmp_path, files)
    report = compile_project(tmp_path, use_cache=False)
    found = [(item.line, item.col, item.hint) for item in report.diagnostics if item.code == "skill/unknown-attribute"]
    assert [item for item in report.diagnostics if item.code != "skill/unknown-attribute"] == []
    assert found == ([] if expected is None else [expected])
