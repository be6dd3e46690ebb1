"""Import cycles: the compiler's verdict against what Python really does.

Each failing case of ``tests/projects/`` fails with the circular-import ``ImportError``
when Python imports it, at the line the compiler reports; each harmless one imports,
compiles clean, and its tool runs through ``skill test``.  A property test generates
small module graphs and compares the verdict with a real ``python -I`` import of them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import RunSkill, write_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skillc.compiler.api import compile_project

PROJECTS = Path(__file__).resolve().parent / "projects"
IGNORED = shutil.ignore_patterns(".skill", "dist", "__pycache__")
#: The last frame of a traceback: where the exception was raised.
FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in <module>')


@dataclass(frozen=True)
class Outcome:
    """What importing a module in a fresh interpreter did."""

    ok: bool
    circular: bool
    #: The traceback's frames in the imported modules, the failing one last.
    frames: tuple[tuple[str, int], ...]
    stderr: str

    @property
    def where(self) -> tuple[str, int] | None:
        return self.frames[-1] if self.frames else None


def import_in_python(src: Path, module: str) -> Outcome:
    """Import ``module`` from ``src`` in an isolated interpreter (no site dirs, no env)."""
    finished = subprocess.run(
        [sys.executable, "-I", "-B", "-c", f"import sys; sys.path.insert(0, {str(src)!r}); import {module}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    if finished.returncode == 0:
        return Outcome(True, False, (), "")
    last = finished.stderr.strip().splitlines()[-1]
    circular = last.startswith("ImportError: cannot import name") and "partially initialized module" in last
    frames = tuple(
        (Path(match["path"]).relative_to(src.parent).as_posix(), int(match["line"]))
        for match in FRAME.finditer(finished.stderr)
        if match["path"].startswith(str(src))
    )
    return Outcome(False, circular, frames, finished.stderr)


def in_a_block(path: Path, line: int) -> bool:
    """Whether line ``line`` of ``path`` is indented: inside an ``if``, ``try`` or ``def``."""
    return path.read_text().splitlines()[line - 1].startswith(" ")


def copy_case(case: str, tmp_path: Path) -> Path:
    target = tmp_path / case
    shutil.copytree(PROJECTS / case, target, ignore=IGNORED)
    (target / "expected.json").unlink()
    return target


def cycle_errors(project: Path) -> list[tuple[str, int]]:
    report = compile_project(project, use_cache=False, emit=False)
    return [(item.path, item.line) for item in report.diagnostics if item.code == "skill/import-cycle"]


@pytest.mark.parametrize(
    ("case", "imported_first"),
    [
        ("import_cycle_name_not_bound", ["agent", "skills.lookup"]),
        ("import_cycle_package_init", ["agent", "shop.lookup"]),
        ("inheritance_cycle", ["agent", "tools"]),
    ],
)
def test_a_failing_cycle_fails_in_python_where_skill_compile_says(
    skill: RunSkill, tmp_path: Path, case: str, imported_first: list[str]
) -> None:
    project = copy_case(case, tmp_path)
    # What the project does when Python imports it: the agent, or a tool's module as its bundle does.
    failures = {import_in_python(project / "src", module) for module in imported_first}
    assert all(not outcome.ok and outcome.circular for outcome in failures), failures
    assert {outcome.where for outcome in failures} == set(cycle_errors(project))

    result = skill("compile", str(project), "--format", "json")
    assert result.code == 1, result.stdout + result.stderr
    document = json.loads(result.stdout)
    cycles = [item for item in document["diagnostics"] if item["code"] == "skill/import-cycle"]
    assert cycles and all(item["severity"] == "error" and item["related"] for item in cycles)
    assert all("circular import" in item["message"] and item["hint"] for item in cycles)
    assert not (project / "dist").exists()


def test_the_report_names_the_cycle_its_import_lines_and_the_binding(skill: RunSkill, tmp_path: Path) -> None:
    project = copy_case("import_cycle_package_init", tmp_path)
    result = skill("compile", str(project))
    assert result.code == 1
    assert (
        "src/shop/lookup.py:4:18: error[skill/import-cycle] circular import: 'from shop import CURRENCY' "
        "fails when the entry module agent is imported: shop is still initialising "
        "(cycle shop -> shop.lookup -> shop) and binds 'CURRENCY' only further down"
    ) in result.stdout
    assert "src/shop/__init__.py:3:21: shop imports shop.lookup here, before it binds 'CURRENCY'" in result.stdout
    assert "src/shop/__init__.py:5:1: shop binds 'CURRENCY' here" in result.stdout
    assert "move the import of shop.lookup in shop below the definition of 'CURRENCY'" in result.stdout


@pytest.mark.parametrize(
    ("case", "output"),
    [
        ("import_cycle_harmless_module", "A1!"),
        ("import_cycle_conditional", "A1?!"),
        ("import_cycle_below_definition", "a1 costs 4 EUR"),
    ],
)
def test_a_harmless_cycle_compiles_clean_and_its_tool_runs(
    skill: RunSkill, tmp_path: Path, case: str, output: str
) -> None:
    project = copy_case(case, tmp_path)
    assert import_in_python(project / "src", "agent").ok
    compiled = skill("compile", str(project))
    assert compiled.code == 0, compiled.stdout + compiled.stderr
    assert "0 errors, 0 warnings" in compiled.stdout
    result = skill("test", "--name", "lookup", "--input", '{"order_id": "a1"}', "--json", cwd=project)
    assert result.code == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["output"] == output


# --- Generated module graphs against a real import ----------------------------------------

#: Three modules and a package with two submodules; each binds v0 and v1 somewhere.
MODULES = ("m0", "m1", "m2", "p", "p.a", "p.b")
NAMES = ("v0", "v1")


def _statement(draw: st.DrawFn, module: str, number: int) -> tuple[str, bool]:
    """One statement of ``module`` and whether the replay models it exactly (no if/try)."""
    target = draw(st.sampled_from(MODULES))
    name = draw(st.sampled_from(NAMES))
    written = target
    if module.startswith("p.") and target.startswith("p.") and draw(st.booleans()):
        written = "." + target.removeprefix("p.")  # relative, from inside the package
    kind = draw(st.sampled_from(["from", "from", "from", "import", "submodule", "function", "if", "try"]))
    if kind == "from":
        return f"from {written} import {name}\n", True
    if kind == "import":
        return f"import {target}\n", True
    if kind == "submodule":
        return f"from p import {draw(st.sampled_from(['a', 'b']))}\n", True
    if kind == "function":
        return f"def f{number}():\n    from {written} import {name}\n    return {name}\n", True
    if kind == "if":
        return f"if {draw(st.sampled_from(['True', 'False']))}:\n    from {written} import {name}\n", False
    return f"try:\n    from {written} import {name}\nexcept ImportError:\n    {name} = None\n", False


@st.composite
def module_graphs(draw: st.DrawFn) -> tuple[dict[str, str], str, bool]:
    """Sources by path under ``src/``, the module imported first, whether all is modelled exactly."""
    files: dict[str, str] = {}
    exact = True
    for module in MODULES:
        statements: list[str] = []
        for number in range(draw(st.integers(0, 3))):
            text, modelled = _statement(draw, module, number)
            statements.append(text)
            exact = exact and modelled
        for index, name in enumerate(NAMES):  # every name is bound, often after the imports
            statements.insert(draw(st.integers(0, len(statements))), f"{name} = {index}\n")
        path = "p/__init__.py" if module == "p" else module.replace(".", "/") + ".py"
        files[path] = "".join(statements)
    return files, draw(st.sampled_from(MODULES)), exact


@settings(
    max_examples=100,
    deadline=10_000,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(graph=module_graphs())
def test_the_verdict_on_generated_graphs_is_what_python_does(
    tmp_path_factory: pytest.TempPathFactory, graph: tuple[dict[str, str], str, bool]
) -> None:
    files, start, exact = graph
    root = tmp_path_factory.mktemp("graph")
    entry = "src/p/__init__.py" if start == "p" else "src/" + start.replace(".", "/") + ".py"
    write_tree(
        root,
        {
            "pyproject.toml": f'[project]\nname = "g"\nversion = "0"\n\n[tool.skill]\nentry = "{entry}"\n',
            **{f"src/{path}": text for path, text in files.items()},
        },
    )
    reported = cycle_errors(root)
    outcome = import_in_python(root / "src", start)
    context = "".join(f"--- {path}\n{text}" for path, text in files.items()) + outcome.stderr
    assert outcome.ok or outcome.circular, context  # the generator makes no other error
    # Never a false alarm: what is reported fails, there; or earlier, inside what an import in
    # an ``if`` block ran (the replay does not assume it runs: it may be ``if TYPE_CHECKING:``).
    assert len(reported) <= 1, context
    if reported:
        assert not outcome.ok, context
        assert outcome.where == reported[0] or any(in_a_block(root / path, line) for path, line in outcome.frames), (
            context
        )
    # Nothing missed where every statement is one the replay models exactly.
    if exact and not outcome.ok:
        assert reported == [outcome.where], context
