"""An incremental compile gives exactly what a compile from scratch gives, after any edits.

Random sequences of edits (add or remove a tool, break and fix a file, rename a model,
change an import, edit a body or a description) are applied to a project.  After each
one the project is compiled three ways: as ``skill compile`` after the previous compile
(its caches on disk), as ``skill compile --watch`` does (one ``CompileSession`` kept in
memory across the whole sequence), and from scratch in a fresh copy with no cache.  The
diagnostics, the tools and ``dist/`` (byte for byte) must be the same every time.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from helpers import DEFAULT_PYPROJECT, write_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skillc.compiler.api import CompileReport, compile_project
from skillc.compiler.report_json import report_to_dict
from skillc.compiler.session import CompileSession
from skillc.compiler.source_tree import RACY_NS

MODELS = '''"""Shared input models."""

from pydantic import BaseModel, Field


class OrderInput(BaseModel):
    order_id: str = Field(description="The order id.")


class NoteInput(BaseModel):
    text: str
    urgent: bool = False
'''
BASE = """from skillc import Tool


class ShopTool(Tool):
    timeout = 30
"""
TOOL = '''"""Tool {i}."""

from models import {model}
from base import ShopTool


class Tool{i}(ShopTool):
    name = "tool_{i}"
    description = "{description}"
    input_schema = {model}

    def execute(self, input, ctx):
        return {body}
'''
SKILL = """from skillc import Skill
{imports}

shop = Skill(name="shop", description="The shop.", tools=[{entries}])
"""
AGENT = """from skillc import Agent
from shop import shop

agent = Agent(name="bench", persona="Helpful.", skills=[shop])
"""


class Project:
    """The project's state as data; ``write`` makes the files say it."""

    def __init__(self) -> None:
        self.tools = {0: ("OrderInput", "Look an order up.", "1"), 1: ("NoteInput", "Add a note.", "2")}
        self.model_name = "OrderInput"
        self.broken: set[str] = set()
        self.import_style = 0
        self.next = 2

    def files(self) -> dict[str, str]:
        models = MODELS.replace("class OrderInput(", f"class {self.model_name}(")
        files = {"agent.py": AGENT, "models.py": models, "base.py": BASE}
        for i, (model, description, body) in self.tools.items():
            source = TOOL.format(i=i, model=model, description=description, body=body)
            if self.import_style == 1 and i == min(self.tools):
                source = source.replace("from models import", "from models import NoteInput as Unused,")
            elif self.import_style == 2 and i == min(self.tools):
                source = source.replace(f"from models import {model}", f"import models\n{model} = models.{model}")
            files[f"tool_{i}.py"] = source
        imports = "\n".join(f"from tool_{i} import Tool{i}" for i in sorted(self.tools))
        entries = ", ".join(f"Tool{i}()" for i in sorted(self.tools))
        files["shop.py"] = SKILL.format(imports=imports, entries=entries)
        for name in self.broken:
            if name in files:
                files[name] = files[name].replace("class ", "class class ", 1) or "def (:\n"
        return files

    def apply(self, edit: tuple[str, int]) -> None:
        kind, number = edit
        ids = sorted(self.tools)
        target = ids[number % len(ids)] if ids else None
        if kind == "add":
            self.tools[self.next] = (("OrderInput", "NoteInput")[number % 2], f"Tool {self.next}.", "3")
            self.next += 1
        elif kind == "remove" and target is not None and len(ids) > 1:
            del self.tools[target]
        elif kind == "break":
            self.broken.add(("models.py", "base.py", f"tool_{target}.py")[number % 3])
        elif kind == "fix":
            self.broken.clear()
        elif kind == "rename-model":
            self.model_name = "OrderQuery" if self.model_name == "OrderInput" else "OrderInput"
            if number % 2 and target is not None:  # rename the uses too, or leave them dangling
                self.tools = {
                    i: (self.model_name if model in ("OrderInput", "OrderQuery") else model, text, body)
                    for i, (model, text, body) in self.tools.items()
                }
        elif kind == "import":
            self.import_style = number % 3
        elif kind == "body" and target is not None:
            model, description, body = self.tools[target]
            self.tools[target] = (model, description, f"{body} + {number}")
        elif kind == "describe" and target is not None:
            model, _, body = self.tools[target]
            self.tools[target] = (model, f"Changed {number}.", body)


EDITS = st.tuples(
    st.sampled_from(["add", "remove", "break", "fix", "rename-model", "import", "body", "describe"]),
    st.integers(min_value=0, max_value=5),
)


def _write(root: Path, project: Project) -> None:
    """Make the files under ``root`` say ``project``, writing only those that differ, as an editor does."""
    src = root / "src"
    wanted = {"pyproject.toml": DEFAULT_PYPROJECT, **{f"src/{name}": text for name, text in project.files().items()}}
    if src.exists():
        for path in src.glob("*.py"):
            if f"src/{path.name}" not in wanted:
                path.unlink()
    for name, text in wanted.items():
        path = root / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            write_tree(root, {name: text})


def _tree(folder: Path) -> dict[str, bytes]:
    if not folder.exists():
        return {}
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()
    }


def _seen(report: CompileReport) -> dict[str, object]:
    """What a user sees of a compile: the JSON report without timings and cache statistics,
    and with dist/ "up to date" (it already held this compile's output) taken as "written"."""
    document = report_to_dict(report)
    document.pop("timings")
    document.pop("stats")
    dist = document["dist"]
    assert isinstance(dist, dict)
    if dist["state"] == "up to date":
        dist["state"] = "written"
    return document


#: By mode (check or compile): the project compiled after each edit with its caches on disk,
#: the one compiled in one session throughout (as the watch does), and that session.  Both
#: live across the examples, as a project lives across its edits.
_WORKSPACES: dict[bool, tuple[Path, Path, CompileSession]] = {}


def _workspace(factory: pytest.TempPathFactory, emit: bool) -> tuple[Path, Path, CompileSession]:
    if emit not in _WORKSPACES:
        work = factory.mktemp("edits")
        root, watched = work / "project", work / "watched"
        _write(root, Project())
        _write(watched, Project())
        # From now on the files written above are trusted by their identity: the watch's
        # compiles read again only the files the edits change, as a watch of a project does.
        time.sleep(RACY_NS / 1e9 + 0.2)
        _WORKSPACES[emit] = (root, watched, CompileSession())
    return _WORKSPACES[emit]


def _compare(root: Path, watched_root: Path, session: CompileSession, fresh: Path, emit: bool) -> None:
    incremental = compile_project(root, emit=emit)
    watched = compile_project(watched_root, emit=emit, session=session)
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.copytree(root / "src", fresh / "src")
    shutil.copy(root / "pyproject.toml", fresh / "pyproject.toml")
    cold = compile_project(fresh, emit=emit, use_cache=False)
    assert _seen(incremental) == _seen(cold)
    assert _seen(watched) == _seen(cold)
    if emit and cold.ok:
        assert _tree(root / "dist") == _tree(fresh / "dist")
        assert _tree(watched_root / "dist") == _tree(fresh / "dist")


@pytest.mark.parametrize("emit", [False, True], ids=["check", "compile"])
@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(edits=st.lists(EDITS, min_size=1, max_size=8))
def test_incremental_and_watch_compiles_equal_a_cold_compile_after_every_edit(
    tmp_path_factory: pytest.TempPathFactory, emit: bool, edits: list[tuple[str, int]]
) -> None:
    root, watched, session = _workspace(tmp_path_factory, emit)
    fresh = root.parent / "fresh"
    project = Project()
    for edit in [None, *edits]:
        if edit is not None:
            project.apply(edit)
        _write(root, project)
        _write(watched, project)
        _compare(root, watched, session, fresh, emit)
