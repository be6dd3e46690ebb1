"""What ``skill`` loads when it starts: each command only what it uses.

The modules a command imported are read from Python's own ``-X importtime`` report
(``PYTHONPROFILEIMPORTTIME``) of a real ``skill`` process; no time is asserted, only
which modules were loaded.  Also here: the command line builds only the command it is
given, yet help and typos still see every command; a plain ``skill test`` or ``skill
serve`` command line is parsed without typer, exactly as typer parses it; and the
consoles print what tools say as it was written; and a Ctrl-C while the command line is
still loading ends it as an interrupted command, without a traceback.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import signal
import subprocess
import typing
from pathlib import Path
from typing import Any

import pytest
import typer
from helpers import AGENT, SKILL, RunSkill, write_project
from skillc.cli import commands
from skillc.cli.quick import parse_plain
from skillc.cli.typer_commands import typer_command
from skillc.templates import scaffold_project

#: What parses a command line that ``commands.quick_call`` does not take.
TYPER = ("typer", "click", "skillc.cli.app", "skillc.cli.typer_commands", "skillc.cli.data")

#: Top-level packages (and skillc modules) that no ``skill test`` of a current dist/ needs.
NOT_FOR_SKILL_TEST = (
    *TYPER,
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
    # The chat side of the runtime: the agent loop, its models and threads.
    "skillc.runtime.agent",
    "skillc.runtime.models",
    "skillc.runtime.providers",
    "skillc.runtime.openai_chat",
    "skillc.runtime.offline",
    "skillc.runtime.threads",
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
    # The sources changed, so dist/ is written again (the link may be reused: only a comment changed).
    assert loaded_any(imported(result.stderr), ("skillc.compiler.emit",)) == ["skillc.compiler.emit"]


def test_serve_print_config_loads_no_server(skill: RunSkill, demo: Path) -> None:
    result = skill("serve", str(demo), "--print-config", "claude-code", env=IMPORT_REPORT)
    assert result.code == 0, result.stderr
    assert result.stdout.startswith("claude mcp add ")
    assert loaded_any(imported(result.stderr), ("mcp", "uvicorn", "starlette", "libcst", *TYPER)) == []


def test_a_command_line_that_is_not_plain_is_typer_s_and_gives_the_same_answer(skill: RunSkill, demo: Path) -> None:
    plain = ["test", "--name", "lookup_order", "--input", '{"order_id": "A1001"}', "--json"]
    quick = skill(*plain, "-e", "production", cwd=demo, env=IMPORT_REPORT)
    # A short option joined to its value: not plain, so click parses it.
    combined = skill(*plain, "-eproduction", cwd=demo, env=IMPORT_REPORT)
    assert (quick.code, combined.code) == (0, 0), quick.stderr + combined.stderr
    answers = [json.loads(result.stdout) for result in (quick, combined)]
    for answer in answers:
        del answer["duration_ms"]
    assert answers[0] == answers[1]
    assert answers[0]["is_error"] is False
    assert loaded_any(imported(quick.stderr), TYPER) == []
    assert loaded_any(imported(combined.stderr), ("typer",)) == ["typer"]


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["test", "--help"], 0, "Usage: skill test [OPTIONS] [project]"),
        (["test", "-h"], 0, "--skip-condition                Run the tool even if its condition hides it."),
        (["test", "--nope"], 2, "No such option: --nope"),
        (["test", "--name"], 2, "Option '--name' requires an argument."),
        (["test", "-e", "staging"], 2, "Invalid value for '-e' / '--environment': 'staging' is not one of"),
        (["test", "--json=yes"], 2, "Option '--json' does not take a value."),
        (["test", "a", "b"], 2, "Got unexpected extra argument(s) (b)"),
        (["serve", "--port", "eighty"], 2, "Invalid value for '--port': 'eighty' is not a valid int."),
        (["serve", "--help"], 0, "--print-config"),
        (["--version", "test"], 0, "skill "),
    ],
)
def test_help_and_usage_errors_of_the_quick_commands_are_typer_s(
    skill: RunSkill, tmp_path: Path, args: list[str], code: int, says: str
) -> None:
    result = skill(*args, cwd=tmp_path)
    assert result.code == code, result.stderr
    assert says in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def _probe(command: Any) -> Any:
    """A command declared as ``command`` is, whose body returns the values it is called with."""

    def probe(**values: Any) -> dict[str, Any]:
        return values

    probe.__signature__ = inspect.signature(command)  # type: ignore[attr-defined]
    probe.__annotations__ = typing.get_type_hints(command, include_extras=True)
    return probe


def _typer_values(probe: Any, args: list[str]) -> dict[str, Any]:
    one = typer.Typer(add_completion=False)
    one.command()(typer_command(probe))
    values: dict[str, Any] = typer.main.get_command(one).main(args=args, prog_name="skill", standalone_mode=False)
    return values


PLAIN_LINES = {
    "compile": [
        [],
        ["proj"],
        ["--format", "json", "--watch", "sub/dir"],
        ["--out", "build/out", "--check", "--allow-import", "--format=text"],
        ["--verify", "--out=o", "--out", "p", "."],
    ],
    "test": [
        [],
        ["--name", "lookup_order", "--input", '{"order_id": "A1001"}'],
        ["proj", "--name=lookup_order", "--input=", "--json", "--json"],
        ["--name", "a", "--name", "b", "-e", "production", "--environment=sandbox", "sub/dir"],
        ["--skip-condition", "--approve", "--user", "{}", "--session", '{"s": 1}', "--state", "{}", "--result", "3"],
        ["--input", '"-5"', "--name", ""],
        ["--input=-5", "--name=--json"],
    ],
    "serve": [
        [],
        ["proj", "--transport", "http", "--host", "0.0.0.0", "--port", "8080", "--path", "/x", "--workers", "3"],
        ["--print-config", "claude-code", "-e", "production", "--approve"],
        ["--port=0", "--workers", "007"],
    ],
}

#: Lines only typer parses: help, errors, and what click reads in a way of its own.
NOT_PLAIN_LINES = {
    "compile": [["--help"], ["--format", "yaml"], ["--format", "JSON"], ["--watch=1"], ["--out"], ["a", "b"], [""]],
    "test": [
        ["--help"],
        ["-h"],
        ["--nope"],
        ["--name"],
        ["--name", "--json"],
        ["--input", "-5"],
        ["-eproduction"],
        ["-e=sandbox"],
        ["-e", "Sandbox"],
        ["--json=1"],
        ["a", "b"],
        [""],
        ["--", "proj"],
        ["-"],
    ],
    "serve": [["--port", "0x10"], ["--port", "-1"], ["--workers", "+2"], ["--transport", "sse"], ["--print-config"]],
}


@pytest.mark.parametrize("name", sorted(commands.QUICK_COMMANDS))
def test_the_plain_parse_gives_what_typer_gives(name: str) -> None:
    probe = _probe(commands.QUICK_COMMANDS[name])
    for args in PLAIN_LINES[name]:
        plain, typed = parse_plain(probe, args), _typer_values(probe, args)
        assert plain is not None, args
        # The types too: a str-valued enum member equals its value.
        assert [(key, type(value), value) for key, value in plain.items()] == [
            (key, type(value), value) for key, value in typed.items()
        ], args
    for args in NOT_PLAIN_LINES[name]:
        assert parse_plain(probe, args) is None, args


def test_only_plain_lines_of_quick_commands_skip_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(commands.settings, "debug", False)
    assert commands.quick_call(["--debug", "test", "--json"]) is not None
    assert commands.settings.debug is True
    for args in (["--version", "test"], ["-h", "test"], ["chat", "--json"], ["tset"], [], ["--debug"]):
        assert commands.quick_call(args) is None, args
    monkeypatch.setenv("_SKILL_COMPLETE", "bash_source")  # shell completion is typer's
    assert commands.quick_call(["test"]) is None


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


@pytest.mark.parametrize(
    "loaded",
    ["skillc.cli.entry", "skillc.contracts.errors", "skillc.cli.commands", "skillc.cli.main", "skillc.compiler.api"],
)
def test_a_ctrl_c_while_the_command_line_loads_is_an_interruption(tmp_path: Path, loaded: str) -> None:
    """SIGINT right after ``loaded`` was imported: ``interrupted``, exit 130, and no traceback.

    The import report on standard error says how far the process got, so the signal lands
    while the rest of the command line is still being imported.
    """
    scaffold_project(Path("demo"), cwd=tmp_path)
    environment = {**os.environ, **IMPORT_REPORT}
    with subprocess.Popen(
        [str(SKILL), "compile"],
        cwd=tmp_path / "demo",
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stderr is not None
        report: list[str] = []
        for line in process.stderr:
            report.append(line)
            if (match := _IMPORTED.match(line.rstrip("\n"))) and match[1] == loaded:
                process.send_signal(signal.SIGINT)
                break
        else:
            pytest.fail(f"{loaded} was never imported:\n{''.join(report)}")
        rest = process.stderr.read()
        code = process.wait(timeout=60)
    said = [line for line in rest.splitlines() if not _IMPORTED.match(line)]
    assert (code, said) == (130, ["interrupted"]), rest
