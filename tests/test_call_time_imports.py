"""A tool's code imports its bundle's modules at call time: the same objects, its dist's own.

Real projects, compiled by the real compiler and loaded by the runtime: a lazy import
statement inside ``execute`` (and in ``condition()``, ``needs_approval``, a validator),
``importlib.import_module`` and ``importlib.resources.files`` at call time, two dists
whose bundles both hold a different ``helpers`` called concurrently from worker threads,
tasks and threads of their own, and what is not in a bundle staying out of reach.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import helpers as host_helpers  # the test suite's own: a module of the host named like the dists' ``helpers``
import pytest
from helpers import RunSkill
from helpers import write_project as write_cli_project
from runtime_support import compile_tree, run, write_project
from skillc.runtime.context import ToolContext
from skillc.runtime.loader import Runtime, load_dist
from skillc.runtime.results import ToolResult

ALPHA_AGENT = """\
from skillc import Agent, Skill

from tools import Count, catalog_item, catalog_in_thread, grow, plugin, probe, whoami, whoami_async, guarded

agent = Agent(
    name="alpha",
    skills=[
        Skill(
            name="s",
            description="S.",
            tools=[Count(), grow, plugin, catalog_item, catalog_in_thread, whoami, whoami_async, probe, guarded],
        )
    ],
)
"""

ALPHA_TOOLS = """\
import importlib
import importlib.resources
import json
import threading

from pydantic import BaseModel, field_validator
from skillc import Tool, ToolContext, tool

import counter as loaded_counter

loaded_counter.bump()  # once, while the bundle loads


class CountInput(BaseModel):
    step: int = 1

    @field_validator("step")
    @classmethod
    def known(cls, value: int) -> int:
        import counter  # a lazy import in a validator, run on the event loop

        assert counter is loaded_counter
        return value


class Count(Tool):
    name = "count"
    description = "Count the calls."
    input_schema = CountInput

    def needs_approval(self, input: CountInput, ctx: ToolContext) -> bool:
        from counter import bump  # a lazy import in needs_approval

        return bump is None

    def execute(self, input: CountInput, ctx: ToolContext) -> dict:
        import counter  # a lazy import of a module loading imported

        return {"same": counter is loaded_counter, "count": counter.bump()}


@tool
async def grow() -> dict:
    \"\"\"Grow a list kept by a module that only call time imports.\"\"\"
    from text.shout import CALLS, shout  # never imported while the bundle loaded

    return {"shout": shout("hi"), "calls": len(CALLS)}


@tool
def plugin(text: str) -> str:
    \"\"\"Run a plugin found by name.\"\"\"
    return importlib.import_module("plugins.upper").upper(text)


@tool
def catalog_item(key: str) -> str:
    \"\"\"Read an item of the catalog.\"\"\"
    items = importlib.resources.files("catalog").joinpath("items.json").read_text()
    return json.loads(items)[key]


@tool
def catalog_in_thread(key: str) -> str:
    \"\"\"Read an item of the catalog from a thread of the tool's own.\"\"\"
    found = []
    worker = threading.Thread(target=lambda: found.append(catalog_item(key)))
    worker.start()
    worker.join(10)
    return found[0]


@tool
def whoami(times: int = 1) -> list:
    \"\"\"Say whose helpers this is.\"\"\"
    import helpers

    return [(helpers.WHO, importlib.import_module("helpers").WHO) for _ in range(times)]


@tool
async def whoami_async() -> list:
    \"\"\"Say whose helpers this is, from a task.\"\"\"
    import helpers

    return [helpers.WHO, importlib.import_module("helpers").WHO]


@tool
def probe(name: str) -> str:
    \"\"\"Import a module by a name that only the call knows.\"\"\"
    return importlib.import_module(name).__name__


def offered() -> bool:
    from counter import COUNT  # a lazy import in condition()

    return COUNT >= 1


guarded = Tool(name="guarded", description="Guarded.", condition=offered, execute=lambda input, ctx: "ok")
"""

ALPHA = {
    "agent.py": ALPHA_AGENT,
    "tools.py": ALPHA_TOOLS,
    "counter.py": "COUNT = 0\n\n\ndef bump():\n    global COUNT\n    COUNT += 1\n    return COUNT\n",
    "text/__init__.py": "",
    "text/shout.py": "CALLS = []\n\n\ndef shout(text):\n    CALLS.append(text)\n    return text.upper() + '!'\n",
    "plugins/__init__.py": "",
    "plugins/upper.py": "def upper(text):\n    return text.upper()\n",
    "catalog/__init__.py": "",
    "catalog/items.json": '{"b7": "a blue teapot"}',
    "helpers.py": 'WHO = "alpha"\n',
    "unbundled.py": "X = 1\n",  # imported by no module: in no bundle
}

BETA_AGENT = """\
from skillc import Agent, Skill

from tools import whoami, whoami_async

agent = Agent(name="beta", skills=[Skill(name="s", description="S.", tools=[whoami, whoami_async])])
"""

BETA_TOOLS = """\
import importlib

from skillc import tool

import beta_only  # loaded into beta's space, never alpha's


@tool
def whoami(times: int = 1) -> list:
    \"\"\"Say whose helpers this is.\"\"\"
    import helpers

    return [(helpers.WHO, importlib.import_module("helpers").WHO) for _ in range(times)]


@tool
async def whoami_async() -> list:
    \"\"\"Say whose helpers this is, from a task.\"\"\"
    import helpers

    return [helpers.WHO, importlib.import_module("helpers").WHO]
"""

BETA = {"agent.py": BETA_AGENT, "tools.py": BETA_TOOLS, "helpers.py": 'WHO = "beta"\n', "beta_only.py": ""}


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("call_time_imports")
    alpha = compile_tree(write_project(root / "alpha", "alpha", ALPHA))
    beta = compile_tree(write_project(root / "beta", "beta", BETA))
    return alpha, beta


@pytest.fixture
def alpha(dists: tuple[Path, Path]) -> Iterator[Runtime]:
    with load_dist(dists[0]) as loaded:
        yield loaded


@pytest.fixture
def beta(dists: tuple[Path, Path]) -> Iterator[Runtime]:
    with load_dist(dists[1]) as loaded:
        yield loaded


def call(runtime: Runtime, name: str, arguments: Any = None, call_id: str = "c1") -> ToolResult:
    return run(runtime.call(name, arguments or {}, call_id, ToolContext()))


def output(result: ToolResult) -> Any:
    assert not result.is_error, result
    return json.loads(result.output) if result.output[:1] in "[{" else result.output


def project_modules() -> set[str]:
    """The bundle modules left in ``sys.modules`` (none ever is); the host's ``helpers`` stays its own."""
    assert sys.modules["helpers"] is host_helpers
    return {name for name, module in list(sys.modules.items()) if "__skillc_scope__" in vars(module)}


def test_a_lazy_import_is_the_module_loading_created(alpha: Runtime) -> None:
    assert output(call(alpha, "count")) == {"same": True, "count": 2}  # 1 at load, once per call after
    assert output(call(alpha, "count")) == {"same": True, "count": 3}
    assert project_modules() == set()  # never left in sys.modules


def test_a_module_first_imported_at_call_time_is_imported_once(alpha: Runtime) -> None:
    assert output(call(alpha, "grow")) == {"shout": "HI!", "calls": 1}
    assert output(call(alpha, "grow")) == {"shout": "HI!", "calls": 2}
    assert project_modules() == set()


def test_import_module_and_resources_files_at_call_time(alpha: Runtime) -> None:
    assert output(call(alpha, "plugin", {"text": "ab"})) == "AB"
    assert output(call(alpha, "catalog_item", {"key": "b7"})) == "a blue teapot"
    assert output(call(alpha, "catalog_in_thread", {"key": "b7"})) == "a blue teapot"
    assert project_modules() == set()


def test_conditions_see_their_bundle(alpha: Runtime) -> None:
    call(alpha, "count")
    offer = run(alpha.offer(ToolContext()))
    assert "guarded" in offer.names, offer.hidden


def test_what_is_not_in_the_bundle_stays_out_of_reach(alpha: Runtime, beta: Runtime) -> None:
    assert output(call(beta, "whoami")) == [["beta", "beta"]]  # beta_only is loaded, in beta's space
    for name in ("beta_only", "plugins.missing", "unbundled"):
        result = call(alpha, "probe", {"name": name})
        assert result.error_type == "execution", result
        assert f"ModuleNotFoundError: No module named {name!r}" in result.output, result.output
    assert output(call(alpha, "probe", {"name": "json"})) == "json"  # the standard library is everyone's
    assert project_modules() == set()


def test_two_dists_each_see_their_own_helpers_under_concurrent_calls(alpha: Runtime, beta: Runtime) -> None:
    async def calls() -> list[tuple[str, Any]]:
        jobs = []
        for index in range(60):
            for name, runtime in (("alpha", alpha), ("beta", beta)):
                tool = "whoami_async" if index % 2 else "whoami"
                jobs.append((name, runtime.call(tool, {"times": 20} if tool == "whoami" else {}, f"{name}{index}")))
        results = await asyncio.gather(*(job for _, job in jobs))
        return [(name, output(result)) for (name, _), result in zip(jobs, results, strict=True)]

    for name, found in run(calls()):
        assert found in ([[name, name]] * 20, [name, name]), (name, found)
    assert project_modules() == set()


def test_two_dists_called_from_threads_of_their_own(dists: tuple[Path, Path]) -> None:
    failures: list[str] = []
    start = threading.Barrier(4)

    def caller(dist: Path, who: str) -> None:
        with load_dist(dist) as runtime:  # a fresh runtime: its first calls race to import helpers
            start.wait(10)
            for index in range(40):
                tool = "whoami_async" if index % 3 == 0 else "whoami"
                found = output(call(runtime, tool, {"times": 5} if tool == "whoami" else {}, f"t{index}"))
                if found not in ([[who, who]] * 5, [who, who]):
                    failures.append(f"{who}: {found}")

    threads = [
        threading.Thread(target=caller, args=(dist, who))
        for dist, who in ((dists[0], "alpha"), (dists[1], "beta"), (dists[0], "alpha"), (dists[1], "beta"))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads)
    assert failures == []
    assert project_modules() == set()


# --- --verify loads bundles as the runtime does ------------------------------------------

VERIFY_AGENT = (
    "from skillc import Agent, Skill\n\n"
    "from shop.tools import price\n\n"
    'agent = Agent(name="a", skills=[Skill(name="s", description="Prices.", tools=[price])])\n'
)
VERIFY_TOOLS = (
    "import json\nfrom pathlib import Path\n\nfrom skillc import tool\n\n"
    'PRICES = json.loads((Path(__file__).parent / "data" / "prices.json").read_text())  # at import time\n\n\n'
    "@tool\ndef price(product: str) -> str:\n"
    '    """The price of a product."""\n'
    "    return str(PRICES[product])\n"
)


def test_verify_passes_a_tool_that_reads_its_data_file_at_import_time(tmp_path: Path, skill: RunSkill) -> None:
    sources = {
        "agent.py": VERIFY_AGENT,
        "shop/__init__.py": "",
        "shop/tools.py": VERIFY_TOOLS,
        "shop/data/prices.json": '{"a": 3}',
    }
    write_cli_project(tmp_path, sources)
    done = skill("compile", str(tmp_path), "--verify")
    assert done.code == 0, done.stdout + done.stderr
    called = skill("test", str(tmp_path), "--name", "price", "--input", '{"product": "a"}', "--json")
    assert json.loads(called.stdout)["output"] == "3", called.stdout + called.stderr
