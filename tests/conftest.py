"""Shared fixtures: the real ``skill`` command as a subprocess, run in a temporary folder."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from helpers import SKILL, Completed, RunSkill, run_command

# A shell starts a background job with SIGINT ignored, and a child inherits that: the tests
# that press Ctrl-C on a ``skill`` process would then test a process that cannot be
# interrupted.  A terminal's Ctrl-C is what they test, so the suite restores Python's own
# handler, which a child's exec resets to the default action.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def skill(tmp_path: Path) -> RunSkill:
    """Run ``skill ARGS...`` in ``tmp_path`` (or ``cwd=``) as a real subprocess."""

    def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Completed:
        return run_command([str(SKILL), *args], cwd or tmp_path, env)

    return run
