"""Third-party imports are matched to declared distributions by the installed metadata.

A distribution's import name need not be its own (``import yaml`` comes from PyYAML): the
metadata of what is installed where the compiler runs says which distribution provides
an import, and a compile's cached results are redone when that metadata changes.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest
from helpers import SKILL, RunSkill, run_command, write_project
from skillc.compiler.api import compile_project

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


_TOOL = '''
@tool
def forecast(city: str) -> str:
    """Tell the weather."""
{body}
'''
#: A tool module: ``{imports}`` at the top, ``{body}`` in the tool's function.
_TOOLS = "from typing import TYPE_CHECKING\n\nfrom skillc import tool\n{imports}\n" + _TOOL
_AGENT_OF = (
    "from skillc import Agent, Skill\n\nfrom tools import {names}\n\n"
    'agent = Agent(name="a", skills=[Skill(name="s", tools=[{names}])])\n'
)
_RETURN = "    return city\n"


def _tools(imports: str = "", body: str = _RETURN) -> str:
    return _TOOLS.format(imports=imports, body=body)


#: name -> (files under src/ besides agent.py, the tools the agent lists, what compiling reports:
#: (code, path, line, column)).  ``weatherlib`` is declared and installed nowhere.
MISSING_CASES: dict[str, tuple[dict[str, str], str, list[tuple[str, str, int, int]]]] = {
    "imported at the top": (
        {"tools.py": _tools("import weatherlib\n")},
        "forecast",
        [("skill/dependency-not-installed", "src/tools.py", 4, 7)],
    ),
    "imported in the function": (
        {"tools.py": _tools(body="    import weatherlib.api\n\n    return weatherlib.api.today(city)\n")},
        "forecast",
        [("skill/dependency-not-installed", "src/tools.py", 9, 11)],
    ),
    "from-imported": (
        {"tools.py": _tools("from weatherlib.api import today\n")},
        "forecast",
        [("skill/dependency-not-installed", "src/tools.py", 4, 27)],
    ),
    "in a try that catches another error": (
        {
            "tools.py": _tools(
                body="    try:\n        import weatherlib\n    except ValueError:\n        pass\n" + _RETURN
            )
        },
        "forecast",
        [("skill/dependency-not-installed", "src/tools.py", 10, 15)],
    ),
    "in a try that only says it better": (
        {
            "tools.py": _tools(
                body="    try:\n        import weatherlib\n    except ImportError as error:\n"
                '        raise ImportError("pip install weatherlib") from error\n' + _RETURN
            )
        },
        "forecast",
        [("skill/dependency-not-installed", "src/tools.py", 10, 15)],
    ),
    "an optional import at the top": (
        {"tools.py": _tools("try:\n    import weatherlib\nexcept ImportError:\n    weatherlib = None\n")},
        "forecast",
        [],
    ),
    "an optional import in the function": (
        {
            "tools.py": _tools(
                body="    try:\n        import weatherlib\n    except (ValueError, ModuleNotFoundError):\n"
                "        return city\n" + _RETURN
            )
        },
        "forecast",
        [],
    ),
    "caught by a bare except": (
        {"tools.py": _tools("try:\n    import weatherlib\nexcept:\n    weatherlib = None\n")},
        "forecast",
        [],
    ),
    "caught by except Exception": (
        {"tools.py": _tools("try:\n    from weatherlib import today\nexcept Exception:\n    today = None\n")},
        "forecast",
        [],
    ),
    "for type checkers only": (
        {"tools.py": _tools("if TYPE_CHECKING:\n    import weatherlib\n")},
        "forecast",
        [],
    ),
    "in a module the tool imports as an optional one": (
        {
            "tools.py": _tools("try:\n    import fast\nexcept ImportError:\n    fast = None\n"),
            "fast.py": "import weatherlib\n",
        },
        "forecast",
        [],
    ),
    "in a module the tool also imports unguarded": (
        {
            "tools.py": _tools("try:\n    import fast\nexcept ImportError:\n    fast = None\nimport helpers\n"),
            "fast.py": "import weatherlib\n",
            "helpers.py": "import fast\n",
        },
        "forecast",
        [("skill/dependency-not-installed", "src/fast.py", 1, 7)],
    ),
    "shared by two tools": (
        {
            "tools.py": _tools("from shared import weatherlib\n")
            + _TOOL.replace("forecast", "alert").format(body=_RETURN),
            "shared.py": "import weatherlib\n",
        },
        "forecast, alert",
        [("skill/dependency-not-installed", "src/shared.py", 1, 7)],
    ),
    "a declared package that is installed": (
        {"tools.py": _tools("import rich\n")},
        "forecast",
        [],
    ),
}


@pytest.mark.parametrize("case", sorted(MISSING_CASES))
def test_a_declared_package_the_tool_needs_and_cannot_import_here_is_a_warning(tmp_path: Path, case: str) -> None:
    files, names, expected = MISSING_CASES[case]
    pyproject = PYPROJECT.replace('"PyFakeYAML>=1"', '"weatherlib>=2", "rich>=13"')
    project = write_project(tmp_path, {"agent.py": _AGENT_OF.format(names=names), **files}, pyproject)
    report = compile_project(project, use_cache=False)
    assert [(d.code, d.path, d.line, d.col) for d in report.diagnostics] == expected, report.diagnostics
    assert report.ok and report.dist == "written"
    manifest = json.loads((project / "dist" / "manifest.json").read_text())
    if case != "for type checkers only":  # an import that never runs is no requirement
        wanted = "rich>=13" if case == "a declared package that is installed" else "weatherlib>=2"
        assert all(wanted in tool["requirements"] for tool in manifest["tools"]), manifest["tools"]


def test_the_warning_says_what_fails_and_what_to_install(tmp_path: Path) -> None:
    pyproject = PYPROJECT.replace('"PyFakeYAML>=1"', '"weatherlib >= 2"')
    project = write_project(
        tmp_path, {"agent.py": _AGENT_OF.format(names="forecast"), "tools.py": _tools("import weatherlib\n")}, pyproject
    )
    compiled = run_command([str(SKILL), "compile", "--format", "json"], project)
    assert compiled.code == 0, compiled.stderr
    [warning] = json.loads(compiled.stdout)["diagnostics"]
    assert (warning["severity"], warning["message"], warning["hint"]) == (
        "warning",
        "'weatherlib' (declared in [project] dependencies) is imported whenever the tool runs, "
        "but no installed package provides it: the tool cannot run in this environment",
        "install the project's dependencies where skill runs (pip install 'weatherlib >= 2'); "
        "a dist/ deployed elsewhere needs them there",
    )
    shown = run_command([str(SKILL), "compile"], project)
    assert shown.code == 0, shown.stderr
    assert "src/tools.py:4:8: warning[skill/dependency-not-installed]" in shown.stdout + shown.stderr
    called = run_command([str(SKILL), "test", "--name", "forecast", "--input", '{"city": "Oslo"}'], project)
    assert called.code == 1
    assert "No module named 'weatherlib'" in called.stdout


def test_an_undeclared_package_that_is_not_installed_either_says_both(tmp_path: Path) -> None:
    project = write_project(
        tmp_path, {"agent.py": _AGENT_OF.format(names="forecast"), "tools.py": _tools("import weatherlib\n")}
    )
    report = compile_project(project, use_cache=False)
    assert [(d.code, d.line, d.message) for d in report.diagnostics] == [
        (
            "skill/undeclared-dependency",
            4,
            "'weatherlib' is imported but not declared in [project] dependencies, "
            "and no installed package provides it: the tool cannot run here",
        )
    ]


_GATED_AGENT = (
    "from skillc import Agent, Skill\n\nfrom gates import weather_ready\nfrom tools import forecast\n\n"
    'agent = Agent(name="a", skills=[Skill(name="s", tools=[forecast], condition=weather_ready)])\n'
)
_GATES = "import weatherlib\n\n\ndef weather_ready() -> bool:\n    return weatherlib.ready()\n"


@pytest.mark.parametrize("declared", [True, False])
def test_a_package_a_skills_condition_needs_is_checked_as_a_tools_is(
    tmp_path: Path, skill: RunSkill, declared: bool
) -> None:
    """A condition whose module cannot import hides its skill on every turn: the compile says so first."""
    pyproject = PYPROJECT.replace('"PyFakeYAML>=1"', '"weatherlib>=2"') if declared else PYPROJECT
    project = write_project(tmp_path, {"agent.py": _GATED_AGENT, "gates.py": _GATES, "tools.py": _tools()}, pyproject)
    report = compile_project(project, use_cache=False)
    runner = "the condition() of skill 's'"
    message = (
        f"'weatherlib' (declared in [project] dependencies) is imported whenever {runner} runs, but no installed "
        f"package provides it: {runner} cannot run in this environment"
        if declared
        else "'weatherlib' is imported but not declared in [project] dependencies, and no installed package "
        f"provides it: {runner} cannot run here"
    )
    code = "skill/dependency-not-installed" if declared else "skill/undeclared-dependency"
    assert [(d.code, d.path, d.line, d.col, d.message) for d in report.diagnostics] == [
        (code, "src/gates.py", 1, 7, message)
    ]
    offered = skill(
        "chat", "-m", "/tools", cwd=project, env={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "SKILL_MODEL": ""}
    )
    assert "skill 's' is hidden this turn: its code cannot be loaded" in offered.stderr, offered.stderr
    assert "No module named 'weatherlib'" in offered.stderr


def test_a_condition_in_a_tools_module_is_reported_once(tmp_path: Path) -> None:
    gated = _tools("import weatherlib\n") + "\n\ndef weather_ready() -> bool:\n    return weatherlib.ready()\n"
    agent = _GATED_AGENT.replace("from gates import weather_ready", "from tools import weather_ready")
    pyproject = PYPROJECT.replace('"PyFakeYAML>=1"', '"weatherlib>=2"')
    project = write_project(tmp_path, {"agent.py": agent, "tools.py": gated}, pyproject)
    report = compile_project(project, use_cache=False)
    assert [(d.code, d.path, d.line) for d in report.diagnostics] == [
        ("skill/dependency-not-installed", "src/tools.py", 4)
    ]


def test_a_missing_package_that_a_declared_one_requires_is_named_with_it(tmp_path: Path) -> None:
    """PyFakeYAML is declared and installed; it requires fakeh11, which is not installed."""
    site = _installed(tmp_path / "site")
    metadata = site / "PyFakeYAML-1.0.dist-info" / "METADATA"
    metadata.write_text(metadata.read_text() + "Requires-Dist: fakeh11>=1\n")
    project = write_project(
        tmp_path / "project",
        {"agent.py": _AGENT_OF.format(names="forecast"), "tools.py": _tools("import fakeyaml\nimport fakeh11\n")},
        PYPROJECT,
    )
    result = run_command([str(SKILL), "compile", "--format", "json"], project, {"PYTHONPATH": str(site)})
    assert result.code == 0, result.stderr
    assert [(item["code"], item["line"], item["message"]) for item in json.loads(result.stdout)["diagnostics"]] == [
        (
            "skill/dependency-not-installed",
            5,
            "'fakeh11' (declared as 'PyFakeYAML>=1' in [project] dependencies) is imported whenever the tool runs, "
            "but no installed package provides it: the tool cannot run in this environment",
        )
    ]


_EMAIL_TOOLS = _tools(
    "from pydantic import BaseModel, EmailStr\n\n\nclass Person(BaseModel):\n    email: EmailStr\n",
    body="    return Person(email=city).email\n",
)


@pytest.mark.parametrize("installed", [False, True])
def test_emailstr_needs_email_validator_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, installed: bool
) -> None:
    """A model with an ``EmailStr`` field imports ``email_validator`` when its class is made:
    without it, every tool of the module fails to load.  (``sys.modules`` says here whether
    the environment has it: ``None`` there is Python's own way of refusing an import.)"""
    monkeypatch.setitem(sys.modules, "email_validator", types.ModuleType("email_validator") if installed else None)
    project = write_project(tmp_path, {"agent.py": _AGENT_OF.format(names="forecast"), "tools.py": _EMAIL_TOOLS})
    report = compile_project(project, use_cache=False)
    found = [(d.code, d.line, d.col, d.message, d.hint) for d in report.diagnostics]
    assert found == (
        []
        if installed
        else [
            (
                "skill/dependency-not-installed",
                4,
                32,
                "EmailStr needs 'email_validator', which no installed package provides ('pydantic[email]' brings it): "
                "the tool cannot run in this environment",
                "declare 'pydantic[email]' in [project] dependencies and install it where skill runs "
                "(pip install 'pydantic[email]')",
            )
        ]
    )


def test_an_optional_emailstr_needs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "email_validator", None)
    tools = _tools("try:\n    from pydantic import EmailStr\nexcept ImportError:\n    EmailStr = str\n")
    project = write_project(tmp_path, {"agent.py": _AGENT_OF.format(names="forecast"), "tools.py": tools})
    assert compile_project(project, use_cache=False).diagnostics == ()
