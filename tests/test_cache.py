"""The index cache: unchanged files are never parsed again; a bad cache is never trusted."""

from __future__ import annotations

import dataclasses
import enum
import os
import pickle
import typing
from pathlib import Path

import pytest
from helpers import write_project
from skillc.compiler.api import compile_project
from skillc.compiler.cache import (
    ARTIFACT_SHARDS,
    INDEX_KEYS_FILE,
    INDEX_SHARDS,
    LINK_FILE,
    REPORT_FILE,
    held_writes,
    load_cache,
    write_cache,
)
from skillc.compiler.index_cache import INDEX_TYPES
from skillc.compiler.index_types import ModuleIndex
from skillc.compiler.report_json import report_to_dict
from skillc.compiler.sources import PARALLEL_THRESHOLD

TOOL = """from pydantic import BaseModel
from skillc import Tool


class Input{n}(BaseModel):
    value: int = {n}


class Tool{n}(Tool):
    name = "tool_{n}"
    description = "Tool {n}."
    input_schema = Input{n}

    def execute(self, input, ctx):
        return input.value
"""


def _project(root: Path, tools: int) -> Path:
    imports = "".join(f"from tools.t{n} import Tool{n}\n" for n in range(tools))
    registered = ", ".join(f"Tool{n}()" for n in range(tools))
    agent = (
        "from skillc import Agent, Skill\n"
        + imports
        + f'agent = Agent(name="a", skills=[Skill(name="s", description="S.", tools=[{registered}])])\n'
    )
    files = {"agent.py": agent, "tools/__init__.py": ""}
    files.update({f"tools/t{n}.py": TOOL.format(n=n) for n in range(tools)})
    return write_project(root, files)


def _stable(report: object) -> dict[str, object]:
    document = report_to_dict(report)  # type: ignore[arg-type]
    return {key: value for key, value in document.items() if key not in ("timings", "stats", "dist")}


def test_a_warm_compile_parses_nothing_and_one_change_parses_one_file(tmp_path: Path) -> None:
    _project(tmp_path, 3)
    cold = compile_project(tmp_path)
    assert (cold.stats.files, cold.stats.parsed, cold.stats.cached) == (5, 5, 0)
    warm = compile_project(tmp_path)
    assert (warm.stats.parsed, warm.stats.cached) == (0, 5)
    assert _stable(warm) == _stable(cold)
    with (tmp_path / "src/tools/t1.py").open("a") as stream:
        stream.write("# changed\n")
    changed = compile_project(tmp_path)
    assert (changed.stats.parsed, changed.stats.cached) == (1, 4)
    assert _stable(changed) == _stable(cold)


def test_a_corrupt_index_cache_is_ignored_and_replaced(tmp_path: Path) -> None:
    _project(tmp_path, 2)
    expected = _stable(compile_project(tmp_path))
    for shard in (tmp_path / ".skill/cache").glob("index-*.pickle"):  # the key list too
        shard.write_bytes(b"\x80\x05garbage that is no pickle")
    (tmp_path / ".skill/cache" / REPORT_FILE).unlink()
    report = compile_project(tmp_path)
    assert (report.stats.parsed, report.stats.cached) == (4, 0)
    assert _stable(report) == expected
    (tmp_path / ".skill/cache" / REPORT_FILE).unlink()
    assert compile_project(tmp_path).stats.parsed == 0


def test_a_corrupt_report_cache_is_ignored(tmp_path: Path) -> None:
    _project(tmp_path, 2)
    expected = _stable(compile_project(tmp_path))
    (tmp_path / ".skill/cache" / REPORT_FILE).write_bytes(b"\x80\x05\x95broken")
    report = compile_project(tmp_path)
    assert (report.stats.parsed, report.stats.cached, report.stats.workers) == (0, 4, 1)
    assert _stable(report) == expected


def test_an_unchanged_project_reuses_the_whole_report(tmp_path: Path) -> None:
    _project(tmp_path, 2)
    expected = _stable(compile_project(tmp_path))
    warm = compile_project(tmp_path)
    assert (warm.stats.parsed, warm.stats.workers, warm.timings["link"]) == (0, 0, 0.0)
    assert _stable(warm) == expected
    # The configuration is part of what the report depends on.
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "typo_key = 1\n")
    changed = compile_project(tmp_path)
    assert changed.stats.workers == 1
    assert [item.code for item in changed.diagnostics] == ["skill/unknown-config-key"]


class _Exploit:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("touch pwned",))


@pytest.mark.parametrize("pattern", ["index-*.pickle", REPORT_FILE])
def test_a_cache_that_would_run_code_is_refused(tmp_path: Path, pattern: str) -> None:
    _project(tmp_path, 1)
    compile_project(tmp_path)
    for cache in (tmp_path / ".skill/cache").glob(pattern):
        cache.write_bytes(pickle.dumps({"version": "x", "entries": _Exploit()}))
    report = compile_project(tmp_path)
    assert report.ok and len(report.tools) == 1
    assert not (tmp_path / "pwned").exists()


def test_the_cache_is_written_atomically_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    _project(tmp_path, 1)
    compile_project(tmp_path)
    names = sorted(p.name for p in (tmp_path / ".skill/cache").iterdir())
    assert {REPORT_FILE, INDEX_KEYS_FILE, LINK_FILE} <= set(names)
    artifacts = [n for n in names if n.startswith("artifacts-")]
    assert artifacts and set(artifacts) <= {f"artifacts-{shard}.pickle" for shard in ARTIFACT_SHARDS}
    shards = [n for n in names if n not in (REPORT_FILE, INDEX_KEYS_FILE, LINK_FILE, *artifacts)]
    assert shards and {n for n in shards} <= {f"index-{shard}.pickle" for shard in INDEX_SHARDS}
    assert not any(n.endswith(".tmp") for n in names)


def test_parallel_indexing_gives_the_serial_result(tmp_path: Path) -> None:
    count = PARALLEL_THRESHOLD + 8
    parallel = compile_project(_project(tmp_path / "a", count), use_cache=False)
    assert parallel.stats.workers == min(len(os.sched_getaffinity(0)), 8)
    assert parallel.ok and len(parallel.tools) == count
    serial_root = _project(tmp_path / "b", count)
    # Below the threshold a compile is serial: index in two parts through the cache.
    hidden = range(PARALLEL_THRESHOLD - 4, count)
    for module in hidden:
        (serial_root / f"src/tools/t{module}.py").rename(serial_root / f"src/tools/t{module}.py.off")
    assert compile_project(serial_root).stats.workers == 1
    for module in hidden:
        (serial_root / f"src/tools/t{module}.py.off").rename(serial_root / f"src/tools/t{module}.py")
    serial = compile_project(serial_root)  # the rest, parsed while the cache loads
    assert serial.stats.parsed == len(hidden)
    assert _stable(serial) == _stable(parallel)


def test_changing_one_file_rewrites_at_most_two_cache_shards(tmp_path: Path) -> None:
    _project(tmp_path, 12)
    compile_project(tmp_path)
    shards = tmp_path / ".skill/cache"
    before = {path.name: path.read_bytes() for path in shards.glob("index-??.pickle")}
    with (tmp_path / "src/tools/t3.py").open("a") as stream:
        stream.write("# changed\n")
    assert compile_project(tmp_path).stats.parsed == 1
    after = {path.name: path.read_bytes() for path in shards.glob("index-??.pickle")}
    rewritten = {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}
    # The old content's entry leaves its shard, the new one joins its own.
    assert 1 <= len(rewritten) <= 2


def test_a_stale_key_list_only_costs_time(tmp_path: Path) -> None:
    """The key list says which files to parse early; a wrong one never changes the result."""
    _project(tmp_path, 3)
    expected = _stable(compile_project(tmp_path))
    keys = tmp_path / ".skill/cache" / INDEX_KEYS_FILE
    for damage in (b"garbage", pickle.dumps({"version": "x"})):
        keys.write_bytes(damage)
        (tmp_path / ".skill/cache" / REPORT_FILE).unlink()
        report = compile_project(tmp_path)
        assert (report.stats.parsed, _stable(report)) == (0, expected)
    # Claiming that every file is new: all are parsed early, the answer is the same.
    for shard in (tmp_path / ".skill/cache").glob("index-??.pickle"):
        shard.unlink()
    (tmp_path / ".skill/cache" / REPORT_FILE).unlink()
    report = compile_project(tmp_path)
    assert (report.stats.parsed, _stable(report)) == (5, expected)


def _data_types(root: type) -> set[type]:
    """The dataclasses and enums ``root`` can hold, through its fields, as its annotations say."""
    found: set[type] = set()
    pending: list[object] = [root]
    while pending:
        item = pending.pop()
        if isinstance(item, type) and (dataclasses.is_dataclass(item) or issubclass(item, enum.Enum)):
            if item in found:
                continue
            found.add(item)
            if dataclasses.is_dataclass(item):
                pending.extend(typing.get_type_hints(item).values())
        else:
            pending.extend(typing.get_args(item))
    return found


def test_the_index_cache_can_load_every_type_a_module_summary_holds() -> None:
    """A type the unpickler does not accept makes a shard load as empty: every module in it parsed again."""
    assert _data_types(ModuleIndex) <= set(INDEX_TYPES), _data_types(ModuleIndex) - set(INDEX_TYPES)


def test_held_writes_are_written_once_when_the_block_ends_however_it_ends(tmp_path: Path) -> None:
    path = tmp_path / ".skill" / "cache" / REPORT_FILE
    with pytest.raises(KeyboardInterrupt), held_writes():
        write_cache(path, {"last": 1})
        write_cache(path, {"last": 2})
        assert not path.exists()
        assert load_cache(path, ()) == {"last": 2}  # inside, what is held reads as written
        raise KeyboardInterrupt
    assert load_cache(path, ()) == {"last": 2}
    with held_writes():
        write_cache(path, {})  # nothing to keep: the file goes, at the end
        assert path.exists() and load_cache(path, ()) == {}
    assert not path.exists()
