"""Running git: a subprocess, its output as text, its failure as an exception."""

import subprocess
from pathlib import Path

DEFAULT_CONTEXT_LINES = 3


class GitError(RuntimeError):
    pass


def git(repo_path: str, *args: str) -> str:
    repo = Path(repo_path)
    if not (repo / ".git").exists():
        raise GitError(f"{repo_path} is not a git repository")
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=20)
    if done.returncode != 0:
        raise GitError(done.stderr.strip() or f"git {args[0]} failed")
    return done.stdout


def no_flag(name: str, value: str | None) -> None:
    # Defense in depth: reject values starting with '-' to prevent flag injection
    if value and value.startswith("-"):
        raise ValueError(f"Invalid {name}: '{value}' - cannot start with '-'")
