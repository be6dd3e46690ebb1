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


#: The smallest agent: one function-form tool, ``ping``, in one skill.
AGENT = (
    "from skillc import Agent, Skill, tool\n"
    "\n"
    "\n"
    "@tool\n"
    "def ping(text: str) -> str:\n"
    '    """Echo the text."""\n'
    "    return text\n"
    "\n"
    "\n"
    'agent = Agent(name="a", skills=[Skill(name="s", tools=[ping])])\n'
)


DEFAULT_PYPROJECT = """\
[project]
name = "example"
version = "0.1.0"
dependencies = ["skillc", "pydantic>=2"]

[tool.skill]
entry = "src/agent.py"
"""


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write ``files`` (relative path -> text or bytes) under ``root``."""
    for name, content in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


def read_tree(root: Path, skip: tuple[str, ...] = ()) -> dict[str, bytes | str]:
    """Every entry under ``root``, by relative path: a file's bytes, a link's target, a folder as ``/``.

    Top-level names in ``skip`` are not walked at all (``.skill/`` is emptied by a
    detached process while a test looks).
    """
    found: dict[str, bytes | str] = {}
    for folder, folders, files in os.walk(root):
        here = Path(folder)
        if here == root:
            folders[:] = [name for name in folders if name not in skip]
        for name in sorted(folders + files):
            path = here / name
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[relative] = f"-> {os.readlink(path)}"
            elif path.is_dir():
                found[relative] = "/"
            else:
                found[relative] = path.read_bytes()
    return dict(sorted(found.items()))


def write_project(root: Path, sources: dict[str, str | bytes], pyproject: str = DEFAULT_PYPROJECT) -> Path:
    """A project at ``root`` with ``sources`` under ``src/`` and a default pyproject.toml."""
    write_tree(root, {"pyproject.toml": pyproject, **{f"src/{name}": text for name, text in sources.items()}})
    return root
