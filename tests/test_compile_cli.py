"""``skill compile`` as a user runs it: output, exit codes, JSON, and watch mode."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import time
from pathlib import Path

from helpers import SKILL, RunSkill, run_command, write_project

LOOKUP = """from pydantic import BaseModel
from skillc import Tool


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = "Lookup"
    input_schema = LookupInput

    def execute(self, input, ctx):
        return input.order_id
"""
AGENT = """from skillc import Agent, Skill
from tools import Lookup

orders = Skill(name="orders", description="Orders.", tools=[Lookup(), missing])
agent = Agent(name="shop", skills=[orders])
"""


def test_text_output_shows_each_diagnostic_with_its_line_then_tools_and_summary(
    skill: RunSkill, tmp_path: Path
) -> None:
    write_project(tmp_path, {"agent.py": AGENT, "tools.py": LOOKUP})
    result = skill("compile")
    assert result.code == 1
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    assert lines[:16] == [
        "src/agent.py:4:71: error[skill/undefined-name] missing is used when the module is imported (line 4), "
        "and nothing in the module defines or imports it: importing the module raises NameError",
        '    orders = Skill(name="orders", description="Orders.", tools=[Lookup(), missing])',
        " " * (4 + 70) + "^",
        "  hint: import missing or define it above its first use (line 4)",
        "",
        "src/tools.py:9:1: warning[skill/missing-description] tool 'Lookup' has no description, "
        "so the model cannot tell when to use it",
        "    class Lookup(Tool):",
        "    ^",
        "  hint: describe what the tool does and when to call it",
        "",
        "src/tools.py:10:12: warning[skill/tool-name-style] tool name 'Lookup' is not lower_snake_case",
        '        name = "Lookup"',
        " " * (4 + 11) + "^",
        "  hint: by convention tool names match ^[a-z][a-z0-9_-]*$",
        "",
        "tool    skill   form   source          settings",
    ]
    assert lines[16] == "Lookup  orders  class  src/tools.py:9  timeout 60s"
    assert lines[18].startswith(
        "agent 'shop': 1 tool in 1 skill, 1 error, 2 warnings; dist/ not written (2 modules, 2 parsed, 0 cached, "
    )
    assert result.stderr == ""


def test_json_output_is_one_document(skill: RunSkill, tmp_path: Path) -> None:
    write_project(tmp_path, {"agent.py": AGENT, "tools.py": LOOKUP})
    result = skill("compile", "--format", "json")
    assert result.code == 1
    document = json.loads(result.stdout)
    assert document["ok"] is False
    assert document["summary"] == {"errors": 1, "warnings": 2, "skills": 1, "tools": 1}
    assert document["diagnostics"][0] == {
        "code": "skill/undefined-name",
        "severity": "error",
        "message": "missing is used when the module is imported (line 4), and nothing in the module defines "
        "or imports it: importing the module raises NameError",
        "path": "src/agent.py",
        "line": 4,
        "column": 71,
        "hint": "import missing or define it above its first use (line 4)",
        "related": [],
    }
    assert document["tools"][0]["entry"] == {"module": "tools", "qualname": "Lookup"}
    assert set(document["timings"]) == {"config", "index", "link", "artifacts"}  # every stage runs despite errors
    assert document["dist"] == {"path": "dist", "state": "not written"}


def test_a_new_project_compiles_clean(skill: RunSkill, tmp_path: Path) -> None:
    assert skill("init", "demo").code == 0
    result = skill("compile", "demo")
    assert result.code == 0, result.stdout
    rows = [line.split() for line in result.stdout.splitlines()[1:4]]
    assert [row[:4] for row in rows] == [
        ["lookup_order", "orders", "class", "src/skills/tools/lookup_order.py:18"],
        ["cancel_order", "orders", "function", "src/skills/tools/cancel_order.py:14"],
        ["shipping_quote", "orders", "object", "src/skills/tools/shipping_quote.py:34"],
    ]
    assert "agent 'demo': 3 tools in 1 skill, 0 errors, 0 warnings; wrote dist/" in result.stdout
    assert (tmp_path / "demo/dist/manifest.json").is_file()
    again = skill("compile", "demo")
    assert "; dist/ is up to date" in again.stdout
    checked = skill("compile", "--check", "demo")
    assert checked.code == 0 and "dist/" not in checked.stdout.splitlines()[-1]


def _read_until(process: subprocess.Popen[str], marker: str, timeout: float = 60) -> str:
    """Read the watcher's output until ``marker`` appears (bounded by ``timeout``)."""
    assert process.stdout is not None
    seen = ""
    deadline = time.monotonic() + timeout
    while marker not in seen:
        assert time.monotonic() < deadline, f"no {marker!r} in {seen!r}"
        line = process.stdout.readline()
        assert line, f"the watcher ended early: {seen!r}"
        seen += line
    return seen


def test_watch_recompiles_on_change_until_interrupted(tmp_path: Path) -> None:
    write_project(tmp_path, {"agent.py": AGENT, "tools.py": LOOKUP})
    with subprocess.Popen(
        [str(SKILL), "compile", "--watch"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    ) as process:
        _watch(process, tmp_path)


def _watch(process: subprocess.Popen[str], tmp_path: Path) -> None:
    try:
        first = _read_until(process, "Watching for changes")
        assert "1 error, 2 warnings" in first
        (tmp_path / "src/agent.py").write_text(AGENT.replace(", missing", ""))
        second = _read_until(process, "Watching for changes")
        assert "Change detected, compiling again." in second
        assert "0 errors, 2 warnings" in second
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)


GREETER = """from pydantic import BaseModel
from skillc import Tool


class GreetInput(BaseModel):
    name: str


class Greet(Tool):
    name = "greet"
    description = "Greet someone."
    input_schema = GreetInput

    def execute(self, input, ctx):
        return f"hello {input.name}"
"""
TWO_TOOLS = """from skillc import Agent, Skill
from greet import Greet
from tools import Lookup

orders = Skill(name="orders", description="Orders.", tools=[Lookup(), Greet()])
agent = Agent(name="shop", skills=[orders])
"""


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``, by relative path, with its bytes."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()
    }


def _fresh_dist(project: Path, elsewhere: Path) -> dict[str, bytes]:
    """What a cold ``skill compile`` of a copy of ``project``'s sources writes."""
    shutil.rmtree(elsewhere, ignore_errors=True)
    shutil.copytree(project / "src", elsewhere / "src")
    shutil.copy(project / "pyproject.toml", elsewhere / "pyproject.toml")
    finished = run_command([str(SKILL), "compile", str(elsewhere)], cwd=elsewhere)
    assert finished.code == 0, finished.stdout + finished.stderr
    return _files(elsewhere / "dist")


def test_each_watch_compile_writes_what_a_fresh_compile_writes_and_a_broken_one_writes_nothing(
    tmp_path: Path,
) -> None:
    """The watching process keeps its caches in memory and links the files a change left as
    they were: its dist/ is still byte for byte a cold compile's, and a change that breaks
    the build is reported with dist/ left exactly as it was."""
    project = write_project(tmp_path / "project", {"agent.py": TWO_TOOLS, "tools.py": LOOKUP, "greet.py": GREETER})
    with subprocess.Popen(
        [str(SKILL), "compile", "--watch"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    ) as process:
        try:
            assert "0 errors" in _read_until(process, "Watching for changes")
            greet = project / "src/greet.py"
            greet.write_text(GREETER.replace("Greet someone.", "Greet someone warmly."))
            assert "0 errors" in _read_until(process, "Watching for changes")
            written = _files(project / "dist")
            assert b"Greet someone warmly." in written["tools/greet/tool.json"]
            assert written == _fresh_dist(project, tmp_path / "fresh")

            greet.write_text(GREETER.replace("class Greet(Tool):", "class Greet(Tool)"))
            broken = _read_until(process, "Watching for changes")
            assert "error[skill/syntax-error]" in broken and "dist/ not written" in broken.replace("\n", " ")
            assert _files(project / "dist") == written

            greet.write_text(GREETER)
            assert "0 errors" in _read_until(process, "Watching for changes")
            assert _files(project / "dist") == _fresh_dist(project, tmp_path / "fresh")
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=30) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=30)
