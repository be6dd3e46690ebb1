"""The command line's surface: help, version, unbuilt commands, and error reporting."""

from __future__ import annotations

import re

import pytest
from helpers import RunSkill
from skillc import __version__
from skillc.cli import main as cli_main
from skillc.cli.app import app


def test_help_lists_the_commands_with_one_line_each(skill: RunSkill) -> None:
    result = skill("--help")
    assert result.code == 0
    commands = re.findall(r"^  (\w+)\s+(.+)$", result.stdout.split("Commands:")[1], re.M)
    assert commands == [
        ("init", "Create a new agent project from the template."),
        ("compile", "Check the project statically and build its per-tool bundles."),
        ("test", "Run one tool from its compiled bundle, as a model's call would."),
        ("chat", "Talk to the agent through a model, running its tool calls."),
        ("serve", "Serve the compiled tools over MCP (Model Context Protocol)."),
        ("data", "Look at and change the documents tools keep in ctx.data."),
    ]
    assert "--version" in result.stdout and "--debug" in result.stdout


def test_no_arguments_shows_help_and_exits_2(skill: RunSkill) -> None:
    result = skill()
    assert result.code == 2
    assert "Usage: skill [OPTIONS] COMMAND" in result.stdout + result.stderr


def test_version(skill: RunSkill) -> None:
    result = skill("--version")
    assert (result.code, result.stdout) == (0, f"skill {__version__}\n")


def test_unknown_option_is_a_usage_error(skill: RunSkill) -> None:
    result = skill("init", "demo", "--nope")
    assert result.code == 2
    assert "No such option: --nope" in result.stderr
    assert "Traceback" not in result.stderr


def _boom() -> None:
    raise RuntimeError("kaboom")


@pytest.fixture
def broken_command() -> object:
    """Register a command that fails with an unexpected error, for one test."""
    app.command(name="boom")(_boom)
    yield
    app.registered_commands.pop()


@pytest.mark.usefixtures("broken_command")
def test_an_unexpected_error_is_one_line_without_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.run(["boom"]) == cli_main.EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: kaboom" in err
    assert "Run it again as `skill --debug ...`" in err
    assert "Traceback" not in err


@pytest.mark.usefixtures("broken_command")
def test_debug_shows_the_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.run(["--debug", "boom"]) == cli_main.EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" in err and "kaboom" in err
