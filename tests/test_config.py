"""Finding and reading ``[tool.skill]``: walking up, defaults, and every refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import DEFAULT_PYPROJECT, RunSkill, write_project, write_tree
from skillc.compiler.config import locate_config, read_config
from skillc.contracts.errors import ConfigError

AGENT = 'from skillc import Agent\nagent = Agent(name="a")\n'


def test_config_is_found_by_walking_up_with_defaults(tmp_path: Path) -> None:
    write_project(tmp_path, {"agent.py": AGENT, "skills/x.py": ""})
    config = read_config(locate_config(tmp_path / "src/skills"))
    assert config.root == tmp_path.resolve()
    assert config.entry == tmp_path.resolve() / "src/agent.py"
    assert config.src == tmp_path.resolve() / "src"
    assert config.out == tmp_path.resolve() / "dist"
    assert config.schema == "static" and config.warnings == ()


def test_a_nested_pyproject_without_the_table_is_skipped(tmp_path: Path) -> None:
    write_project(tmp_path, {"agent.py": AGENT})
    write_tree(tmp_path, {"src/vendored/pyproject.toml": "[project]\nname = 'x'\n"})
    assert locate_config(tmp_path / "src/vendored") == tmp_path.resolve() / "pyproject.toml"


def test_unknown_keys_are_warnings_at_their_line(tmp_path: Path) -> None:
    write_project(tmp_path, {"agent.py": AGENT}, DEFAULT_PYPROJECT + 'entyr = "typo"\n')
    (warning,) = read_config(tmp_path / "pyproject.toml").warnings
    assert (warning.code, warning.severity.value, warning.path, warning.line, warning.col) == (
        "skill/unknown-config-key",
        "warning",
        "pyproject.toml",
        8,
        0,
    )
    assert warning.message == "unknown key 'entyr' in [tool.skill]"


@pytest.mark.parametrize(
    ("pyproject", "message"),
    [
        ("[tool.skill\n", "is not valid TOML"),
        ("[tool.skill]\nentry = 3\n", "[tool.skill] entry must be a non-empty string path"),
        ('[tool.skill]\nentry = "elsewhere/agent.py"\n', "must be a file inside src (src)"),
        ('[tool.skill]\nentry = "src/agent.txt"\n', "entry must be a .py file"),
        ('[tool.skill]\nsrc = "../outside"\n', "src must be inside the project"),
        ('[tool.skill]\nout = "src"\n', "out must be a folder of its own"),
        ('[tool.skill]\nschema = "magic"\n', 'schema must be "static" or "import"'),
        ("[tool.skill]\nchat = 1\n", "[tool.skill.chat] must be a table"),
        ("tool = 1\n[tool.skill]\n", "is not valid TOML"),
    ],
)
def test_malformed_configuration_is_refused(tmp_path: Path, pyproject: str, message: str) -> None:
    write_project(tmp_path, {"agent.py": AGENT}, pyproject)
    with pytest.raises(ConfigError) as caught:
        read_config(locate_config(tmp_path))
    assert message in str(caught.value)


def test_a_project_without_the_table_says_how_to_add_it(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n"})
    with pytest.raises(ConfigError, match=r"has no \[tool\.skill\] table") as caught:
        locate_config(tmp_path)
    assert caught.value.hint is not None and "entry" in caught.value.hint


@pytest.mark.parametrize(
    ("setup", "args", "stderr"),
    [
        (None, ["compile"], "no pyproject.toml with a [tool.skill] table in"),
        ({"pyproject.toml": "[tool.skill\n"}, ["compile"], "pyproject.toml is not valid TOML: "),
        (None, ["compile", "missing-folder"], "missing-folder does not exist"),
    ],
)
def test_compile_exits_2_on_configuration_errors(
    skill: RunSkill, tmp_path: Path, setup: dict[str, str] | None, args: list[str], stderr: str
) -> None:
    if setup:
        write_tree(tmp_path, dict(setup))
    result = skill(*args)
    assert result.code == 2
    assert result.stderr.startswith("error: ") and stderr in result.stderr
    assert "Traceback" not in result.stderr
