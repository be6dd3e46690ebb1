"""The library type-checks under ``mypy --strict``, and so does a new project's code.

``mypy`` with no arguments, run from the repository root, checks the whole library:
``[tool.mypy]`` names the package, and the strict editable install (scripts/_venv.sh) puts
exactly the files a wheel holds on the path mypy reads, as any installed package.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

from helpers import run_command

ROOT = Path(__file__).resolve().parents[1]
#: The console script installed beside this interpreter, as a developer runs it.
MYPY = Path(sys.executable).with_name("mypy")


def _library_modules() -> list[Path]:
    """The modules of every package folder pyproject.toml maps (``templates/project`` is a project's code, not one)."""
    folders = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"].values()
    return sorted({module for folder in folders for module in (ROOT / folder).glob("*.py")})


def _mypy(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    result = run_command([str(MYPY), *args], cwd, env)
    assert result.code == 0, result.stdout + result.stderr
    return result.stdout


def test_plain_mypy_checks_the_whole_library_and_it_is_strict_clean() -> None:
    output = _mypy([], ROOT)
    found = re.fullmatch(r"Success: no issues found in (\d+) source files\n", output)
    assert found is not None, output
    # Every module of the library, no test, benchmark or template file: a module missing
    # here means the installed links are stale (scripts/_venv.sh makes them again).
    modules = _library_modules()
    assert int(found[1]) == len(modules), [str(path.relative_to(ROOT)) for path in modules]


def test_a_new_project_is_mypy_strict_clean(tmp_path: Path) -> None:
    from skillc.templates import scaffold_project

    scaffold_project(Path("demo"), cwd=tmp_path)
    project = tmp_path / "demo"
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nstrict = True\nplugins = pydantic.mypy\n")
    output = _mypy(
        ["--no-incremental", "--config-file", str(config), "src", "tests"],
        project,
        env={"MYPYPATH": str(project / "src")},
    )
    assert output.strip() == "Success: no issues found in 9 source files"
