"""Third-party imports are matched to declared distributions by the installed metadata.

A distribution's import name need not be its own (``import yaml`` comes from PyYAML): the
metadata of what is installed where the compiler runs says which distribution provides
an import, and a compile's cached results are redone when that metadata changes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from helpers import SKILL, run_command, write_project

AGENT = """\
from skillc import Agent, Skill, tool


@tool
def parse(text: str) -> str:
    \"\"\"Parse the text.\"\"\"
    import fakeyaml

    return fakeyaml.load(text)


agent = Agent(name="a", skills=[Skill(name="s", tools=[parse])])
"""
PYPROJECT = """\
[project]
name = "example"
version = "0.1.0"
dependencies = ["skillc", "PyFakeYAML>=1"]

[tool.skill]
entry = "src/agent.py"
"""


def _installed(site: Path) -> Path:
    """A distribution named PyFakeYAML whose import name is ``fakeyaml``, as pip installs one."""
    (site / "fakeyaml").mkdir(parents=True)
    (site / "fakeyaml" / "__init__.py").write_text("def load(text):\n    return text\n")
    metadata = site / "PyFakeYAML-1.0.dist-info"
    metadata.mkdir()
    (metadata / "METADATA").write_text("Metadata-Version: 2.1\nName: PyFakeYAML\nVersion: 1.0\n")
    (metadata / "top_level.txt").write_text("fakeyaml\n")
    return site


def test_a_declared_distribution_provides_its_import_name_once_it_is_installed(tmp_path: Path) -> None:
    """Not installed, nothing says PyFakeYAML provides ``fakeyaml``: a warning.  Installed
    (here: on PYTHONPATH) after that compile was cached, the compile is redone, and the
    declared requirement covers the import."""
    project = write_project(tmp_path / "project", {"agent.py": AGENT}, PYPROJECT)
    site = _installed(tmp_path / "site")

    missing = run_command([str(SKILL), "compile", "--format", "json"], project)
    assert missing.code == 0, missing.stderr
    codes = [(item["code"], item["line"]) for item in json.loads(missing.stdout)["diagnostics"]]
    assert codes == [("skill/undeclared-dependency", 7)]

    found = run_command([str(SKILL), "compile", "--format", "json"], project, {"PYTHONPATH": str(site)})
    assert found.code == 0, found.stderr
    assert json.loads(found.stdout)["diagnostics"] == []
    manifest = json.loads((project / "dist" / "manifest.json").read_text())
    assert manifest["tools"][0]["requirements"] == ["PyFakeYAML>=1", "skillc"]

    called = run_command(
        [str(SKILL), "test", "--name", "parse", "--input", '{"text": "a: 1"}', "--json"],
        project,
        {"PYTHONPATH": str(site)},
    )
    assert called.code == 0, called.stdout + called.stderr
    assert json.loads(called.stdout)["output"] == "a: 1"


def test_an_undeclared_import_is_named_by_its_installed_distribution_once(tmp_path: Path) -> None:
    """Two tools import ``fakeyaml`` (and its submodule); nothing is declared: one warning,
    naming PyFakeYAML, the distribution that provides it."""
    two = AGENT.replace(
        'agent = Agent(name="a", skills=[Skill(name="s", tools=[parse])])',
        '@tool\ndef dump(text: str) -> str:\n    """Dump the text."""\n    import fakeyaml.dumper\n\n    return text\n\n\n'
        'agent = Agent(name="a", skills=[Skill(name="s", tools=[parse, dump])])',
    )
    project = write_project(tmp_path / "project", {"agent.py": two}, PYPROJECT.replace(', "PyFakeYAML>=1"', ""))
    site = _installed(tmp_path / "site")
    (site / "fakeyaml" / "dumper.py").write_text("")
    result = run_command([str(SKILL), "compile", "--format", "json"], project, {"PYTHONPATH": str(site)})
    assert result.code == 0, result.stderr
    found = [
        (item["code"], item["line"], item["message"], item["hint"]) for item in json.loads(result.stdout)["diagnostics"]
    ]
    assert found == [
        (
            "skill/undeclared-dependency",
            7,
            "'fakeyaml' is imported but its distribution 'PyFakeYAML' is not declared in [project] dependencies",
            "add 'PyFakeYAML' to [project] dependencies in pyproject.toml",
        )
    ]


def test_the_skill_script_and_python_m_agree_that_dist_is_up_to_date(tmp_path: Path) -> None:
    """``python -m`` puts the current folder on ``sys.path``; a folder without installed
    distributions does not change what compiled results depend on."""
    project = write_project(tmp_path / "project", {"agent.py": AGENT}, PYPROJECT.replace(', "PyFakeYAML>=1"', ""))
    first = run_command([str(SKILL), "compile"], project)
    assert first.code == 0, first.stderr
    again = run_command([sys.executable, "-m", "skillc.cli", "compile"], project)
    assert again.code == 0, again.stderr
    assert "dist/ is up to date" in again.stdout + again.stderr
