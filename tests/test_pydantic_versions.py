"""The static schemas equal pydantic's under every minor version skillc supports.

skillc depends on ``pydantic>=2.N,<3``; a user's environment may hold any minor version
from 2.N to the newest, and ``input.schema.json`` must equal what that one's
``model_json_schema()`` writes.  For each minor below the one in this virtual environment
(which the rest of the suite covers), pydantic and its own dependencies are installed with
``pip install --target`` into a folder kept between runs (one per Python and pydantic
minor), and the differential tests run again in a subprocess of this interpreter with that
folder first on ``sys.path``: the compiler reads the version it finds there, and pydantic
builds the schemas it is compared with.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from helpers import AGENT, COMMAND_TIMEOUT, SKILL, run_command, write_project
from skillc.compiler.schema_versions import PYDANTIC

ROOT = Path(__file__).resolve().parent.parent
#: Installs kept between runs (``build/`` is never committed).
CACHE = ROOT / "build" / "pydantic-versions" / f"py{sys.version_info[0]}.{sys.version_info[1]}"
#: How many generated modules the differential test tries per minor version.
EXAMPLES = "40"


def _lower_bound() -> tuple[int, int]:
    """The oldest minor version pyproject.toml allows (``pydantic>=2.N``)."""
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    spec = next(item for item in dependencies if re.match(r"pydantic\s*[><=]", item))
    found = re.search(r">=\s*(\d+)\.(\d+)", spec)
    assert found is not None, spec
    return int(found.group(1)), int(found.group(2))


MINORS = [f"{PYDANTIC[0]}.{minor}" for minor in range(_lower_bound()[1], PYDANTIC[1])]


def _installed(minor: str) -> Path:
    """A folder holding pydantic ``minor`` and what it depends on, installed once.

    One process installs at a time (the suite's workers may want the same minor at once).
    """
    folder = CACHE / minor
    if (folder / ".complete").is_file():
        return folder
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return folder if (folder / ".complete").is_file() else _install(minor, folder)


def _install(minor: str, folder: Path) -> Path:
    partial = CACHE / f".{minor}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-compile",
            "--only-binary=:all:",
            "--target",
            str(partial),
            f"pydantic=={minor}.*",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    (partial / ".complete").write_text(minor + "\n")
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    return folder


def _with_pydantic(folder: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(folder), "SKILLC_DIFFERENTIAL_EXAMPLES": EXAMPLES}


def test_every_supported_minor_below_this_one_is_checked() -> None:
    assert _lower_bound() <= PYDANTIC
    assert all(re.fullmatch(r"2\.\d+", minor) for minor in MINORS)


@pytest.mark.parametrize("minor", MINORS)
def test_static_schemas_equal_pydantic_of_each_supported_minor(minor: str) -> None:
    folder = _installed(minor)
    probe = subprocess.run(
        [sys.executable, "-c", "import pydantic, skillc.compiler.schema_versions as v; print(v.PYDANTIC_VERSION)"],
        env=_with_pydantic(folder),
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )
    assert probe.returncode == 0 and probe.stdout.startswith(minor + "."), probe.stderr
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            "--hypothesis-seed=0",
            "tests/test_schema.py",
            "tests/test_schema_differential.py",
            "-k",
            "equals_pydantic",
        ],
        cwd=ROOT,
        env=_with_pydantic(folder),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert finished.returncode == 0, f"pydantic {probe.stdout.strip()}:\n{finished.stdout[-6000:]}{finished.stderr}"


#: A Decimal field: pydantic 2.12 and 2.13 write its string form with a pattern, later ones do not.
DECIMAL_AGENT = AGENT.replace("from skillc", "from decimal import Decimal\n\nfrom skillc").replace(
    "def ping(text: str)", "def ping(text: str, amount: Decimal = 0)"
)
#: A supported minor whose Decimal schema differs from this environment's.
OTHER = next((minor for minor in reversed(MINORS) if minor in ("2.12", "2.13")), None)


@pytest.mark.skipif(OTHER is None or PYDANTIC < (2, 14), reason="no supported pydantic writes a Decimal differently")
def test_a_cached_compile_is_redone_for_another_pydantic(tmp_path: Path) -> None:
    """pydantic's version is part of a cached schema's key: a project compiled with one
    pydantic, then with another, gets the other's schema, not the cached one."""
    assert OTHER is not None
    folder = _installed(OTHER)
    write_project(tmp_path, {"agent.py": DECIMAL_AGENT})
    schema = tmp_path / "dist" / "tools" / "ping" / "input.schema.json"
    first = run_command([str(SKILL), "compile"], tmp_path)
    assert first.code == 0, first.stdout + first.stderr
    here = json.loads(schema.read_text())
    assert (tmp_path / ".skill" / "cache").is_dir()

    other = run_command([str(SKILL), "compile"], tmp_path, {"PYTHONPATH": str(folder)})
    assert other.code == 0, other.stdout + other.stderr
    there = json.loads(schema.read_text())
    pydantic_there = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys; sys.path.insert(0, 'src'); import agent; "
            "print(json.dumps(agent.ping.input_schema.model_json_schema()))",
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(folder)},
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )
    assert pydantic_there.returncode == 0, pydantic_there.stderr
    assert there == json.loads(pydantic_there.stdout) != here
    assert "pattern" in there["properties"]["amount"]["anyOf"][1]

    again = run_command([str(SKILL), "compile"], tmp_path)
    assert again.code == 0 and json.loads(schema.read_text()) == here
