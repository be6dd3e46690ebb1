"""Shared fixtures: the real ``skill`` command as a subprocess, run in a temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import SKILL, Completed, RunSkill, run_command


@pytest.fixture
def skill(tmp_path: Path) -> RunSkill:
    """Run ``skill ARGS...`` in ``tmp_path`` (or ``cwd=``) as a real subprocess."""

    def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Completed:
        return run_command([str(SKILL), *args], cwd or tmp_path, env)

    return run
