"""Names that collide on real disks: in case only, or with a Windows device name.

Each tool is a folder ``dist/tools/<name>/`` and each skill ``dist/skills/<name>/``: on
macOS and Windows ``Lookup`` and ``lookup`` are one folder, and on Windows ``CON`` or
``nul`` is a device, not a folder.  The compiler refuses both, and so does the SDK when
a tool or skill is built, in the same words (one rule, in ``skillc.contracts.spec``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import RunSkill, write_project
from skillc import Agent, Skill, Tool, ToolContext, ToolDefinitionError, tool
from skillc.compiler.api import compile_project
from skillc.contracts.spec import reserved_name_error, windows_device_name

PROJECTS = Path(__file__).resolve().parent / "projects"


@pytest.mark.parametrize(
    ("name", "device"),
    [
        ("CON", "CON"),
        ("con", "CON"),
        ("Prn", "PRN"),
        ("aux", "AUX"),
        ("NUL", "NUL"),
        ("com1", "COM1"),
        ("COM9", "COM9"),
        ("lpt1", "LPT1"),
        ("Lpt9", "LPT9"),
        ("com\u00b9", "COM\u00b9"),
        ("conin$", "CONIN$"),
        # Windows ignores what follows the first dot, and spaces before it.
        ("nul.txt", "NUL"),
        ("NUL.tar.gz", "NUL"),
        ("con .json", "CON"),
        ("console", None),
        ("com10", None),
        ("com0", None),
        ("lpt0", None),
        ("nul_", None),
        ("my-con", None),
        ("auxiliary", None),
        ("", None),
    ],
)
def test_windows_device_names(name: str, device: str | None) -> None:
    assert windows_device_name(name) == device


def _run(input: Any, ctx: ToolContext) -> None:
    return None


@pytest.mark.parametrize("name", ["CON", "nul", "Aux", "com3", "LPT9"])
def test_the_sdk_refuses_a_reserved_tool_name_in_the_compilers_words(name: str) -> None:
    expected = reserved_name_error("tool", name)
    assert expected is not None and f"tool name {name!r} is reserved on Windows" in expected
    with pytest.raises(ToolDefinitionError) as caught:
        Tool(name=name, execute=_run)
    assert str(caught.value) == expected

    class Device(Tool):
        description = "A device."

        def execute(self, input: Any, ctx: ToolContext) -> None:
            return None

    Device.name = name
    with pytest.raises(ToolDefinitionError, match="is reserved on Windows"):
        Device()
    with pytest.raises(ToolDefinitionError, match="is reserved on Windows"):
        tool(name=name)(_run)


def test_the_sdk_refuses_a_reserved_function_name_and_skill_name() -> None:
    def prn(text: str) -> str:
        """Print."""
        return text

    with pytest.raises(ToolDefinitionError, match=r"tool name 'prn' is reserved on Windows \(PRN is"):
        tool(prn)
    with pytest.raises(ToolDefinitionError) as caught:
        Skill(name="Com1")
    assert str(caught.value) == reserved_name_error("skill", "Com1")
    assert "dist/skills/Com1/" in str(caught.value)


def test_the_sdk_accepts_names_that_only_look_like_devices() -> None:
    for name in ("console", "com10", "lpt0", "nul_device", "printer"):
        assert Tool(name=name, execute=_run).name == name


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: Skill(name="s", tools=[Tool(name="Lookup", execute=_run), Tool(name="lookup", execute=_run)]),
            "skill 's': tool names 'Lookup' and 'lookup' differ only in case",
        ),
        (
            lambda: Agent(
                name="shop",
                skills=[
                    Skill(name="a", tools=[Tool(name="LOOKUP", execute=_run)]),
                    Skill(name="b", tools=[Tool(name="lookup", execute=_run)]),
                ],
            ),
            "tool names 'LOOKUP' and 'lookup' differ only in case, so on macOS and Windows they "
            "would share one folder in dist/tools/ (skills 'a' and 'b')",
        ),
        (
            lambda: Agent(name="shop", skills=[Skill(name="orders"), Skill(name="Orders")]),
            "skill names 'orders' and 'Orders' differ only in case",
        ),
    ],
)
def test_the_sdk_refuses_names_that_differ_only_in_case(build: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        build()
    assert message in str(caught.value)


def _tool_module(name: str) -> str:
    return (
        "from skillc import Tool\n\n"
        f'device = Tool(name="{name}", description="A device.", execute=lambda input, ctx: None)\n'
    )


_AGENT = (
    "from skillc import Agent, Skill\n"
    "from tools import device\n\n"
    'devices = Skill(name="devices", description="Devices.", tools=[device])\n'
    'agent = Agent(name="shop", persona="Helpful.", skills=[devices])\n'
)


@pytest.mark.parametrize("name", ["CON", "nul", "Aux", "com7"])
def test_compile_and_sdk_say_the_same(tmp_path: Path, name: str) -> None:
    write_project(tmp_path, {"agent.py": _AGENT, "tools.py": _tool_module(name)})
    report = compile_project(tmp_path, use_cache=False, emit=False)
    found = [item for item in report.diagnostics if item.code == "skill/reserved-tool-name"]
    assert [(item.path, item.line, item.message) for item in found] == [
        ("src/tools.py", 3, reserved_name_error("tool", name))
    ]
    with pytest.raises(ToolDefinitionError) as caught:
        Tool(name=name, execute=_run)
    assert str(caught.value) == found[0].message


def test_skill_compile_refuses_reserved_names_and_writes_no_dist(skill: RunSkill, tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECTS / "reserved_tool_names", project)
    (project / "expected.json").unlink()
    result = skill("compile", str(project), "--format", "json")
    assert result.code == 1, result.stdout + result.stderr
    document = json.loads(result.stdout)
    reserved = sorted(
        item["message"].split(" is reserved")[0] for item in document["diagnostics"] if "reserved" in item["code"]
    )
    assert reserved == [
        "skill name 'Com1'",
        "skill name 'prn'",
        "tool name 'NUL'",
        "tool name 'aux'",
        "tool name 'con'",
    ]
    assert not (project / "dist").exists()


def test_skill_compile_refuses_tools_that_differ_only_in_case(skill: RunSkill, tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECTS / "tool_name_differs_in_case", project)
    (project / "expected.json").unlink()
    result = skill("compile", str(project))
    assert result.code == 1, result.stdout + result.stderr
    assert (
        "src/tools.py:18:12: error[skill/duplicate-tool-name] tool names 'Lookup' and 'lookup' differ "
        "only in case, so on macOS and Windows they would share one folder in dist/tools/"
    ) in result.stdout
    assert "note: src/tools.py:10:12: first used here" in result.stdout
    assert "skill names 'billing' and 'Billing' differ only in case" in result.stdout
    assert not (project / "dist").exists()


def test_distinct_names_still_compile(skill: RunSkill, tmp_path: Path) -> None:
    write_project(tmp_path, {"agent.py": _AGENT, "tools.py": _tool_module("console")})
    result = skill("compile", str(tmp_path))
    assert result.code == 0, result.stdout + result.stderr
    assert (tmp_path / "dist" / "tools" / "console" / "tool.json").is_file()
