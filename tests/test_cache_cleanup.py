"""``.skill/cache/`` holds only what this version uses: orphans of older layouts are removed.

A file is skillc's by its name and its first bytes (the cache header, or the bare pickle
that skillc wrote before caches were signed); nothing else in the folder is touched, and
nothing is removed through a symbolic link.
"""

from __future__ import annotations

import os
import pickle
import time
from pathlib import Path

import pytest
from helpers import RunSkill, write_project
from skillc.compiler.cache import (
    _MAGIC,
    ARTIFACT_SHARDS,
    CACHE_FILES,
    INDEX_KEYS_FILE,
    INDEX_SHARDS,
    LINK_FILE,
    REPORT_FILE,
)

TOOL = '''from skillc import tool


@tool
def tool_{n}(value: int) -> int:
    """Tool {n}."""
    return value + {n}
'''


def _project(root: Path, tools: int) -> Path:
    imports = "".join(f"from tools.t{n} import tool_{n}\n" for n in range(tools))
    listed = ", ".join(f"tool_{n}" for n in range(tools))
    agent = (
        f"from skillc import Agent, Skill\n{imports}"
        f'agent = Agent(name="a", skills=[Skill(name="s", description="S.", tools=[{listed}])])\n'
    )
    modules = {f"tools/t{n}.py": TOOL.format(n=n) for n in range(tools)}
    return write_project(root, {"agent.py": agent, "tools/__init__.py": "", **modules})


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """This test's own cache key."""
    return {"XDG_CACHE_HOME": str(tmp_path / "user-cache")}


def _names(folder: Path) -> set[str]:
    return {path.name for path in folder.iterdir()}


def test_the_names_this_version_keeps_are_the_ones_its_modules_write() -> None:
    written = {
        INDEX_KEYS_FILE,
        LINK_FILE,
        REPORT_FILE,
        *(f"index-{shard}.pickle" for shard in INDEX_SHARDS),
        *(f"artifacts-{shard}.pickle" for shard in ARTIFACT_SHARDS),
    }
    assert written == CACHE_FILES


def test_a_compile_writes_no_cache_file_that_a_later_one_would_remove(
    tmp_path: Path, skill: RunSkill, env: dict[str, str]
) -> None:
    project = _project(tmp_path / "p", 24)
    assert skill("compile", str(project), env=env).code == 0
    assert skill("compile", "--check", str(project), env=env).code == 0
    names = _names(project / ".skill/cache")
    assert names <= CACHE_FILES, sorted(names - CACHE_FILES)
    assert {INDEX_KEYS_FILE, LINK_FILE, REPORT_FILE} <= names
    assert len([name for name in names if name.startswith("index-")]) > 8  # sharded: many to keep


def _age(path: Path, hours: float) -> None:
    then = time.time() - hours * 3600
    os.utime(path, (then, then), follow_symlinks=False)


def test_orphans_of_older_layouts_go_and_nothing_else_does(
    tmp_path: Path, skill: RunSkill, env: dict[str, str]
) -> None:
    project = _project(tmp_path / "p", 3)
    assert skill("compile", str(project), env=env).code == 0
    cache = project / ".skill/cache"
    bare = pickle.dumps({"version": "0.1.0/3/(3, 11)", "entries": {}}, protocol=5)
    orphans = {
        "index-a.pickle": _MAGIC + b"an index shard of the 16-shard layout",
        "artifacts-x.pickle": _MAGIC + b"a shard no tool maps to",
        "index.pickle": bare,  # the single index of the first versions, unsigned
        "artifacts.pickle": bare,
        "schemas.pickle": _MAGIC + b"a cache this version no longer has",
        ".index-0a-k3j2h1g0.tmp": _MAGIC + b"left by a compile that was killed",
        ".report-abcdefgh.tmp": b"",
    }
    kept = {
        "notes.txt": b"the user's own",
        "mine.pickle": bare,  # a pickle, but no name skillc ever gave a cache
        "export.pickle": b"\x80\x04 not skillc's",
        ".index-0b-zzzzzzzz.tmp": _MAGIC + b"a compile may be writing this one now",
    }
    for name, content in {**orphans, **kept}.items():
        (cache / name).write_bytes(content)
    for name in orphans:
        if name.endswith(".tmp"):
            _age(cache / name, 2)
    (cache / "index-b.pickle").mkdir()  # a folder: never removed
    outside = tmp_path / "outside.pickle"
    outside.write_bytes(_MAGIC + b"somewhere else")
    (cache / "index-c.pickle").symlink_to(outside)  # a link: never followed, never removed

    assert skill("compile", str(project), env=env).code == 0  # nothing changed: nothing written, nothing pruned
    assert set(orphans) <= _names(cache)
    with (project / "src/tools/t1.py").open("a") as stream:
        stream.write("# changed\n")
    compiled = skill("compile", str(project), env=env)
    assert compiled.code == 0, compiled.stdout + compiled.stderr

    names = _names(cache)
    assert not names & set(orphans)
    assert {name: (cache / name).read_bytes() for name in kept} == kept
    assert (cache / "index-b.pickle").is_dir() and (cache / "index-c.pickle").is_symlink()
    assert outside.read_bytes() == _MAGIC + b"somewhere else"
    assert names - set(kept) - {"index-b.pickle", "index-c.pickle"} <= CACHE_FILES
    assert {INDEX_KEYS_FILE, LINK_FILE, REPORT_FILE} <= names  # what this version uses stays
    unchanged = skill("compile", str(project), env=env)
    assert unchanged.code == 0 and "0 parsed" in unchanged.stdout, unchanged.stdout


def test_a_cache_that_empties_leaves_no_file(tmp_path: Path, skill: RunSkill, env: dict[str, str]) -> None:
    project = _project(tmp_path / "p", 24)
    assert skill("compile", str(project), env=env).code == 0
    cache = project / ".skill/cache"
    shards = {name for name in _names(cache) if name.startswith(("index-", "artifacts-")) and name != INDEX_KEYS_FILE}
    _project(project, 1)
    for n in range(1, 24):
        (project / f"src/tools/t{n}.py").unlink()
    assert skill("compile", str(project), env=env).code == 0
    after = {name for name in _names(cache) if name.startswith(("index-", "artifacts-")) and name != INDEX_KEYS_FILE}
    # Three modules are left (agent, tools, t0): at most three index shards, one artifacts shard.
    assert len([name for name in after if name.startswith("index-")]) <= 3
    assert len([name for name in after if name.startswith("artifacts-")]) == 1
    assert len(after) < len(shards)


@pytest.mark.parametrize("linked", [".skill", ".skill/cache"])
def test_no_orphan_is_removed_through_a_link(tmp_path: Path, skill: RunSkill, env: dict[str, str], linked: str) -> None:
    project = _project(tmp_path / "p", 1)
    elsewhere = tmp_path / "elsewhere"
    target = elsewhere / "cache" if linked == ".skill" else elsewhere
    target.mkdir(parents=True)
    (target / "index-a.pickle").write_bytes(_MAGIC + b"an orphan's look")
    (project / linked).parent.mkdir(parents=True, exist_ok=True)
    (project / linked).symlink_to(elsewhere, target_is_directory=True)
    assert skill("compile", str(project), env=env).code == 0
    assert _names(target) == {"index-a.pickle"}  # not pruned, and nothing written either
