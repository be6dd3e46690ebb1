"""Every check's own examples: valid ones never report it, invalid ones report it where they say."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from helpers import DEFAULT_PYPROJECT, SKILL, run_command, write_project
from skillc.compiler.api import compile_project
from skillc.compiler.cache import CACHE_DIR, REPORT_FILE
from skillc.compiler.check_projects import AGENT_MODULE, LOOKUP
from skillc.compiler.checks import CHECKS, Check, Example
from skillc.compiler.types import Diagnostic

COMPILER = Path(__file__).resolve().parents[1] / "compiler"

CASES = [
    pytest.param(check, kind, example, id=f"{code}-{kind}-{number}")
    for code, check in CHECKS.items()
    for kind, examples in (("valid", check.valid), ("invalid", check.invalid))
    for number, example in enumerate(examples)
]


@pytest.mark.parametrize(("check", "kind", "example"), CASES)
def test_check_examples(tmp_path: Path, check: Check, kind: str, example: Example) -> None:
    write_project(tmp_path, dict(example.files))
    report = compile_project(tmp_path, use_cache=False)
    found = [(item.path, item.line, item.col) for item in report.diagnostics if item.code == check.code]
    if kind == "valid":
        assert report.diagnostics == (), [d.message for d in report.diagnostics]
    else:
        assert example.at in found, (found, [d.message for d in report.diagnostics])
        severities = {item.severity for item in report.diagnostics if item.code == check.code}
        assert severities == {check.severity}


def test_every_code_the_compiler_reports_is_a_documented_check() -> None:
    used = set()
    for source in COMPILER.glob("*.py"):
        used |= set(re.findall(r'"(skill/[a-z-]+)"', source.read_text()))
    assert used <= set(CHECKS), sorted(used - set(CHECKS))


def test_every_error_and_most_warnings_have_an_invalid_example() -> None:
    # Only the codes that no project tree written by a test can trigger go without one:
    # unreadable files and symlinks (loops, outside, dangling) are covered by tests that
    # build such trees (tests/test_index.py, tests/test_symlinks.py), the
    # --verify codes by tests/test_dist.py, the config key by tests/test_config.py, a declared
    # package that is not installed by tests/test_requirements.py (the examples' pyproject.toml
    # declares only what is installed).
    without = {code for code, check in CHECKS.items() if not check.invalid}
    assert without == {
        "skill/bundle-not-self-contained",
        "skill/dependency-not-installed",
        "skill/schema-mismatch",
        "skill/unreadable-file",
        "skill/internal-error",
        "skill/symlink-loop",
        "skill/symlink-outside-project",
        "skill/dangling-symlink",
        "skill/unknown-config-key",
    }


def _diagnostics(root: Path, tools: str, registered: str, pyproject: str | None = None) -> tuple[Diagnostic, ...]:
    """What compiling a one-skill project reports: ``tools.py``, and ``registered`` (imported from it) its tool."""
    name = registered.removesuffix("()")
    agent = (
        f"from skillc import Agent, Skill\nfrom tools import {name}\n\n"
        f'agent = Agent(name="a", skills=[Skill(name="s", tools=[{registered}])])\n'
    )
    write_project(root, {"tools.py": tools, "agent.py": agent})
    if pyproject is not None:
        (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return compile_project(root, use_cache=False).diagnostics


def test_a_tool_whose_execute_could_come_from_outside_the_project_is_told_how_to_show_it(tmp_path: Path) -> None:
    tools = (
        "from pydantic import BaseModel\nfrom skillc import Tool\nfrom toolkit.mixins import EchoMixin\n\n\n"
        "class EchoInput(BaseModel):\n    text: str\n\n\n"
        'class Echo(EchoMixin, Tool):\n    name = "echo"\n    description = "Echo."\n    input_schema = EchoInput\n'
    )
    pyproject = (
        '[project]\nname = "p"\nversion = "0"\ndependencies = ["skillc", "pydantic>=2", "toolkit"]\n\n'
        '[tool.skill]\nentry = "src/agent.py"\n'
    )
    diagnostics = _diagnostics(tmp_path, tools, "Echo()", pyproject)
    [found] = [item for item in diagnostics if item.code == "skill/missing-execute"]
    assert (found.path, found.line, found.col) == ("src/tools.py", 10, 0)
    assert found.message == (
        "Tool must have an execute function: Echo defines none, and the compiler does not read the code of its "
        "base from outside the project (toolkit.mixins.EchoMixin)"
    )
    assert found.hint == (
        "define `def execute(self, input, ctx)` in the class; it may call the base's: "
        "`return super().execute(input, ctx)`"
    )


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="pydantic takes typing.TypedDict from Python 3.12 on")
def test_a_typing_typeddict_is_told_to_come_from_typing_extensions(tmp_path: Path) -> None:
    tools = (
        "from typing import TypedDict\nfrom skillc import tool\n\n\nclass Address(TypedDict):\n    city: str\n\n\n"
        '@tool\ndef ship(to: Address) -> str:\n    """Ship."""\n    return to["city"]\n'
    )
    [found] = _diagnostics(tmp_path, tools, "ship")
    assert (found.code, found.path, found.line, found.col) == ("skill/schema-unsupported", "src/tools.py", 5, 0)
    assert found.hint == "import TypedDict from typing_extensions (`from typing_extensions import TypedDict`)"


def test_a_tool_class_with_another_framework_s_execute_is_told_its_name(tmp_path: Path) -> None:
    tools = (
        "from pydantic import BaseModel\nfrom skillc import Tool\n\n\nclass AnswerInput(BaseModel):\n    answer: str\n\n\n"
        'class FinalAnswer(Tool):\n    name = "final_answer"\n    description = "Answer."\n'
        "    input_schema = AnswerInput\n\n    def forward(self, answer: str) -> str:\n        return answer\n"
    )
    [found] = _diagnostics(tmp_path, tools, "FinalAnswer()")
    assert (found.code, found.line, found.col) == ("skill/missing-execute", 9, 0)
    assert found.hint == "forward is what smolagents calls it: rename it to `execute(self, input, ctx)`"


#: A timer whose wrapper does not present the function's signature, as decorators are often first written.
_BARE_TIMER = (
    "import time\n\nfrom skillc import tool\n\n\ndef timed(fn):\n    def wrapper(*args, **kwargs):\n"
    "        started = time.perf_counter()\n        try:\n            return fn(*args, **kwargs)\n"
    '        finally:\n            print(f"{fn.__name__}: {time.perf_counter() - started:.3f}s")\n\n'
    "    return wrapper\n\n\n"
)


def test_a_decorator_that_replaces_a_tool_function_is_told_what_the_runtime_would_read(tmp_path: Path) -> None:
    tools = _BARE_TIMER + '@tool\n@timed\ndef ship(city: str) -> str:\n    """Ship."""\n    return city\n'
    [found] = _diagnostics(tmp_path, tools, "ship")
    assert (found.code, found.path, found.line, found.col) == ("skill/replacing-decorator", "src/tools.py", 18, 1)
    assert found.message == (
        "@timed replaces ship() with wrapper(), a function of its own: @tool reads the parameters, name and "
        "docstring of wrapper, not those of ship, so the compiled tool is not the one the runtime makes"
    )
    assert found.hint == (
        "decorate wrapper with @functools.wraps(fn), which gives it the signature, name and docstring of the "
        "function timed decorates"
    )


def test_a_decorator_above_tool_is_told_to_go_below_it(tmp_path: Path) -> None:
    tools = _BARE_TIMER + '@timed\n@tool\ndef ship(city: str) -> str:\n    """Ship."""\n    return city\n'
    [found] = _diagnostics(tmp_path, tools, "ship")
    assert (found.code, found.line, found.col) == ("skill/replacing-decorator", 17, 1)
    assert found.message == (
        "@timed is applied to the tool @tool made and returns wrapper, a function of its own: the module binds "
        "wrapper where tool 'ship' should be, and its skill is given a function, not a tool"
    )
    assert (
        found.hint
        == "put @tool on top: decorators apply from the bottom up, so the one on top makes what the module binds"
    )


def test_a_decorator_that_may_present_the_signature_another_way_is_not_reported(tmp_path: Path) -> None:
    patched = _BARE_TIMER.replace(
        "    return wrapper\n", "    functools.update_wrapper(wrapper, fn)\n    return wrapper\n"
    )
    tools = (
        "import functools\n"
        + patched
        + '@tool\n@timed\ndef ship(city: str) -> str:\n    """Ship."""\n    return city\n'
    )
    assert _diagnostics(tmp_path, tools, "ship") == ()


def test_a_path_relative_to_the_working_folder_is_told_the_path_from_its_module(tmp_path: Path) -> None:
    tools = (
        "import json\n\nfrom skillc import tool\n\n"
        'with open("src/data/prices.json") as handle:\n    PRICES = json.load(handle)\n\n\n'
        '@tool\ndef price(product: str) -> float:\n    """The price of a product."""\n    return PRICES[product]\n'
    )
    agent = 'from skillc import Agent, Skill\nfrom tools import price\n\nagent = Agent(name="a", skills=[Skill(name="s", tools=[price])])\n'
    write_project(tmp_path, {"tools.py": tools, "agent.py": agent, "data/prices.json": '{"pear": 4}'})
    [found] = compile_project(tmp_path, use_cache=False).diagnostics
    assert (found.code, found.severity.value, found.path, found.line, found.col) == (
        "skill/working-folder-path",
        "warning",
        "src/tools.py",
        5,
        10,
    )
    assert found.hint == (
        'build it from the module\'s own folder, Path(__file__).parent / "data/prices.json": the file is bundled '
        "with the module"
    )


def test_a_data_file_added_later_is_seen_by_the_next_compile_of_unchanged_sources(tmp_path: Path) -> None:
    tools = (
        "from skillc import tool\n\n"
        'with open("src/data/prices.json") as handle:\n    PRICES = handle.read()\n\n\n'
        '@tool\ndef price(product: str) -> str:\n    """The price of a product."""\n    return PRICES\n'
    )
    agent = 'from skillc import Agent, Skill\nfrom tools import price\n\nagent = Agent(name="a", skills=[Skill(name="s", tools=[price])])\n'
    write_project(tmp_path, {"tools.py": tools, "agent.py": agent})
    assert compile_project(tmp_path).diagnostics == ()  # the path names no file of the project
    (tmp_path / "src/data").mkdir()
    (tmp_path / "src/data/prices.json").write_text("{}", encoding="utf-8")
    assert [item.code for item in compile_project(tmp_path).diagnostics] == ["skill/working-folder-path"]


_SETTINGS_TOOL = (
    "import json\n\nfrom skillc import tool\n\n"
    'with open("settings.json") as handle:\n    SETTINGS = json.load(handle)\n\n\n'
    '@tool\ndef region() -> str:\n    """The region of the shop."""\n    return SETTINGS["region"]\n'
)
_SETTINGS_AGENT = (
    "from skillc import Agent, Skill\nfrom tools.shop import region\n\n"
    'agent = Agent(name="a", skills=[Skill(name="s", tools=[region])])\n'
)


def test_a_file_of_the_projects_folder_outside_src_is_told_to_move_beside_the_module(tmp_path: Path) -> None:
    """``open("settings.json")`` of the file beside ``pyproject.toml`` works only from the project's
    folder, and no bundle holds the file: it is reported where it is opened."""
    write_project(tmp_path, {"tools/__init__.py": "", "tools/shop.py": _SETTINGS_TOOL, "agent.py": _SETTINGS_AGENT})
    (tmp_path / "settings.json").write_text('{"region": "eu"}', encoding="utf-8")
    [found] = compile_project(tmp_path, use_cache=False).diagnostics
    assert (found.code, found.severity.value, found.path, found.line, found.col) == (
        "skill/working-folder-path",
        "warning",
        "src/tools/shop.py",
        5,
        10,
    )
    assert found.message == (
        "'settings.json' is relative to the working folder: it names settings.json only when the process runs in "
        "the project's folder; a compiled tool runs wherever its process started (skill serve under a host, a "
        "deployed bundle), where the path names nothing or another file"
    )
    assert found.hint == (
        "move it beside the module, into src/tools/, and build the path from the module's own folder, "
        'Path(__file__).parent / "settings.json": files under src/ are bundled with the modules that use them'
    )


def test_a_file_outside_src_added_or_removed_later_is_seen_by_the_next_compile(tmp_path: Path) -> None:
    """Neither the last report nor the last link is reused once a file a literal names outside
    ``src`` appears or goes, though no source changed."""
    write_project(tmp_path, {"tools/__init__.py": "", "tools/shop.py": _SETTINGS_TOOL, "agent.py": _SETTINGS_AGENT})
    assert compile_project(tmp_path).diagnostics == ()  # the path names no file yet
    settings = tmp_path / "settings.json"
    settings.write_text('{"region": "eu"}', encoding="utf-8")
    assert [item.code for item in compile_project(tmp_path).diagnostics] == ["skill/working-folder-path"]
    assert [item.code for item in compile_project(tmp_path).diagnostics] == ["skill/working-folder-path"]
    (tmp_path / CACHE_DIR / REPORT_FILE).unlink()  # the link's record alone decides now
    settings.unlink()
    assert compile_project(tmp_path).diagnostics == ()


@pytest.mark.parametrize("literal", ["../settings.json", "missing.json", "/etc/hostname"])
def test_a_path_that_names_no_file_of_the_projects_folder_outside_src_is_not_reported(
    tmp_path: Path, literal: str
) -> None:
    """Above the project, nothing, or an absolute path."""
    write_project(
        tmp_path / "project",
        {
            "tools/__init__.py": "",
            "tools/shop.py": _SETTINGS_TOOL.replace('"settings.json"', repr(literal)),
            "agent.py": _SETTINGS_AGENT,
        },
    )
    (tmp_path / "settings.json").write_text("{}", encoding="utf-8")
    assert compile_project(tmp_path / "project", use_cache=False).diagnostics == ()


_WRITES_AGENT = (
    "from skillc import Agent, Skill\nfrom tools import ping\n\n"
    'agent = Agent(name="a", skills=[Skill(name="s", tools=[ping])])\n'
)


@pytest.mark.parametrize(
    ("code", "shown", "literal"),
    [
        ("import sqlite3\nDB = sqlite3.connect('notes.db')\n", "sqlite3.connect(...)", "notes.db"),
        ("from sqlite3 import connect\nDB = connect('data/notes.db')\n", "connect(...)", "data/notes.db"),
        ("LOG = open('out.log', 'a')\n", "open(...)", "out.log"),
        ("import io\nLOG = io.open('out.log', mode='w')\n", "io.open(...)", "out.log"),
        ("import logging\nHANDLER = logging.FileHandler('agent.log')\n", "logging.FileHandler(...)", "agent.log"),
        (
            "import logging.handlers\nH = logging.handlers.RotatingFileHandler('agent.log')\n",
            "logging.handlers.RotatingFileHandler(...)",
            "agent.log",
        ),
        (
            "from pathlib import Path\nPath('cache/x.json').write_text('{}')\n",
            "Path(...).write_text(...)",
            "cache/x.json",
        ),
        ("from pathlib import Path\nF = Path('out.txt').open('a')\n", "Path(...).open(...)", "out.txt"),
        ("import os\nos.makedirs('cache/pages', exist_ok=True)\n", "os.makedirs(...)", "cache/pages"),
        # A module-level name bound once to the path (arnuuv/MCP-server's sticky notes, persistent-note-mcp).
        (
            'NOTES_FILE = "notes.txt"\n\n\ndef add_note(note):\n    with open(NOTES_FILE, "a") as f:\n'
            '        f.write(note + "\\n")\n',
            "open(...)",
            "notes.txt",
        ),
        (
            'import aiosqlite\nDB_PATH = "notes.db"\n\n\ndef db():\n    return aiosqlite.connect(DB_PATH)\n',
            "aiosqlite.connect(...)",
            "notes.db",
        ),
    ],
)
def test_a_write_relative_to_the_working_folder_is_a_warning(
    tmp_path: Path, code: str, shown: str, literal: str
) -> None:
    write_project(tmp_path, {"tools.py": "from skillc import tool\n" + code + _PING, "agent.py": _WRITES_AGENT})
    diagnostics = compile_project(tmp_path, use_cache=False).diagnostics
    # aiosqlite is not installed here, nor declared: that is its own warning.
    [found] = [item for item in diagnostics if item.code != "skill/undeclared-dependency"]
    assert (found.code, found.severity.value, found.path) == ("skill/working-folder-path", "warning", "src/tools.py")
    assert found.message == (
        f"{shown} writes {literal!r} relative to the working folder: each process that runs the tool writes its own "
        "file in whatever folder it started in, and a host that starts skill serve in a folder it cannot write "
        "(often /) makes the call fail there"
    )
    assert found.hint == (
        "keep what tools write in ctx.data (shared by every tool and process), or build the path from a folder "
        "the configuration names (an environment variable read with ctx.env)"
    )


@pytest.mark.parametrize(
    "code",
    [
        "LOG = open('out.log')\n",  # read: reported only when it names a file of the project
        "MODE = 'a'\nLOG = open('out.log', MODE)\n",  # a mode only running the code would tell
        "import sqlite3\nDB = sqlite3.connect('/var/lib/notes.db')\n",  # absolute
        "import sqlite3\nDB = sqlite3.connect('../notes.db')\n",  # above the working folder: not the project's
        "from pathlib import Path\nTEXT = Path('out.txt').read_text() if False else ''\n",
        "def open(path, mode):\n    return path\n\n\nLOG = open('out.log', 'w')\n",  # not the builtin
        "import logging\nLOGGER = logging.getLogger('tools.log')\n",
        # The name is also a parameter, or bound again: not the constant where the call is.
        'path = "notes.txt"\n\n\ndef save(path, text):\n    open(path, "w").write(text)\n',
        'PATH = "notes.txt"\nPATH = "/var/notes.txt"\nopen(PATH, "w")\n',
    ],
)
def test_reads_and_other_calls_with_a_relative_path_are_not_writes(tmp_path: Path, code: str) -> None:
    write_project(tmp_path, {"tools.py": "from skillc import tool\n" + code + _PING, "agent.py": _WRITES_AGENT})
    assert compile_project(tmp_path, use_cache=False).diagnostics == ()


_SETTINGS_PYPROJECT = DEFAULT_PYPROJECT.replace('"pydantic>=2"]', '"pydantic>=2", "pydantic-settings>=2"]')
_SETTINGS_AGENT_OF_PING = (
    "from skillc import Agent, Skill\nfrom tools import ping\n\n"
    'agent = Agent(name="a", skills=[Skill(name="s", tools=[ping])])\n'
)
_PING = '\n\n@tool\ndef ping() -> str:\n    """Answer."""\n    return "pong"\n'


def _settings_diagnostics(tmp_path: Path, module: str) -> tuple[Diagnostic, ...]:
    """The diagnostics of a project whose one tool's module is ``module`` followed by a tool ``ping``."""
    write_project(
        tmp_path,
        {"tools.py": "from skillc import tool\n" + module + _PING, "agent.py": _SETTINGS_AGENT_OF_PING},
        _SETTINGS_PYPROJECT,
    )
    return compile_project(tmp_path, use_cache=False).diagnostics


def test_settings_made_at_import_name_the_variables_they_need(tmp_path: Path) -> None:
    """Required fields along the project's classes, a prefix, an alias; not a default, a factory, a ClassVar."""
    module = (
        "from typing import Annotated, ClassVar\n\n"
        "from pydantic import AliasChoices, Field\n"
        "from pydantic_settings import BaseSettings, SettingsConfigDict\n\n\n"
        "class Base(BaseSettings):\n"
        "    region: str\n"
        "    timeout: float = 10.0\n\n\n"
        "class Settings(Base):\n"
        '    model_config = SettingsConfigDict(env_prefix="shop_")\n\n'
        "    api_key: str = Field(...)\n"
        '    token: Annotated[str, Field(alias="SHOP_TOKEN_V2")]\n'
        "    retries: int = Field(default_factory=lambda: 3)\n"
        '    kind: ClassVar[str] = "shop"\n'
        "    _cache: dict = {}\n\n\n"
        "SETTINGS = Settings()\n"
    )
    [found] = _settings_diagnostics(tmp_path, module)
    assert (found.code, found.severity.value, found.path, found.line, found.col) == (
        "skill/environment-at-import",
        "warning",
        "src/tools.py",
        23,
        11,
    )
    assert found.message == (
        "Settings() reads its fields from the environment when the module is imported: where SHOP_REGION, "
        "SHOP_API_KEY and SHOP_TOKEN_V2 are not set, the import raises ValidationError, and every tool whose bundle "
        "holds the module fails to load, whatever it is called with"
    )
    assert found.hint == (
        "make the settings when the tool runs (call Settings() in execute, or in a function cached with "
        "functools.cache), where a missing variable is that call's error; or give the fields defaults"
    )


_ONE_FIELD = (
    "from pydantic_settings import BaseSettings\n\n\nclass Settings(BaseSettings):\n{config}    api_key: str\n\n\n"
)


@pytest.mark.parametrize(
    ("config", "made", "variables"),
    [
        ("", "SETTINGS = Settings()\n", "API_KEY is"),
        ('    model_config = {"case_sensitive": True, "env_prefix": "App_"}\n', "S = Settings()\n", "App_api_key is"),
        (
            "    model_config = {'env_prefix': PREFIX}\n",
            "S = Settings(_env_file='.env')\n",
            "the variable of api_key is",
        ),
        ("    class Config:\n        env_prefix = 'OLD_'\n\n", "S = Settings()\n", "OLD_API_KEY is"),
        # pydantic merges the configuration along the bases: the prefix is the base's.
        (
            "    model_config = {'env_prefix': 'BASE_'}\n",
            "\nclass Child(Settings):\n    model_config = {'extra': 'ignore'}\n\n\nS = Child()\n",
            "BASE_API_KEY is",
        ),
    ],
)
def test_settings_variables_follow_the_configuration(tmp_path: Path, config: str, made: str, variables: str) -> None:
    module = 'PREFIX = "X_"\n' + _ONE_FIELD.format(config=config) + made
    [found] = _settings_diagnostics(tmp_path, module)
    assert f"imported: where {variables} not set, the import" in found.message


@pytest.mark.parametrize(
    "made",
    [
        "SETTINGS = Settings(api_key='local')\n",  # the call gives it
        "SETTINGS = Settings(**{'api_key': 'local'})\n",  # only running the code would tell
        "try:\n    SETTINGS = Settings()\nexcept ValueError:\n    SETTINGS = None\n",  # a handler copes
        "if __name__ == '__main__':\n    SETTINGS = Settings()\n",  # may not run
        "\n\ndef settings():\n    return Settings()\n",  # made when a tool runs
    ],
)
def test_settings_that_cannot_fail_at_import_are_not_reported(tmp_path: Path, made: str) -> None:
    assert _settings_diagnostics(tmp_path, _ONE_FIELD.format(config="") + made) == ()


def test_settings_with_every_field_defaulted_or_a_plain_model_are_not_reported(tmp_path: Path) -> None:
    module = (
        "from pydantic import BaseModel, Field\nfrom pydantic_settings import BaseSettings\n\n\n"
        "class Settings(BaseSettings):\n    api_key: str = ''\n    region: str = Field('eu')\n\n\n"
        "class Order(BaseModel):\n    order_id: str\n\n\n"
        "SETTINGS = Settings()\nORDER = Order.model_construct()\n"
    )
    assert _settings_diagnostics(tmp_path, module) == ()


_GENERIC = (
    "from typing import Generic, TypeVar\n\nfrom pydantic import BaseModel\nfrom skillc import Tool\n\n"
    'T = TypeVar("T")\n\n\nclass Wrapped(BaseModel, Generic[T]):\n    item: T\n\n\n'
    "class Order(BaseModel):\n    order_id: str\n\n\n"
)


def test_a_parametrized_generic_model_is_named_as_one(tmp_path: Path) -> None:
    tools = _GENERIC + (
        'class CancelInput(Wrapped[Order]):\n    """What to cancel."""\n\n\n'
        'class Cancel(Tool):\n    name = "cancel"\n    description = "Cancel."\n    input_schema = CancelInput\n\n'
        "    def execute(self, input, ctx):\n        return input.item.order_id\n"
    )
    [found] = _diagnostics(tmp_path, tools, "Cancel()")
    assert (found.code, found.line, found.col) == ("skill/schema-unsupported", 17, 18)
    assert found.message == (
        "CancelInput derives from Wrapped[Order], a parametrized generic model (Wrapped), whose fields the "
        "static schema does not read"
    )


def test_a_generic_model_parametrized_in_the_setting_is_told_to_be_named(tmp_path: Path) -> None:
    tools = _GENERIC + (
        'class Cancel(Tool):\n    name = "cancel"\n    description = "Cancel."\n    input_schema = Wrapped[Order]\n\n'
        "    def execute(self, input, ctx):\n        return input.item.order_id\n"
    )
    [found] = _diagnostics(tmp_path, tools, "Cancel()")
    assert (found.code, found.line, found.col) == ("skill/schema-unsupported", 20, 19)
    assert found.hint == (
        "name it as a class (`class WrappedInput(Wrapped[Order]): ...`), then build its schema by importing: "
        '[tool.skill] schema = "import" and `skill compile --allow-import`'
    )


def test_a_multiple_of_pydantic_refuses_is_reported_with_its_fix(tmp_path: Path) -> None:
    tools = (
        "from pydantic import BaseModel, Field\nfrom skillc import Tool\n\n\n"
        "class Input(BaseModel):\n    step: float = Field(1, multiple_of=0)\n\n\n"
        'class Step(Tool):\n    name = "step"\n    description = "Step."\n    input_schema = Input\n\n'
        "    def execute(self, input, ctx):\n        return input.step\n"
    )
    [found] = _diagnostics(tmp_path, tools, "Step()")
    assert (found.code, found.line, found.col) == ("skill/schema-unsupported", 6, 39)
    assert found.message == "multiple_of=0 is not above 0: pydantic refuses the model when its module is imported"
    assert found.hint == "give multiple_of a number above 0"


def test_a_second_context_parameter_and_a_protected_parameter_name_are_reported(tmp_path: Path) -> None:
    tools = (
        "from skillc import ToolContext, tool\n\n\n"
        "@tool\ndef ship(model_dump: int, ctx: ToolContext, again: ToolContext) -> str:\n"
        '    """Ship."""\n    return "ok"\n'
    )
    found = [(item.code, item.line, item.col, item.message) for item in _diagnostics(tmp_path, tools, "ship")]
    assert found == [
        (
            "skill/model-field-conflict",
            5,
            9,
            "parameter 'model_dump' becomes a field of the tool's input model, and pydantic refuses a field named "
            "like BaseModel.model_dump: the module does not import",
        ),
        (
            "skill/call-signature",
            5,
            44,
            "parameter 'again' is a second ToolContext (after 'ctx'): the runtime passes the context to one "
            "parameter, so every call would miss this one",
        ),
    ]


SHIP = 'from skillc import tool\n\n\ndef ship(city: str) -> str:\n    """Ship."""\n    return city\n\n\nshipping = {}\n'


@pytest.mark.parametrize("made", ["tool(ship)", "tool(timeout=5)(ship)"])
def test_a_tool_made_by_calling_tool_is_the_tool_the_decorator_makes(tmp_path: Path, made: str) -> None:
    """LlamaIndex's ``FunctionTool.from_defaults(fn=...)`` and AutoGen's ``FunctionTool(func)``, ported."""
    assert _diagnostics(tmp_path, SHIP.format(made), "shipping") == ()
    report = compile_project(tmp_path, use_cache=False)
    assert [(tool.name, tool.qualname, tool.function) for tool in report.tools] == [("ship", "shipping", "ship")]
    written = json.loads((tmp_path / "dist" / "tools" / "ship" / "tool.json").read_text())
    assert written["parameters"]["required"] == ["city"]


def test_a_call_of_tool_the_runtime_refuses_is_told_to_use_the_decorator(tmp_path: Path) -> None:
    [found] = _diagnostics(tmp_path, SHIP.format("tool(ship, timeout=5)"), "shipping")  # a TypeError at import
    assert (found.code, found.line, found.col) == ("skill/unresolved-reference", 4, 55)
    assert (
        found.message == "shipping is not a tool: it is bound to tool(...), a call of tool() the compiler does not read"
    )
    assert found.hint == "decorate the function instead: @tool (or @tool(timeout=...)) on the line above its def"


def test_an_execute_assigned_in_the_class_body_is_told_to_be_defined(tmp_path: Path) -> None:
    tools = (
        "from pydantic import BaseModel\nfrom skillc import Tool\n\n\ndef run(self, input, ctx):\n    return 'x'\n\n\n"
        "class EchoInput(BaseModel):\n    text: str\n\n\n"
        'class Echo(Tool):\n    name = "echo"\n    description = "Echo."\n    input_schema = EchoInput\n    execute = run\n'
    )
    [found] = _diagnostics(tmp_path, tools, "Echo()")
    assert (found.code, found.line, found.col) == ("skill/missing-execute", 13, 0)
    assert found.message == (
        "Tool must have an execute function: Echo assigns it (execute = run), which the compiler does not read "
        "as a method"
    )
    assert found.hint == "define it with `def execute(self, input, ctx):` (it may call the function assigned)"


def test_a_tool_list_changed_before_its_skill_is_made_is_reported(tmp_path: Path) -> None:
    tools = (
        'from skillc import tool\n\n\n@tool\ndef ship(city: str) -> str:\n    """Ship."""\n    return city\n\n\n'
        '@tool\ndef track(ref: str) -> str:\n    """Track."""\n    return ref\n'
    )
    agent = (
        "from skillc import Agent, Skill\nfrom tools import ship, track\n\nTOOLS = [ship]\nTOOLS.append(track)\n"
        'agent = Agent(name="a", skills=[Skill(name="s", tools=TOOLS)])\nTOOLS.append(ship)  # too late to matter\n'
    )
    write_project(tmp_path, {"tools.py": tools, "agent.py": agent})
    found, unreached = compile_project(tmp_path, use_cache=False).diagnostics
    assert (found.code, found.path, found.line, found.col) == ("skill/dynamic-value", "src/agent.py", 5, 0)
    assert unreached.code == "skill/unreachable-tool"  # track: the compiled agent never has it
    assert found.message == (
        "TOOLS.append(...) changes TOOLS when the module is imported, after the line that binds it (4), which is "
        "all the compiler reads of the tools list: the compiled agent would not have the entries the module gives it"
    )


def test_a_tool_list_changed_in_a_loop_or_by_an_operator_is_reported_where(tmp_path: Path) -> None:
    tools = 'from skillc import tool\n\n\n@tool\ndef ship(city: str) -> str:\n    """Ship."""\n    return city\n'
    agent = (
        "from skillc import Agent, Skill\nfrom tools import ship\n\nTOOLS = [ship]\nfor extra in ():\n"
        "    TOOLS.append(extra)\nTOOLS += []\nTOOLS[0] = ship\ndel TOOLS[1:]\n"
        'agent = Agent(name="a", skills=[Skill(name="s", tools=TOOLS)])\n'
    )
    write_project(tmp_path, {"tools.py": tools, "agent.py": agent})
    found = [
        (item.code, item.line, item.message.split(" changes ")[0]) for item in compile_project(tmp_path).diagnostics
    ]
    assert found == [
        ("skill/dynamic-value", 6, "TOOLS.append(...) (in a loop)"),
        ("skill/dynamic-value", 7, "TOOLS += ..."),
        ("skill/dynamic-value", 8, "TOOLS[...] = ..."),
        ("skill/dynamic-value", 9, "del TOOLS[...]"),
    ]


def test_tool_lists_joined_with_plus_compile_and_a_list_plus_a_tuple_does_not(tmp_path: Path) -> None:
    tools = (
        'from skillc import tool\n\n\n@tool\ndef ship(city: str) -> str:\n    """Ship."""\n    return city\n\n\n'
        '@tool\ndef track(ref: str) -> str:\n    """Track."""\n    return ref\n'
    )
    agent = (
        "from skillc import Agent, Skill\nfrom tools import ship, track\n\nCOMMON = [track]\n"
        'agent = Agent(name="a", skills=[Skill(name="s", tools=COMMON + [ship])])\n'
    )
    write_project(tmp_path, {"tools.py": tools, "agent.py": agent})
    report = compile_project(tmp_path, use_cache=False)
    assert report.diagnostics == () and [tool.name for tool in report.tools] == ["track", "ship"]
    write_project(tmp_path, {"tools.py": tools, "agent.py": agent.replace("COMMON = [track]", "COMMON = (track,)")})
    found = compile_project(tmp_path, use_cache=False).diagnostics  # Python: can only concatenate tuple
    assert [(item.code, item.line, item.col) for item in found if item.severity.value == "error"] == [
        ("skill/dynamic-value", 5, 54)
    ]


@pytest.mark.parametrize(
    ("header", "read", "reported"),
    [
        ("import os", 'os.environ["KEY"]', True),
        ("import os as system", 'system.environ["KEY"]', True),
        ("import os.path", 'os.environ["KEY"]', True),
        ("from os import environ", 'environ["KEY"]', True),
        ("import environ", 'environ["KEY"]', False),  # django-environ's module, not os.environ
        ("from settings import os", 'os.environ["KEY"]', False),
    ],
)
def test_an_environment_variable_read_by_key_at_import_is_reported_on_os_environ_only(
    tmp_path: Path, header: str, read: str, reported: bool
) -> None:
    tools = (
        f"{header}\nfrom skillc import tool\n\nKEY = {read}\n\n\n"
        '@tool\ndef echo(text: str) -> str:\n    """Echo."""\n    return text\n'
    )
    files = {"settings.py": "import os\n"} if "settings" in header else {}
    write_project(tmp_path, files)
    found = [
        (item.code, item.line, item.message, item.hint)
        for item in _diagnostics(tmp_path, tools, "echo")
        if item.code == "skill/environment-at-import"
    ]
    assert found == (
        [
            (
                "skill/environment-at-import",
                4,
                f"{read.replace(chr(34), chr(39))} is read when the module is imported: where the variable is not set, "
                "the import raises KeyError, and every tool whose bundle holds the module fails to load, whatever it "
                "is called with",
                "read the variable when the tool runs (ctx.env[...] in execute, where a missing one is that call's "
                "error), or give it a default (os.environ.get(...))",
            )
        ]
        if reported
        else []
    )


@pytest.mark.parametrize(
    ("header", "call", "reported"),
    [
        ("import signal", "signal.signal(signal.SIGUSR1, signal.SIG_DFL)", "signal.signal(...)"),
        ("import signal as sig", "sig.signal(sig.SIGUSR1, sig.SIG_DFL)", "sig.signal(...)"),
        ("from signal import SIGUSR1, SIG_DFL, signal", "signal(SIGUSR1, SIG_DFL)", "signal(...)"),
        ("from signal import set_wakeup_fd", "set_wakeup_fd(-1)", "set_wakeup_fd(...)"),
        ("from project_signals import signal", "signal(1, 2)", None),  # the project's own signal()
    ],
)
def test_a_signal_handler_installed_at_import_is_an_error_naming_the_call(
    tmp_path: Path, header: str, call: str, reported: str | None
) -> None:
    tools = (
        f"{header}\nfrom skillc import tool\n\n{call}\n\n\n"
        '@tool\ndef echo(text: str) -> str:\n    """Echo."""\n    return text\n'
    )
    write_project(tmp_path, {"project_signals.py": "def signal(number, handler):\n    return None\n"})
    found = [
        (item.code, item.severity.value, item.line, item.col, item.message)
        for item in _diagnostics(tmp_path, tools, "echo")
        if item.code == "skill/signal-at-import"
    ]
    assert found == (
        [
            (
                "skill/signal-at-import",
                "error",
                4,
                0,
                f"{reported} installs a signal handler when the module is imported: the runtime imports a tool's "
                "modules in a worker thread, where Python refuses it (ValueError), so every tool whose bundle holds "
                "the module fails to load",
            )
        ]
        if reported is not None
        else []
    )


def test_asyncio_run_in_an_async_tool_is_an_error_where_the_same_call_in_a_sync_tool_is_not(tmp_path: Path) -> None:
    """The ported tool that calls ``asyncio.run`` works as a sync ``execute`` (a worker thread has no
    loop) and fails on every call as an async one: the check tells them apart as the runtime does."""
    body = (
        "import asyncio\nfrom asyncio import run\nfrom skillc import tool\n\n\n"
        "async def double(n: int) -> int:\n    return n * 2\n\n\n"
        '@tool\n{keyword}def twice(n: int) -> int:\n    """Double it."""\n    return {call}(double(n))\n'
    )
    for keyword, call, reported in [
        ("", "asyncio.run", []),
        ("async ", "asyncio.run", [("skill/nested-event-loop", 13, 11)]),
        ("async ", "run", [("skill/nested-event-loop", 13, 11)]),
    ]:
        tools = body.format(keyword=keyword, call=call)
        found = [(item.code, item.line, item.col) for item in _diagnostics(tmp_path, tools, "twice")]
        assert found == reported, (keyword, call)
        if not reported:
            called = run_command([str(SKILL), "test", "--name", "twice", "--input", '{"n": 4}', "--json"], tmp_path)
            assert called.code == 0, called.stdout + called.stderr
            assert json.loads(called.stdout)["output"] == "8"


@pytest.mark.parametrize(
    ("statement", "raised", "code", "column", "message"),
    [
        (
            "signal.signal(signal.SIGUSR1, signal.SIG_DFL)",
            "ValueError",
            "skill/signal-at-import",
            4,
            "signal.signal(...) installs a signal handler when the module is imported: the runtime imports a tool's "
            "modules in a worker thread, where Python refuses it (ValueError), so every tool whose bundle holds the "
            "module fails to load",
        ),
        (
            "LOOP = asyncio.get_event_loop()",
            "RuntimeError",
            "skill/event-loop-at-import",
            11,
            "asyncio.get_event_loop() looks the event loop up when the module is imported: the runtime imports a "
            "tool's modules in a worker thread, where no loop is set and none runs, and asyncio raises RuntimeError, "
            "so every tool whose bundle holds the module fails to load",
        ),
    ],
)
def test_an_import_time_call_the_worker_thread_refuses_is_an_error_and_caught_it_loads(
    tmp_path: Path, statement: str, raised: str, code: str, column: int, message: str
) -> None:
    """What the runtime's worker thread refuses at import is an error; caught, the same module
    loads and its tool runs (which is what the check tells apart)."""
    tools = (
        f"import asyncio\nimport signal\nfrom skillc import tool\n\ntry:\n    {statement}\n"
        "except ImportError:\n    pass\n\n\n"
        '@tool\nasync def echo(text: str) -> str:\n    """Echo."""\n    return text\n'
    )
    found = [(item.code, item.line, item.col, item.message) for item in _diagnostics(tmp_path, tools, "echo")]
    assert found == [(code, 6, column, message)]
    caught = tools.replace("except ImportError:", f"except {raised}:")
    assert _diagnostics(tmp_path, caught, "echo") == ()
    called = run_command([str(SKILL), "test", "--name", "echo", "--input", '{"text": "hi"}', "--json"], tmp_path)
    assert called.code == 0, called.stdout + called.stderr
    assert json.loads(called.stdout)["output"] == "hi"


def test_a_written_file_of_the_project_gets_the_hint_for_writes(tmp_path: Path) -> None:
    """``sqlite3.connect("src/notes.db")``, once a first call made the file: moving it beside the module
    (what the hint says for a file the tool reads) would put the writes in the bundle."""
    tools = "import sqlite3\n\n\ndef count():\n    return sqlite3.connect('src/notes.db').total_changes\n"
    [found] = _working_folder_findings(tmp_path, LOOKUP + tools, {"notes.db": ""})
    assert found.message.startswith("sqlite3.connect(...) writes 'src/notes.db' relative to the working folder")
    assert found.hint is not None and found.hint.startswith("keep what tools write in ctx.data")


def test_a_sqlite_url_relative_to_the_working_folder_is_a_path_written(tmp_path: Path) -> None:
    """``create_engine("sqlite:///shop.db")`` makes ``shop.db`` wherever the process started (llama-index's
    DatabaseToolSpec, run from another folder, answered from an empty database); ``:memory:`` and an absolute
    URL (four slashes) name nothing there."""
    tools = (
        "from sqlalchemy import create_engine\n"
        "from sqlalchemy.ext.asyncio import create_async_engine\n\n"
        "ENGINE = create_engine('sqlite:///shop.db')\n"
        "LATER = create_async_engine('sqlite+aiosqlite:///data/later.db?timeout=5')\n"
        "MEMORY = create_engine('sqlite:///:memory:')\n"
        "ABSOLUTE = create_engine('sqlite:////var/lib/shop.db')\n"
    )
    found = _working_folder_findings(tmp_path, tools + LOOKUP)
    assert [(item.line, item.col) for item in found] == [(4, 23), (5, 28)]
    assert found[0].message.startswith("create_engine(...) writes 'shop.db' relative to the working folder")
    assert found[1].message.startswith("create_async_engine(...) writes 'data/later.db' relative to the working folder")


def test_a_bare_name_made_or_written_at_once_is_a_path(tmp_path: Path) -> None:
    """``Path("cache").mkdir()`` (the README's own example) and ``os.makedirs("logs")`` make a folder wherever
    the process started; a bare name the code only reads, or passes elsewhere, is no path."""
    tools = (
        "import logging\nimport os\nfrom pathlib import Path\n\n\n"
        "def prepare():\n"
        "    Path('cache').mkdir(exist_ok=True)\n"
        "    os.makedirs('logs', exist_ok=True)\n"
        "    Path('notes').write_text('x')\n"
        "    logging.getLogger('tools')\n"
        "    return Path('readme').read_text()\n"
    )
    found = _working_folder_findings(tmp_path, tools + LOOKUP)
    assert [(item.line, item.col) for item in found] == [(7, 9), (8, 16), (9, 9)]


def _working_folder_findings(root: Path, tools: str, more: dict[str, str] | None = None) -> list[Diagnostic]:
    """The skill/working-folder-path diagnostics of a project whose ``tools.py`` is ``tools``."""
    write_project(root, {"agent.py": AGENT_MODULE, "tools.py": tools, **(more or {})})
    report = compile_project(root, use_cache=False)
    return [item for item in report.diagnostics if item.code == "skill/working-folder-path"]


@pytest.mark.parametrize("listed", ["MathPlugin.add", "plugin.add"])
def test_a_tool_method_listed_is_told_why_it_cannot_be_one(tmp_path: Path, listed: str) -> None:
    """A Semantic Kernel plugin's ``@kernel_function`` methods, ported with ``@tool``: "not defined" said nothing."""
    tools = (
        "from skillc import tool\n\n\nclass MathPlugin:\n    @tool\n    def add(self, a: int, b: int) -> int:\n"
        '        """Add."""\n        return a + b\n\n\nplugin = MathPlugin()\n'
    )
    agent = (
        "from skillc import Agent, Skill\nfrom tools import MathPlugin, plugin\n\n"
        f'agent = Agent(name="a", skills=[Skill(name="s", tools=[{listed}])])\n'
    )
    write_project(tmp_path, {"tools.py": tools, "agent.py": agent})
    [found] = compile_project(tmp_path, use_cache=False).diagnostics
    assert (found.code, found.line, found.col) == ("skill/unresolved-reference", 4, 55)
    assert found.message == (
        f"{listed} is a method of MathPlugin decorated with @tool: @tool makes a tool of the function in the class "
        "body, whose self would be an input field the model must send"
    )
