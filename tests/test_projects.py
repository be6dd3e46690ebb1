"""Data-driven compiler cases: every folder of ``tests/projects/`` is a project and its expectation.

Each case folder holds a ``pyproject.toml``, a ``src/`` tree and an ``expected.json``::

    {
      "diagnostics": ["src/tools.py:10:12: error[skill/invalid-tool-name]", ...],
      "tools": [["lookup", "orders", "class", "src/tools.py:9"], ...],
      "settings": {"lookup": {"timeout": 10.0}},            optional, a subset per tool
      "tool_descriptions": {"lookup": "Look up an order."},  optional, a subset
      "skill_descriptions": {"orders": "Orders."},           optional, a subset
      "skills": [["orders", "src/agent.py:5"], ...],          optional, all skills in order
      "symlinks": {"src/skills/again": ".."},                optional, made in the copy
      "calls": [{"tool": "lookup", "input": {"id": "A1"},    optional: each is run from the
                 "output": "...", "error_type": null}],       bundle by `skill test --json`
                                                              ("result": a client-side tool's --result)
      "xfail": "why the compiler does not do this yet"        optional
    }

A diagnostic is ``path:line:column: severity[code]`` with the JSON report's 1-based
``line`` and ``column``, in the report's order (sorted by path, line, column).  A tool
row is ``[name, skill, form, "path:line"]`` in the order the compiler reports the
tools.  A call's ``output`` (the text the model would read) and ``error_type`` are compared
exactly when given; ``output_contains`` checks a part of it.  A case with ``xfail`` encodes what the compiler should report; it is a strict
expected failure until the compiler is fixed, and then must lose its ``xfail``.

Each case is compiled in a copy under ``tmp_path``, so no ``.skill/`` cache is ever
written into the repository.  Symbolic links are made only in that copy: a link loop
kept in the repository would send every tool that walks it (pytest included) in circles.
"""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import RunSkill
from skillc.compiler.api import compile_project
from skillc.compiler.report_json import report_to_dict

PROJECTS = Path(__file__).resolve().parent / "projects"
MINIMUM_CASES = 30
EXPECTED_KEYS = frozenset(
    {
        "diagnostics",
        "tools",
        "settings",
        "tool_descriptions",
        "skill_descriptions",
        "skills",
        "symlinks",
        "calls",
        "xfail",
    }
)
CALL_KEYS = frozenset({"tool", "input", "result", "output", "output_contains", "error_type"})
#: What a second compile may change: how long it took and how much came from the cache.
VOLATILE_KEYS = frozenset({"timings", "stats", "dist"})
#: Never copied into the temporary project: caches and outputs of earlier manual runs.
IGNORED = shutil.ignore_patterns(".skill", "dist", "__pycache__")


@dataclass(frozen=True)
class Expected:
    """One case's ``expected.json``."""

    diagnostics: list[str]
    tools: list[list[str]]
    settings: dict[str, dict[str, Any]]
    tool_descriptions: dict[str, str]
    skill_descriptions: dict[str, str]
    skills: list[list[str]] | None
    symlinks: dict[str, str]
    calls: list[dict[str, Any]]
    xfail: str | None


def case_names() -> list[str]:
    """The case folders, sorted: every folder of ``tests/projects/`` with an ``expected.json``."""
    return sorted(path.name for path in PROJECTS.iterdir() if (path / "expected.json").is_file())


def load_expected(case: str) -> Expected:
    document = json.loads((PROJECTS / case / "expected.json").read_text(encoding="utf-8"))
    assert isinstance(document, dict)
    unknown = set(document) - EXPECTED_KEYS
    assert not unknown, f"{case}/expected.json has unknown keys {sorted(unknown)}"
    return Expected(
        diagnostics=list(document["diagnostics"]),
        tools=[list(row) for row in document["tools"]],
        settings=dict(document.get("settings", {})),
        tool_descriptions=dict(document.get("tool_descriptions", {})),
        skill_descriptions=dict(document.get("skill_descriptions", {})),
        skills=[list(row) for row in document["skills"]] if "skills" in document else None,
        symlinks=dict(document.get("symlinks", {})),
        calls=[dict(call) for call in document.get("calls", [])],
        xfail=document.get("xfail"),
    )


def case_params() -> list[Any]:
    """One pytest param per case; a case with ``xfail`` is a strict expected failure."""
    params = []
    for case in case_names():
        reason = load_expected(case).xfail
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        params.append(pytest.param(case, id=case, marks=marks))
    return params


def copy_case(case: str, tmp_path: Path) -> Path:
    """Copy the case to ``tmp_path`` without its expectation, and make its symbolic links."""
    target = tmp_path / case
    shutil.copytree(PROJECTS / case, target, ignore=IGNORED, symlinks=True)
    (target / "expected.json").unlink()
    for link, points_to in load_expected(case).symlinks.items():
        (target / link).symlink_to(points_to, target_is_directory=True)
    return target


def compile_to_dict(project: Path) -> dict[str, Any]:
    return report_to_dict(compile_project(project))


def diagnostic_lines(report: Mapping[str, Any]) -> list[str]:
    return [
        f"{item['path']}:{item['line']}:{item['column']}: {item['severity']}[{item['code']}]"
        for item in report["diagnostics"]
    ]


def tool_rows(report: Mapping[str, Any]) -> list[list[str]]:
    return [
        [tool["name"], tool["skill"], tool["form"], f"{tool['source']['path']}:{tool['source']['line']}"]
        for tool in report["tools"]
    ]


def skill_rows(report: Mapping[str, Any]) -> list[list[str]]:
    return [[skill["name"], f"{skill['source']['path']}:{skill['source']['line']}"] for skill in report["skills"]]


def described(report: Mapping[str, Any], case: str) -> str:
    """The full diagnostics, to read when a case fails."""
    lines = [f"case {case}:"]
    for item in report["diagnostics"]:
        lines.append(
            f"  {item['path']}:{item['line']}:{item['column']}: {item['severity']}[{item['code']}] {item['message']}"
        )
    return "\n".join(lines)


def test_there_are_enough_cases() -> None:
    assert len(case_names()) >= MINIMUM_CASES


@pytest.mark.parametrize("case", case_names())
def test_case_is_well_formed(case: str) -> None:
    folder = PROJECTS / case
    assert (folder / "pyproject.toml").is_file()
    assert (folder / "src").is_dir()
    assert not (folder / ".skill").exists(), "a compile wrote its cache into the repository"
    assert not any(path.is_symlink() for path in folder.rglob("*")), "declare links in expected.json"
    expected = load_expected(case)
    for line in expected.diagnostics:
        path, _, rest = line.partition(":")
        assert (folder / path).is_file() or path in expected.symlinks, line
        assert rest.count(":") == 2 and ("error[skill/" in rest or "warning[skill/" in rest), line
    for row in expected.tools:
        assert len(row) == 4 and row[2] in ("class", "function", "object"), row
        assert (folder / row[3].partition(":")[0]).is_file(), row
    tools = {row[0] for row in expected.tools}
    for call in expected.calls:
        assert set(call) <= CALL_KEYS and {"tool", "input"} <= set(call), call
        assert call["tool"] in tools, call
    assert set(expected.settings) <= tools
    assert set(expected.tool_descriptions) <= tools


@pytest.mark.parametrize("case", case_params())
def test_case_compiles_as_expected(case: str, tmp_path: Path) -> None:
    expected = load_expected(case)
    report = compile_to_dict(copy_case(case, tmp_path))
    context = described(report, case)

    assert diagnostic_lines(report) == expected.diagnostics, context
    assert tool_rows(report) == expected.tools, context
    tools = {tool["name"]: tool for tool in report["tools"]}
    for name, settings in expected.settings.items():
        actual = {key: tools[name]["settings"][key] for key in settings}
        assert actual == settings, f"{case}: settings of {name}"
    for name, description in expected.tool_descriptions.items():
        assert tools[name]["description"] == description, f"{case}: description of {name}"
    skills = {skill["name"]: skill for skill in report["skills"]}
    for name, description in expected.skill_descriptions.items():
        assert skills[name]["description"] == description, f"{case}: description of skill {name}"
    if expected.skills is not None:
        assert skill_rows(report) == expected.skills, context
    summary = report["summary"]
    assert summary["errors"] == sum(" error[" in line for line in expected.diagnostics)
    assert summary["warnings"] == sum(" warning[" in line for line in expected.diagnostics)
    assert report["ok"] is (summary["errors"] == 0)


@pytest.mark.parametrize("case", case_names())
def test_case_compiles_deterministically_from_the_cache(case: str, tmp_path: Path) -> None:
    project = copy_case(case, tmp_path)
    first = compile_to_dict(project)
    assert (project / ".skill" / "cache").is_dir()
    second = compile_to_dict(project)

    assert second["stats"]["parsed"] == 0, "the second compile parsed files again"
    assert second["stats"]["cached"] == first["stats"]["files"]
    stable_first = {key: value for key, value in first.items() if key not in VOLATILE_KEYS}
    stable_second = {key: value for key, value in second.items() if key not in VOLATILE_KEYS}
    assert stable_second == stable_first


def _call_params() -> list[Any]:
    params = []
    for case in case_names():
        expected = load_expected(case)
        if expected.calls and not expected.xfail:
            params.append(pytest.param(case, id=case))
    return params


@pytest.mark.parametrize("case", _call_params())
def test_case_tools_run_from_their_bundles(case: str, tmp_path: Path, skill: RunSkill) -> None:
    """A clean compile means the tool runs: each call goes through ``skill test``, as a user runs it."""
    project = copy_case(case, tmp_path)
    for call in load_expected(case).calls:
        arguments = call["input"] if isinstance(call["input"], str) else json.dumps(call["input"])
        result_flag = ["--result", json.dumps(call["result"])] if "result" in call else []
        done = skill("test", str(project), "--name", call["tool"], "--input", arguments, *result_flag, "--json")
        assert "Traceback" not in done.stderr, done.stderr
        result = json.loads(done.stdout)
        where = f"{case}: {call['tool']}: {result}"
        assert result["error_type"] == call.get("error_type"), where
        assert done.code == (0 if call.get("error_type") is None else 1), where
        if "output" in call:
            assert result["output"] == call["output"], where
        if "output_contains" in call:
            assert call["output_contains"] in result["output"], where


def test_schema_classes_named_as_settings_are_the_schemas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``class input_schema(BaseModel)`` in a tool's body is its input model: its schema is pydantic's, not empty."""
    project = copy_case("schema_classes_named_as_settings", tmp_path)
    compile_to_dict(project)
    monkeypatch.syspath_prepend(str(project / "src"))
    assert "tools" not in sys.modules
    try:
        tools = importlib.import_module("tools")
        tool_dir = project / "dist" / "tools"
        for name, cls in (("interp", tools.Interp), ("shout", tools.Shout), ("plain", tools.Plain)):
            written = json.loads((tool_dir / name / "input.schema.json").read_text(encoding="utf-8"))
            assert written == cls.input_schema.model_json_schema(), name
        written = json.loads((tool_dir / "interp" / "output.schema.json").read_text(encoding="utf-8"))
        assert written == tools.Interp.output_schema.model_json_schema(mode="serialization")
    finally:
        sys.modules.pop("tools", None)  # other tests hold that no module named tools is left loaded
