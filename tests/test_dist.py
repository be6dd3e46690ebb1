"""``dist/``: its layout and manifest, deterministic bundles, atomic and reproducible emits."""

from __future__ import annotations

import json
import signal
import subprocess
import time
import zipfile
from pathlib import Path

import jsonschema
import pytest
from helpers import DEFAULT_PYPROJECT, SKILL, RunSkill, write_project
from skillc.compiler.api import compile_project
from skillc.compiler.bundle import entry_module_name
from skillc.compiler.probe import probe_bundle
from skillc.templates import scaffold_project


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    scaffold_project(Path("demo"), cwd=tmp_path)
    return tmp_path / "demo"


def test_the_dist_layout_and_manifest(demo: Path) -> None:
    report = compile_project(demo)
    assert report.ok and report.dist == "written"
    dist = demo / "dist"
    assert sorted(_tree(dist)) == [
        "manifest.json",
        *(
            f"tools/{name}/{file}"
            for name in ("cancel_order", "lookup_order", "shipping_quote")
            for file in ("bundle.zip", "input.schema.json", "tool.json")
        ),
    ]
    manifest = json.loads((dist / "manifest.json").read_text())
    assert manifest["format"] == 1 and manifest["compiler"]["name"] == "skillc"
    assert manifest["agent"]["name"] == "demo" and manifest["agent"]["skills"] == ["orders"]
    assert [skill["name"] for skill in manifest["skills"]] == ["orders"]
    lookup = next(tool for tool in manifest["tools"] if tool["name"] == "lookup_order")
    assert {
        "name",
        "skill",
        "description",
        "form",
        "source",
        "entry",
        "bundle",
        "sha256",
        "schema",
        "timeout",
        "retries",
        "strict",
        "needs_approval",
        "required",
        "has_condition",
        "requirements",
    } <= set(lookup)
    assert lookup["source"] == {"path": "src/skills/tools/lookup_order.py", "line": 18}
    assert lookup["entry"] == {"module": entry_module_name("lookup_order"), "qualname": "tool"}
    assert lookup["bundle"] == "tools/lookup_order/bundle.zip"
    assert lookup["schema"] == {
        "tool": "tools/lookup_order/tool.json",
        "input": "tools/lookup_order/input.schema.json",
        "output": None,
    }
    assert (lookup["timeout"], lookup["retries"], lookup["has_condition"]) == (10.0, 0, False)
    assert lookup["requirements"] == ["pydantic>=2", f"skillc>={_version()}"]
    quote = next(tool for tool in manifest["tools"] if tool["name"] == "shipping_quote")
    assert quote["has_condition"] is True and quote["form"] == "object"
    cancel = next(tool for tool in manifest["tools"] if tool["name"] == "cancel_order")
    assert cancel["needs_approval"] is True and cancel["form"] == "function"
    definition = json.loads((dist / "tools/lookup_order/tool.json").read_text())
    assert list(definition) == ["type", "name", "description", "parameters", "strict"]  # as OpenAI documents it
    assert definition["type"] == "function" and definition["strict"] is False
    assert definition["parameters"] == json.loads((dist / "tools/lookup_order/input.schema.json").read_text())
    assert definition["parameters"]["required"] == ["order_id"]


def _version() -> str:
    from skillc import __version__

    return __version__


def test_every_emitted_schema_is_valid_json_schema(demo: Path) -> None:
    compile_project(demo)
    for path in (demo / "dist/tools").rglob("*.json"):
        document = json.loads(path.read_text())
        schema = document["parameters"] if path.name == "tool.json" else document
        jsonschema.Draft202012Validator.check_schema(schema)


def test_a_bundle_holds_only_what_its_tool_needs(demo: Path) -> None:
    compile_project(demo)
    with zipfile.ZipFile(demo / "dist/tools/lookup_order/bundle.zip") as archive:
        names = archive.namelist()
        infos = archive.infolist()
    assert names == sorted(names)
    assert [name for name in names if not name.endswith("/")] == [
        f"{entry_module_name('lookup_order')}.py",
        "skills/__init__.py",
        "skills/tools/__init__.py",
        "skills/tools/data/orders.json",  # the seed of ctx.data's orders, data of skills.tools
        "skills/tools/lookup_order.py",
        "skills/tools/store.py",
    ]
    assert {info.date_time for info in infos} == {(1980, 1, 1, 0, 0, 0)}


def test_a_bundle_imports_in_a_clean_process_without_the_sources(demo: Path, tmp_path: Path) -> None:
    compile_project(demo)
    moved = tmp_path / "elsewhere.zip"
    (demo / "dist/tools/lookup_order/bundle.zip").rename(moved)
    (demo / "src").rename(demo / "src-gone")  # nothing of the project is left to import from
    probe = probe_bundle(moved, entry_module_name("lookup_order"), "tool")
    assert probe.ok, probe.error
    assert probe.input_schema["title"] == "LookupOrderInput"


def test_two_compiles_give_byte_identical_output(demo: Path, tmp_path: Path) -> None:
    compile_project(demo)
    first = _tree(demo / "dist")
    elsewhere = tmp_path / "copy"
    scaffold_project(Path("copy"), cwd=tmp_path, name="demo")
    compile_project(elsewhere, use_cache=False)
    assert _tree(elsewhere / "dist") == first
    compile_project(demo, use_cache=False)
    assert _tree(demo / "dist") == first


def test_a_failed_compile_leaves_the_previous_dist(demo: Path) -> None:
    compile_project(demo)
    before = _tree(demo / "dist")
    agent = demo / "src/agent.py"
    agent.write_text(agent.read_text().replace("skills=[orders]", "skills=[orders, nowhere]"))
    report = compile_project(demo)
    assert not report.ok and report.dist == "not written"
    assert _tree(demo / "dist") == before
    assert sorted(p.name for p in demo.iterdir() if p.name.startswith(".dist")) == []


def test_removed_tools_disappear(demo: Path) -> None:
    compile_project(demo)
    orders = demo / "src/skills/orders.py"
    orders.write_text(
        orders.read_text().replace("tools=[LookupOrder(), cancel_order, shipping_quote]", "tools=[LookupOrder()]")
    )
    report = compile_project(demo)
    assert [tool.name for tool in report.tools] == ["lookup_order"]
    assert sorted(p.name for p in (demo / "dist/tools").iterdir()) == ["lookup_order"]


def test_an_unchanged_project_does_not_rewrite_dist(demo: Path) -> None:
    compile_project(demo)
    stamp = (demo / "dist/manifest.json").stat().st_mtime_ns
    report = compile_project(demo)
    assert report.dist == "up to date"
    assert (demo / "dist/manifest.json").stat().st_mtime_ns == stamp
    (demo / "dist/manifest.json").unlink()
    assert compile_project(demo).dist == "written"


DYNAMIC = """import importlib

from pydantic import BaseModel
from skillc import Tool

_secret = importlib.import_module("hidden." + "secret")


class PingInput(BaseModel):
    text: str


class Ping(Tool):
    name = "ping"
    description = "Echo."
    input_schema = PingInput

    def execute(self, input, ctx):
        return _secret.VALUE + input.text
"""
AGENT = 'from skillc import Agent, Skill\nfrom tools import Ping\nagent = Agent(name="a", skills=[Skill(name="s", description="S.", tools=[Ping()])])\n'


def test_verify_catches_a_module_loaded_dynamically(skill: RunSkill, tmp_path: Path) -> None:
    write_project(
        tmp_path,
        {"agent.py": AGENT, "tools.py": DYNAMIC, "hidden/__init__.py": "", "hidden/secret.py": "VALUE = 'x'\n"},
    )
    plain = skill("compile")
    assert plain.code == 0, plain.stdout  # no static closure can see the dynamic import
    assert "warning[skill/dynamic-import]" in plain.stdout
    before = _tree(tmp_path / "dist")
    verified = skill("compile", "--verify")
    assert verified.code == 1
    assert (
        "error[skill/bundle-not-self-contained] tool 'ping': its bundle does not import on its own: "
        "ModuleNotFoundError: No module named 'hidden'" in verified.stdout
    )
    assert _tree(tmp_path / "dist") == before  # the previous dist/ stays


def test_verify_passes_a_self_contained_project(skill: RunSkill, demo: Path) -> None:
    result = skill("compile", "--verify", str(demo))
    assert result.code == 0, result.stdout
    assert "wrote dist/" in result.stdout


def test_an_undeclared_third_party_import_is_a_warning_and_declared_ones_are_requirements(tmp_path: Path) -> None:
    tools = "import requests\nimport json\n" + DYNAMIC.replace(
        '_secret = importlib.import_module("hidden." + "secret")\n', ""
    ).replace("_secret.VALUE + ", "")
    write_project(tmp_path, {"agent.py": AGENT, "tools.py": tools})
    report = compile_project(tmp_path)
    assert [(d.code, d.line, d.col) for d in report.diagnostics] == [("skill/undeclared-dependency", 1, 7)]
    manifest = json.loads((tmp_path / "dist/manifest.json").read_text())
    assert manifest["tools"][0]["requirements"] == ["pydantic>=2", "skillc"]
    assert manifest["warnings"][0]["code"] == "skill/undeclared-dependency"


def _many_tools(root: Path, count: int, marker: str) -> None:
    tool = (
        "from pydantic import BaseModel\nfrom skillc import Tool\n\n"
        "class In{n}(BaseModel):\n    value: int = {n}\n\n"
        'class T{n}(Tool):\n    name = "t{n}"\n    description = "T{n} {marker}."\n    input_schema = In{n}\n\n'
        "    def execute(self, input, ctx):\n        return input.value\n"
    )
    files = {f"tools/t{n}.py": tool.format(n=n, marker=marker) for n in range(count)}
    imports = "".join(f"from tools.t{n} import T{n}\n" for n in range(count))
    listed = ", ".join(f"T{n}()" for n in range(count))
    files["agent.py"] = (
        f'from skillc import Agent, Skill\n{imports}agent = Agent(name="a", skills=[Skill(name="s", description="S.", tools=[{listed}])])\n'
    )
    files["tools/__init__.py"] = ""
    write_project(root, files)


def test_a_compile_killed_half_way_leaves_a_whole_dist(tmp_path: Path) -> None:
    _many_tools(tmp_path, 60, "old")
    assert compile_project(tmp_path).ok
    old = _tree(tmp_path / "dist")
    for delay in (0.2, 0.35, 0.5, 0.65, 0.8, 1.0):
        _many_tools(tmp_path, 60, f"new {delay}")
        process = subprocess.Popen(
            [str(SKILL), "compile", "--format", "json"],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        now = _tree(tmp_path / "dist")
        manifest = json.loads(now["manifest.json"])
        # Either the previous dist/ or the new one, whole: every listed bundle is there.
        assert now == old or all(
            tool["bundle"] in now and tool["description"].endswith(f"new {delay}.") for tool in manifest["tools"]
        )
        old = now
    assert compile_project(tmp_path).ok
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".dist")] == []


STRICT_TOOL = '''from pydantic import BaseModel, Field
from skillc import Tool


class Address(BaseModel):
    city: str
    zip_code: str | None = None


class QuoteInput(BaseModel):
    """Where a parcel goes."""

    weight_kg: float = Field(gt=0, description="Weight.")
    express: bool = False
    address: Address


class Quote(Tool):
    name = "quote"
    description = "Quote shipping."
    input_schema = QuoteInput
    strict = True

    def execute(self, input, ctx):
        return 1.0
'''


def _quote_project(root: Path, tool: str) -> Path:
    agent = 'from skillc import Agent, Skill\nfrom tools import Quote\nagent = Agent(name="a", skills=[Skill(name="s", description="S.", tools=[Quote()])])\n'
    return write_project(root, {"agent.py": agent, "tools.py": tool})


def test_a_strict_tool_sends_the_strict_variant_and_keeps_pydantics_schema(tmp_path: Path) -> None:
    report = compile_project(_quote_project(tmp_path, STRICT_TOOL))
    assert report.ok, report.diagnostics
    folder = tmp_path / "dist/tools/quote"
    definition = json.loads((folder / "tool.json").read_text())
    assert definition["strict"] is True
    parameters = definition["parameters"]
    jsonschema.Draft202012Validator.check_schema(parameters)
    assert parameters["additionalProperties"] is False
    assert sorted(parameters["required"]) == ["address", "express", "weight_kg"]
    address = parameters["$defs"]["Address"]
    assert address["additionalProperties"] is False and sorted(address["required"]) == ["city", "zip_code"]
    # input.schema.json stays the schema pydantic itself gives.
    import importlib.util

    spec = importlib.util.spec_from_file_location("strict_fixture", tmp_path / "src/tools.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert json.loads((folder / "input.schema.json").read_text()) == module.QuoteInput.model_json_schema()


def test_a_strict_tool_whose_input_cannot_be_strict_is_an_error(tmp_path: Path) -> None:
    tool = STRICT_TOOL.replace(
        "    express: bool = False\n", "    express: bool = False\n    extras: dict[str, int] = {}\n"
    )
    report = compile_project(_quote_project(tmp_path, tool))
    assert [(d.code, d.path, d.line) for d in report.diagnostics] == [("skill/strict-incompatible", "src/tools.py", 19)]
    assert not (tmp_path / "dist").exists()


IMPORTED = """import fractions

from pydantic import BaseModel, field_validator
from skillc import Tool


class PingInput(BaseModel):
    share: fractions.Fraction  # outside the static subset: only pydantic can say its schema
    count: int = 1


class Ping(Tool):
    name = "ping"
    description = "Ping with a share."
    input_schema = PingInput

    def execute(self, input, ctx):
        return str(input.share)
"""


def test_schema_import_mode_asks_pydantic_in_an_isolated_process(tmp_path: Path) -> None:
    agent = 'from skillc import Agent, Skill\nfrom tools import Ping\nagent = Agent(name="a", skills=[Skill(name="s", description="S.", tools=[Ping()])])\n'
    write_project(tmp_path, {"agent.py": agent, "tools.py": IMPORTED})
    static = compile_project(tmp_path)
    assert [(d.code, d.line) for d in static.diagnostics] == [("skill/schema-unsupported", 8)]
    write_project(tmp_path, {"agent.py": agent, "tools.py": IMPORTED}, DEFAULT_PYPROJECT + 'schema = "import"\n')
    refused = compile_project(tmp_path)  # the project's own file cannot consent to running its code
    assert [(d.code, d.line) for d in refused.diagnostics] == [("skill/schema-unsupported", 8)]
    assert "--allow-import" in (refused.diagnostics[0].hint or "") and refused.imported == ()
    heard: list[str] = []
    imported = compile_project(tmp_path, allow_import=True, notify=heard.append)
    assert imported.ok, imported.diagnostics
    assert imported.imported == ("ping",)
    assert heard == ["importing the bundle of tool 'ping' to build its schema (--allow-import)"]
    schema = json.loads((tmp_path / "dist/tools/ping/input.schema.json").read_text())
    assert schema["properties"]["share"] == {
        "anyOf": [{"type": "number"}, {"format": "fraction", "type": "string"}],
        "title": "Share",
    }
