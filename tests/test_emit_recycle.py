"""The next ``dist/`` is made in the folder the last compile retired: always what a fresh compile makes.

A compile parks the ``dist/`` it replaces in ``.skill/spare/`` and fills it again the next
time.  Each case runs the real ``skill`` command on real folders: after any sequence of
changes ``dist/`` is byte for byte a cold compile's, and whatever is planted in the parked
folder (a link, an extra file, a file linked from outside, a pipe) is never written
through, never read, and never ends up in ``dist/``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import RunSkill, read_tree, write_project, write_tree
from skillc.compiler.dist_record import current_status
from skillc.compiler.output import fingerprint
from skillc.compiler.staging import THREADED_FROM, _each_in_threads, by_folder, spare_folder, stage_dist

TOOL = """from pydantic import BaseModel
from skillc import Tool


class {cls}In(BaseModel):
    value: int = {default}


class {cls}Out(BaseModel):
    value: int


class {cls}(Tool):
    name = "{name}"
    description = "{description}"
    input_schema = {cls}In
{output}
    def execute(self, input, ctx):
        return {{"value": input.value}}
"""

#: One state of the project: each tool's (description, default value, has an output model),
#: and whether its one skill has a condition.
State = tuple[dict[str, tuple[str, int, bool]], bool]


def _write_state(root: Path, state: State) -> Path:
    tools, condition = state
    shutil.rmtree(root / "src", ignore_errors=True)
    files: dict[str, str | bytes] = {"tools/__init__.py": ""}
    for name, (description, default, output) in tools.items():
        cls = name.capitalize()
        files[f"tools/{name}.py"] = TOOL.format(
            cls=cls,
            name=name,
            description=description,
            default=default,
            output=f"    output_schema = {cls}Out\n" if output else "",
        )
    imports = "".join(f"from tools.{name} import {name.capitalize()}\n" for name in tools)
    listed = ", ".join(f"{name.capitalize()}()" for name in tools)
    files["agent.py"] = (
        f"from skillc import Agent, Skill\n{imports}\n\ndef ready() -> bool:\n    return True\n\n\n"
        f'agent = Agent(name="a", skills=[Skill(name="s", description="S.", tools=[{listed}]'
        f"{', condition=ready' if condition else ''})])\n"
    )
    return write_project(root, files)


def _fresh_dist(skill: RunSkill, tmp_path: Path, state: State, label: str) -> dict[str, bytes | str]:
    """What a cold compile (a new project: no cache, no previous dist/) of ``state`` writes."""
    project = _write_state(tmp_path / f"fresh-{label}", state)
    result = skill("compile", cwd=project)
    assert result.code == 0, result.stdout + result.stderr
    return read_tree(project / "dist")


def _compile_changed(skill: RunSkill, project: Path) -> None:
    result = skill("compile", cwd=project)
    assert result.code == 0, result.stdout + result.stderr
    assert "wrote dist/" in result.stdout
    again = skill("compile", cwd=project)  # what was recorded is exactly what is in dist/
    assert again.code == 0 and "dist/ is up to date" in again.stdout, again.stdout


def _files(root: Path) -> dict[str, bytes | str]:
    """``read_tree`` without its folders."""
    return {name: value for name, value in read_tree(root).items() if value != "/"}


def _spares(project: Path) -> list[Path]:
    folder = project / ".skill" / "spare"
    return sorted(folder.iterdir()) if folder.is_dir() else []


@contextlib.contextmanager
def _held(folders: list[Path]) -> Iterator[list[int]]:
    """The inodes of ``folders``, kept open meanwhile: no new folder gets one of those numbers."""
    descriptors = [os.open(folder, os.O_RDONLY | os.O_DIRECTORY) for folder in folders]
    try:
        yield [os.fstat(descriptor).st_ino for descriptor in descriptors]
    finally:
        for descriptor in descriptors:
            os.close(descriptor)


def _nothing_beside_dist(project: Path) -> None:
    assert sorted(path.name for path in project.iterdir()) == [".skill", "dist", "pyproject.toml", "src"]


SIX = {f"t{n}": (f"Tool {n}.", n, False) for n in range(6)}
STATES: list[State] = [
    (SIX, False),
    ({**SIX, "t2": ("Tool 2, described again.", 2, False)}, False),
    ({**SIX, "t6": ("Tool 6.", 6, True), "t7": ("Tool 7.", 7, False)}, True),
    ({name: (text, value, name == "t4") for name, (text, value, _) in SIX.items() if name not in ("t0", "t3")}, True),
    ({**SIX, "t1": ("Tool 1.", 100, False)}, False),
    ({"t5": SIX["t5"]}, False),
    (SIX, False),
]


def test_after_many_changes_dist_is_byte_for_byte_a_cold_compiles(skill: RunSkill, tmp_path: Path) -> None:
    project = tmp_path / "p"
    for number, state in enumerate(STATES):
        _write_state(project, state)
        with _held(_spares(project)) as parked:
            _compile_changed(skill, project)
            assert parked == ([] if number < 2 else [(project / "dist").stat().st_ino])  # the parked folder, refilled
        assert read_tree(project / "dist") == _fresh_dist(skill, tmp_path, state, str(number)), f"state {number}"
        _nothing_beside_dist(project)
        assert len(_spares(project)) == (0 if number == 0 else 1)  # one parked folder, in .skill/ only


def test_a_failed_compile_keeps_the_parked_folder_usable(skill: RunSkill, tmp_path: Path) -> None:
    project = tmp_path / "p"
    for state in STATES[:2]:
        _write_state(project, state)
        _compile_changed(skill, project)
    broken = project / "src/agent.py"
    broken.write_text(broken.read_text().replace("tools=[", "tools=[Nowhere(), "))
    assert skill("compile", cwd=project).code == 1
    _write_state(project, STATES[2])
    _compile_changed(skill, project)
    assert read_tree(project / "dist") == _fresh_dist(skill, tmp_path, STATES[2], "after-failure")
    _nothing_beside_dist(project)


# --- whatever is planted in the parked folder ------------------------------------------


def _plant_symlinked_file(spare: Path, outside: Path) -> None:
    (spare / "tools/t1/tool.json").unlink()
    (spare / "tools/t1/tool.json").symlink_to(outside / "victim.json")


def _plant_symlinked_folder(spare: Path, outside: Path) -> None:
    shutil.rmtree(spare / "tools/t1")
    (spare / "tools/t1").symlink_to(outside / "folder", target_is_directory=True)


def _plant_symlinked_spare(spare: Path, outside: Path) -> None:
    shutil.rmtree(spare)
    spare.symlink_to(outside / "folder", target_is_directory=True)


def _plant_symlinked_spare_folder(spare: Path, outside: Path) -> None:
    shutil.rmtree(spare.parent)
    spare.parent.symlink_to(outside / "folder", target_is_directory=True)


def _plant_extra_files(spare: Path, outside: Path) -> None:
    write_tree(spare, {"notes.txt": "planted\n", "tools/t1/extra.py": "planted = 1\n", "tools/t9/tool.json": "{}\n"})


def _plant_hard_link_from_outside(spare: Path, outside: Path) -> None:
    (spare / "tools/t1/bundle.zip").unlink()
    os.link(outside / "victim.json", spare / "tools/t1/bundle.zip")


def _plant_outside_name_of_a_dist_file(spare: Path, outside: Path) -> None:
    os.link(spare / "tools/t1/tool.json", outside / "alias.json")  # the very file dist/ holds


def _plant_pipe(spare: Path, outside: Path) -> None:
    (spare / "tools/t1/input.schema.json").unlink()
    os.mkfifo(spare / "tools/t1/input.schema.json")  # opened for reading, it would block forever


PLANTS: dict[str, Callable[[Path, Path], None]] = {
    "symlinked-file": _plant_symlinked_file,
    "symlinked-folder": _plant_symlinked_folder,
    "symlinked-spare": _plant_symlinked_spare,
    "symlinked-spare-folder": _plant_symlinked_spare_folder,
    "extra-files": _plant_extra_files,
    "hard-link-from-outside": _plant_hard_link_from_outside,
    "outside-name-of-a-dist-file": _plant_outside_name_of_a_dist_file,
    "pipe": _plant_pipe,
}


@pytest.mark.parametrize("plant", PLANTS.values(), ids=PLANTS.keys())
def test_what_is_planted_in_the_parked_folder_never_reaches_dist(
    skill: RunSkill, tmp_path: Path, plant: Callable[[Path, Path], None]
) -> None:
    project = tmp_path / "p"
    for state in STATES[:2]:
        _write_state(project, state)
        _compile_changed(skill, project)
    [spare] = _spares(project)
    outside = write_tree(
        tmp_path / "outside",
        {"victim.json": '{"mine": true}\n', "folder/tool.json": "mine\n", "folder/bundle.zip": b"mine"},
    )
    plant(spare, outside)
    before = read_tree(outside)
    for number, state in enumerate(STATES[2:4]):  # the planted folder, then the one parked after it
        _write_state(project, state)
        with _held([spare] if number == 0 and spare.is_dir() and not spare.is_symlink() else []) as planted:
            _compile_changed(skill, project)
            assert (project / "dist").stat().st_ino not in planted  # not used: a new folder was made instead
        assert read_tree(project / "dist") == _fresh_dist(skill, tmp_path, state, str(number))
        assert read_tree(outside) == before  # nothing written, moved or deleted through a link
        inodes = {path.stat().st_ino for path in (project / "dist").rglob("*") if path.is_file()}
        assert not inodes & {path.stat().st_ino for path in outside.rglob("*") if path.is_file()}
        assert [path.name for path in project.iterdir() if path.name.startswith(".dist-")] == []


def test_a_deleted_dist_is_written_whole_from_the_parked_folder(skill: RunSkill, tmp_path: Path) -> None:
    project = tmp_path / "p"
    for state in STATES[:2]:
        _write_state(project, state)
        _compile_changed(skill, project)
    shutil.rmtree(project / "dist")
    _write_state(project, STATES[2])
    _compile_changed(skill, project)
    assert read_tree(project / "dist") == _fresh_dist(skill, tmp_path, STATES[2], "deleted")
    _nothing_beside_dist(project)


def test_an_out_folder_outside_the_project_is_refilled_with_nothing_left_beside_it(
    skill: RunSkill, tmp_path: Path
) -> None:
    project, out = tmp_path / "p", tmp_path / "builds" / "agent"
    for number, state in enumerate(STATES[:4]):
        _write_state(project, state)
        result = skill("compile", "--out", str(out), cwd=project)
        assert result.code == 0, result.stdout + result.stderr
        assert read_tree(out) == _fresh_dist(skill, tmp_path, state, f"out-{number}")
        assert sorted(path.name for path in out.parent.iterdir()) == ["agent"]
        assert sorted(path.name for path in project.iterdir()) == [".skill", "pyproject.toml", "src"]


def test_folders_filled_in_threads_have_all_ended_before_the_first_failure_is_raised() -> None:
    ended: list[int] = []

    def fill(number: int) -> int:
        time.sleep(0.002 * (10 - number))  # the later jobs end first
        ended.append(number)
        if number in (3, 7):
            raise OSError(f"job {number} failed")
        return number * 2

    jobs = list(range(10))
    assert len(jobs) >= THREADED_FROM
    with pytest.raises(OSError, match="job 3 failed"):  # the first in the jobs' order, not in time
        _each_in_threads(fill, jobs)
    assert sorted(ended) == jobs
    assert _each_in_threads(lambda number: number * 2, jobs) == [number * 2 for number in jobs]


@pytest.mark.parametrize("fingerprinted", [True, False], ids=["fingerprint", "no-fingerprint"])
def test_a_fill_without_a_parked_folder_links_what_is_unchanged_and_writes_the_rest(
    tmp_path: Path, fingerprinted: bool
) -> None:
    """Folders the previous ``dist/`` has are filled in this thread, new ones in threads: the same tree either way."""
    out = tmp_path / "dist"
    before = {f"tools/t{n}/{name}": f"{n} {name}".encode() for n in range(5) for name in ("tool.json", "bundle.zip")}
    write_tree(out, {"manifest.json": b"{}", **before})
    after = {
        "manifest.json": b'{"tools": 10}',
        **before,
        "tools/t0/bundle.zip": b"changed",
        **{f"tools/t{n}/{name}": f"{n} {name}".encode() for n in range(5, 10) for name in ("tool.json", "bundle.zip")},
    }
    now = current_status(fingerprint(out)) if fingerprinted else None
    staged = stage_dist(out, spare_folder(tmp_path, out), by_folder(after), now=now)
    try:
        assert _files(staged.path) == after
        shared = {
            relative
            for relative in after
            if (out / relative).exists() and os.path.samefile(out / relative, staged.path / relative)
        }
        assert shared == set(before) - {"tools/t0/bundle.zip"}
        assert staged.shared == len(shared)
        assert staged.record.fingerprint() == fingerprint(staged.path)
        assert _files(out) == {"manifest.json": b"{}", **before}  # the current dist/ is untouched
    finally:
        shutil.rmtree(staged.path)
