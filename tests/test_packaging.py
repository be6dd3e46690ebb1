"""The installed package holds the library and nothing else: not the tests, not the benchmarks.

The repository root is the package ``skillc``, so an editable install that mapped the whole
folder would make ``tests/`` and ``bench/`` importable as ``skillc.tests`` and ``skillc.bench``.
Each check runs the environment's own interpreter from outside the repository, where the
working folder cannot lend it anything.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import run_command

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str, cwd: Path) -> tuple[int, str]:
    result = run_command([sys.executable, "-c", code], cwd)
    return result.code, result.stdout + result.stderr


@pytest.mark.parametrize("folder", ["tests", "bench"])
def test_a_folder_of_the_repository_that_is_no_package_cannot_be_imported(folder: str, tmp_path: Path) -> None:
    assert (ROOT / folder).is_dir()
    code, output = _python(f"import skillc.{folder}", tmp_path)
    assert code != 0, output
    assert f"ModuleNotFoundError: No module named 'skillc.{folder}'" in output


def test_the_library_imports_from_the_installed_package(tmp_path: Path) -> None:
    code, output = _python(
        "import skillc, skillc.cli.app, skillc.contracts.errors; print(skillc.cli.app.__name__)", tmp_path
    )
    assert code == 0, output
    assert output.strip() == "skillc.cli.app"
