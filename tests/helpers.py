"""Helpers the tests share: running the real ``skill`` command as a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: The console script installed beside this interpreter, as a user would run it.
SKILL = Path(sys.executable).with_name("skill")
#: No test waits longer than this for one command.
COMMAND_TIMEOUT = 120


@dataclass(frozen=True)
class Completed:
    """What a finished command left: its exit code and both streams."""

    code: int
    stdout: str
    stderr: str


RunSkill = Callable[..., Completed]


def run_command(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> Completed:
    """Run a command to completion with a bounded wait; never inherit a terminal."""
    environment = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **(env or {})}
    finished = subprocess.run(
        args,
        cwd=cwd,
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )
    return Completed(finished.returncode, finished.stdout, finished.stderr)
