"""The public API type-checks under ``mypy --strict``, and so does a new project's code.

mypy does not follow the import hooks of an editable install, so the tests lay the
source tree out as the ``skillc`` package it installs as, through a symbolic link.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import run_command

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def package_root(tmp_path: Path) -> Path:
    root = tmp_path / "pkgroot"
    root.mkdir()
    (root / "skillc").symlink_to(ROOT, target_is_directory=True)
    return root


def _mypy(args: list[str], cwd: Path, mypypath: str, config: Path = ROOT / "pyproject.toml") -> str:
    result = run_command(
        [sys.executable, "-m", "mypy", "--no-incremental", "--config-file", str(config), *args],
        cwd,
        env={"MYPYPATH": mypypath},
    )
    assert result.code == 0, result.stdout + result.stderr
    return result.stdout


def test_skillc_is_mypy_strict_clean(package_root: Path) -> None:
    assert _mypy(["-p", "skillc"], package_root, str(package_root)).startswith("Success: no issues")


def test_a_new_project_is_mypy_strict_clean(package_root: Path, tmp_path: Path) -> None:
    from skillc.templates import scaffold_project

    scaffold_project(Path("demo"), cwd=tmp_path)
    project = tmp_path / "demo"
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nstrict = True\nplugins = pydantic.mypy\n")
    output = _mypy(["src", "tests"], project, f"{project / 'src'}:{package_root}", config)
    assert output.strip() == "Success: no issues found in 9 source files"
