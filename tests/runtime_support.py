"""What the runtime tests share: compiling a fixture project into a temporary copy.

It holds no tests.  Each case of ``tests/runtime_projects/`` is a real project
(``pyproject.toml`` with ``[tool.skill]``, a ``src/`` tree); the tests compile it with
the real compiler, in a copy, and load the ``dist/`` it writes.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any, TypeVar

RUNTIME_PROJECTS = Path(__file__).resolve().parent / "runtime_projects"
#: Never copied: caches and outputs of earlier manual runs.
IGNORED = shutil.ignore_patterns(".skill", "dist", "__pycache__")

PYPROJECT = """\
[project]
name = "{name}"
version = "0.1.0"
dependencies = ["skillc", "pydantic>=2"]

[tool.skill]
entry = "src/agent.py"
"""

_T = TypeVar("_T")


def run(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run one coroutine on a fresh event loop, as a command would."""
    return asyncio.run(coroutine)


def compile_tree(project: Path) -> Path:
    """Compile ``project`` with the real compiler and return its ``dist/``."""
    from skillc.compiler.api import compile_project

    report = compile_project(project, use_cache=False)
    problems = [f"{item.path}:{item.line}: {item.code} {item.message}" for item in report.diagnostics]
    assert report.ok, "\n".join(problems)
    return report.config.out


def compile_case(case: str, root: Path) -> Path:
    """Copy ``tests/runtime_projects/<case>`` under ``root``, compile it, return its ``dist/``."""
    project = root / case
    shutil.copytree(RUNTIME_PROJECTS / case, project, ignore=IGNORED)
    return compile_tree(project)


def write_project(root: Path, name: str, sources: Mapping[str, str]) -> Path:
    """A project at ``root`` with ``sources`` under ``src/``."""
    for path, text in {
        "pyproject.toml": PYPROJECT.format(name=name),
        **{f"src/{k}": v for k, v in sources.items()},
    }.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


def many_tools_project(root: Path, count: int, answer: str = "a") -> Path:
    """A project with ``count`` tools, one module each, every tool returning ``answer``."""
    sources = {
        f"tools/t{index}.py": (
            "from skillc import tool\n\nfrom tools.shared import ANSWER\n\n\n"
            f"@tool\ndef t{index}(n: int = 0) -> str:\n"
            f'    """Tool number {index}."""\n'
            f'    return f"{{ANSWER}}{index}:{{n}}"\n'
        )
        for index in range(count)
    }
    sources["tools/__init__.py"] = ""
    sources["tools/shared.py"] = f"ANSWER = {answer!r}\n"
    imports = "\n".join(f"from tools.t{index} import t{index}" for index in range(count))
    names = ", ".join(f"t{index}" for index in range(count))
    sources["agent.py"] = (
        f"from skillc import Agent, Skill\n\n{imports}\n\n"
        f'many = Skill(name="many", description="Many tools.", tools=[{names}])\n'
        'agent = Agent(name="many", persona="Many tools.", skills=[many])\n'
    )
    return write_project(root, "many-tools", sources)
