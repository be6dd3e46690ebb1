"""What ``skill`` loads when it starts: each command only what it uses.

The modules a command imported are read from Python's own ``-X importtime`` report
(``PYTHONPROFILEIMPORTTIME``) of a real ``skill`` process; no time is asserted, only
which modules were loaded.  Also here: the command line builds only the command it is
given, yet help and typos still see every command; and the consoles print what tools
say as it was written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import AGENT, RunSkill, write_project
from skillc.templates import scaffold_project

#: Top-level packages (and skillc modules) that no ``skill test`` of a current dist/ needs.
NOT_FOR_SKILL_TEST = (
    "libcst",
    "jinja2",
    "openai",
    "mcp",
    "uvicorn",
    "starlette",
    "psycopg",
    "jsonschema",
    "skillc.compiler.link",
    "skillc.compiler.artifacts",
    "skillc.compiler.emit",
    "skillc.templates",
    "skillc.serve.server",
    "skillc.serve.http",
    "skillc.serve.stdio",
    "skillc.cli.chat",
    "skillc.cli.serve",
)

_IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \| *(\S+)$")


def imported(stderr: str) -> set[str]:
    """The modules an ``-X importtime`` report on standard error says were imported."""
    return {match[1] for line in stderr.splitlines() if (match := _IMPORTED.match(line))}


def loaded_any(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """Those of ``names`` that ``modules`` holds, as themselves or through a submodule."""
    return sorted(name for name in names if any(module == name or module.startswith(name + ".") for module in modules))


IMPORT_REPORT = {"PYTHONPROFILEIMPORTTIME": "1"}


@pytest.fixture
def demo(tmp_path: Path, skill: RunSkill) -> Path:
    """The template project, compiled: its ``dist/`` is current."""
    scaffold_project(Path("demo"), cwd=tmp_path)
    compiled = skill("compile", cwd=tmp_path / "demo")
    assert compiled.code == 0, compiled.stderr
    return tmp_path / "demo"


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_skill_test_of_a_current_dist_loads_no_compiler_stage_and_no_other_command(
    skill: RunSkill, demo: Path, as_json: bool
) -> None:
    args = ["test", "--name", "lookup_order", "--input", '{"order_id": "A1001"}', *(["--json"] if as_json else [])]
    result = skill(*args, cwd=demo, env=IMPORT_REPORT)
    assert result.code == 0, result.stderr
    if as_json:
        assert json.loads(result.stdout)["is_error"] is False
    else:
        assert "Tool execution successful" in result.stdout
    modules = imported(result.stderr)
    assert "skillc.runtime.loader" in modules  # the report is read as it should be
    assert loaded_any(modules, NOT_FOR_SKILL_TEST) == []
    # Text is drawn with rich; a JSON answer needs none of it.
    assert loaded_any(modules, ("rich",)) == ([] if as_json else ["rich"])


def test_a_stale_dist_is_compiled_first_with_the_compiler_stages(skill: RunSkill, demo: Path) -> None:
    tool = demo / "src/skills/tools/lookup_order.py"
    tool.write_text(tool.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    result = skill("test", "--name", "lookup_order", "--input", '{"order_id": "A1001"}', cwd=demo, env=IMPORT_REPORT)
    assert result.code == 0, result.stderr
    assert loaded_any(imported(result.stderr), ("skillc.compiler.link", "libcst")) != []


def test_serve_print_config_loads_no_server(skill: RunSkill, demo: Path) -> None:
    result = skill("serve", str(demo), "--print-config", "claude-code", env=IMPORT_REPORT)
    assert result.code == 0, result.stderr
    assert result.stdout.startswith("claude mcp add ")
    assert loaded_any(imported(result.stderr), ("mcp", "uvicorn", "starlette", "libcst")) == []


def test_the_root_options_and_help_still_see_every_command(skill: RunSkill, tmp_path: Path) -> None:
    listed = skill("--help")
    assert listed.code == 0
    for name in ("init", "compile", "test", "chat", "serve", "data"):
        assert re.search(rf"^\s+{name}\s", listed.stdout, re.MULTILINE), name
    typo = skill("tset")
    assert typo.code == 2
    assert "No such command 'tset'. Did you mean 'test'?" in typo.stderr
    write_project(tmp_path / "p", {"agent.py": AGENT})
    ran = skill("--debug", "test", "--name", "ping", "--input", '{"text": "hi"}', "--json", cwd=tmp_path / "p")
    assert ran.code == 0, ran.stderr
    assert json.loads(ran.stdout)["output"] == "hi"
    version = skill("--version", "test")
    assert version.code == 0 and version.stdout.startswith("skill ")


def test_emoji_codes_in_a_result_are_shown_as_written(skill: RunSkill, tmp_path: Path) -> None:
    agent = AGENT.replace("return text", 'return text + " :thumbs_up:"')
    write_project(tmp_path / "p", {"agent.py": agent})
    result = skill("test", "--name", "ping", "--input", '{"text": ":smile:"}', cwd=tmp_path / "p")
    assert result.code == 0, result.stderr
    assert 'Input: {"text": ":smile:"}' in result.stdout
    assert result.stdout.splitlines()[-2:] == ["Result: text", ":smile: :thumbs_up:"]
