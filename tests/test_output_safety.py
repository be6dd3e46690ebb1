"""The output folder is never anything but skillc's: refusals, one writer at a time, repair.

Every case runs the real ``skill`` command on real folders, and checks what a user would
lose if skillc got it wrong: the files around the output folder, byte for byte.
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import subprocess
import time
from pathlib import Path

import pytest
from helpers import COMMAND_TIMEOUT, SKILL, RunSkill, read_tree, write_tree
from skillc.templates import scaffold_project


def _outside_dist(root: Path, out: str = "dist") -> dict[str, bytes | str]:
    """The tree of ``root`` but ``out`` and ``.skill/``: what a compile must never touch."""
    return {name: value for name, value in read_tree(root, skip=(out, ".skill")).items() if name not in (out, ".skill")}


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    scaffold_project(Path("demo"), cwd=tmp_path)
    return tmp_path / "demo"


# --- 1. out may only name skillc's own output -------------------------------------


@pytest.mark.parametrize(
    ("out", "message"),
    [
        (".", "which holds the project itself"),
        ("..", "which holds the project itself"),
        ("src", "which is or holds source files"),
        ("src/skills", "which is or holds source files"),
        ("tests", "it is not skillc's output"),
        (".git", "it is not skillc's output"),
        ("wheels", "it is not skillc's output"),
        ("../outside", "it is not skillc's output"),
        ("pyproject.toml", "it is a file, not a folder skillc wrote"),
    ],
)
def test_out_on_the_command_line_never_replaces_what_skillc_did_not_write(
    skill: RunSkill, demo: Path, out: str, message: str
) -> None:
    write_tree(demo, {".git/HEAD": "ref: refs/heads/main\n", "wheels/demo-0.1.0-py3-none-any.whl": b"PK\x03\x04"})
    write_tree(demo.parent, {"outside/notes.txt": "mine\n"})
    before = read_tree(demo.parent)
    result = skill("compile", "--out", out, cwd=demo)
    assert result.code == 2, result.stdout + result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert read_tree(demo.parent) == before
    assert not (demo / "dist").exists()


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ('"../elsewhere"', "leads outside the project"),
        ('"/tmp"', "leads outside the project"),
        ('"."', "which holds the project itself"),
        ('"src"', "which is or holds source files"),
        ('"tests"', "it is not skillc's output"),
    ],
)
def test_out_in_the_configuration_stays_inside_the_project(
    skill: RunSkill, demo: Path, setting: str, message: str
) -> None:
    pyproject = demo / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('out = "dist"', f"out = {setting}"))
    write_tree(demo.parent, {"elsewhere/keep.txt": "keep\n"})
    before = _outside_dist(demo.parent)
    result = skill("compile", cwd=demo)
    assert result.code == 2, result.stdout + result.stderr
    assert message in result.stderr
    assert _outside_dist(demo.parent) == before


def test_a_dist_symlink_is_refused_and_its_target_kept(skill: RunSkill, demo: Path) -> None:
    target = write_tree(demo.parent / "builds", {"release.tar.gz": b"\x1f\x8b important"})
    (demo / "dist").symlink_to(target, target_is_directory=True)
    before = read_tree(target)
    result = skill("compile", cwd=demo)
    assert result.code == 2
    assert "a symbolic link" in result.stderr
    assert read_tree(target) == before and (demo / "dist").is_symlink()


def test_a_dist_with_foreign_files_is_refused_naming_them(skill: RunSkill, demo: Path) -> None:
    assert skill("compile", cwd=demo).code == 0
    write_tree(demo, {"dist/notes.txt": "mine\n", "dist/tools/lookup_order/extra.py": "x = 1\n"})
    src = demo / "src/skills/tools/store.py"
    src.write_text(src.read_text() + "\n# changed\n")  # a change: the compile must write
    result = skill("compile", cwd=demo)
    assert result.code == 2
    assert "it holds files skillc did not write (notes.txt, tools/lookup_order/extra.py)" in result.stderr
    assert (demo / "dist/notes.txt").read_text() == "mine\n"


def test_an_explicit_out_outside_the_project_is_written_then_replaced(skill: RunSkill, demo: Path) -> None:
    out = demo.parent / "builds" / "agent"
    first = skill("compile", "--out", str(out), cwd=demo)
    assert first.code == 0, first.stderr
    assert json.loads((out / "manifest.json").read_text())["agent"]["name"] == "demo"
    agent = demo / "src/agent.py"
    agent.write_text(agent.read_text() + "\n")
    assert skill("compile", "--out", str(out), cwd=demo).code == 0
    assert sorted(p.name for p in out.parent.iterdir()) == ["agent"]  # no staging folder left


def test_a_dist_that_lost_its_manifest_is_still_skillcs_own(skill: RunSkill, demo: Path) -> None:
    assert skill("compile", cwd=demo).code == 0
    (demo / "dist/manifest.json").unlink()
    result = skill("compile", cwd=demo)
    assert result.code == 0, result.stderr
    assert "wrote dist/" in result.stdout and (demo / "dist/manifest.json").is_file()


# --- 2. concurrent compiles --------------------------------------------------------


def _start(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(SKILL), *args],
        cwd=project,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_concurrent_compiles_always_leave_one_complete_dist(skill: RunSkill, demo: Path) -> None:
    """Several compiles at once, round after round: dist/ is always one whole compile's output."""
    tool = demo / "src/skills/tools/store.py"
    variants = [tool.read_text(), tool.read_text() + "\nSEEN = 1\n"]
    references: list[dict[str, bytes | str]] = []
    for text in variants:  # what one compile alone makes of each variant
        tool.write_text(text)
        assert skill("compile", cwd=demo).code == 0
        references.append(read_tree(demo / "dist"))
    assert references[0] != references[1]
    rounds = random.Random(9)
    for number in range(8):
        variant = number % 2
        tool.write_text(variants[variant])
        if rounds.random() < 0.3:
            (demo / "dist/tools/cancel_order/bundle.zip").unlink()  # and some rounds repair a damaged one
        before = _outside_dist(demo)
        runs = [_start(demo, "compile", "--format", "json") for _ in range(3)]
        for run in runs:
            out, err = run.communicate(timeout=COMMAND_TIMEOUT)
            assert run.returncode == 0, err
            assert json.loads(out)["ok"] and "Traceback" not in err
        assert read_tree(demo / "dist") == references[variant], f"round {number}"
        assert _outside_dist(demo) == before, f"round {number}: something else changed"
        assert [p.name for p in demo.iterdir() if p.name.startswith(".dist-")] == []


def test_a_compile_waits_for_another_writer_then_gives_up_clearly(demo: Path) -> None:
    descriptor = os.open(demo, os.O_RDONLY)  # the lock a compile writing demo/dist takes
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        run = _start(demo, "compile", env={"SKILL_LOCK_TIMEOUT": "1"})
        out, err = run.communicate(timeout=COMMAND_TIMEOUT)
        assert run.returncode == 1
        assert f"waiting for another skill compile to finish writing {demo / 'dist'}" in err
        assert "another skill compile has been writing" in err and "giving up" in err
        assert not (demo / "dist").exists()
        run = _start(demo, "compile")
        time.sleep(0.5)
    finally:
        os.close(descriptor)
    out, err = run.communicate(timeout=COMMAND_TIMEOUT)
    assert run.returncode == 0, err
    assert (demo / "dist/manifest.json").is_file()


def test_a_compile_removes_only_the_leftovers_of_dead_compiles(skill: RunSkill, demo: Path) -> None:
    ended = subprocess.Popen(["true"])
    ended.wait()  # its pid belongs to no process now
    gone = demo / f".dist-new-dist-{ended.pid}-abc"
    alive = demo / f".dist-new-dist-{os.getpid()}-abc"  # this process still runs: not a leftover
    other = demo / f".dist-new-build-{ended.pid}-abc"  # another output folder's: not ours to touch
    for folder in (gone, alive, other):
        write_tree(folder, {"manifest.json": "{}"})
    assert skill("compile", cwd=demo).code == 0
    assert not gone.exists() and alive.exists() and other.exists()


# --- 3. a damaged dist/ is repaired ---------------------------------------------------


@pytest.mark.parametrize("damage", ["delete-bundle", "same-size-edit", "delete-tool-folder", "touch-manifest"])
def test_a_damaged_dist_is_rebuilt(skill: RunSkill, demo: Path, damage: str) -> None:
    assert skill("compile", cwd=demo).code == 0
    whole = read_tree(demo / "dist")
    bundle = demo / "dist/tools/lookup_order/bundle.zip"
    if damage == "delete-bundle":
        bundle.unlink()
    elif damage == "same-size-edit":
        data = bytearray(bundle.read_bytes())
        data[40] ^= 0xFF
        bundle.write_bytes(bytes(data))
        stat = bundle.stat()
        os.utime(bundle, ns=(stat.st_atime_ns, stat.st_mtime_ns - 10**9))
    elif damage == "delete-tool-folder":
        for path in sorted((demo / "dist/tools/cancel_order").iterdir()):
            path.unlink()
        (demo / "dist/tools/cancel_order").rmdir()
    else:
        os.utime(demo / "dist/manifest.json")
    result = skill("compile", cwd=demo)
    assert result.code == 0
    assert "wrote dist/" in result.stdout
    assert read_tree(demo / "dist") == whole
    assert skill("test", "--name", "lookup_order", "--input", '{"order_id": "A1001"}', cwd=demo).code == 0


def test_an_untouched_dist_is_up_to_date(skill: RunSkill, demo: Path) -> None:
    assert skill("compile", cwd=demo).code == 0
    assert "dist/ is up to date" in skill("compile", cwd=demo).stdout


# --- 5. importing project code needs the user's consent ------------------------------------


IMPORTED_TOOL = """\
import fractions
from pathlib import Path

from pydantic import BaseModel
from skillc import Tool

Path({marker!r}).write_text("ran")


class PingInput(BaseModel):
    share: fractions.Fraction  # outside the static subset: only pydantic can say its schema


class Ping(Tool):
    name = "ping"
    description = "Ping with a share."
    input_schema = PingInput

    def execute(self, input, ctx):
        return str(input.share)
"""


def test_schema_import_runs_project_code_only_with_allow_import(skill: RunSkill, tmp_path: Path) -> None:
    project = tmp_path / "p"
    agent = (
        "from skillc import Agent, Skill\nfrom tools import Ping\n"
        'agent = Agent(name="a", skills=[Skill(name="s", description="S.", tools=[Ping()])])\n'
    )
    pyproject = (
        '[project]\nname = "p"\nversion = "0"\ndependencies = ["skillc", "pydantic>=2"]\n'
        '[tool.skill]\nentry = "src/agent.py"\nschema = "import"\n'
    )
    marker = tmp_path / "imported.marker"  # written by the tool's module when it is imported
    write_tree(
        project,
        {"pyproject.toml": pyproject, "src/agent.py": agent, "src/tools.py": IMPORTED_TOOL.format(marker=str(marker))},
    )
    for args in (["compile"], ["compile", "--check"], ["test", "--name", "ping", "--input", '{"share": "1/3"}']):
        result = skill(*args, cwd=project)
        assert result.code == 1, (args, result.stdout, result.stderr)
        shown = result.stdout + result.stderr
        assert "error[skill/schema-unsupported]" in shown and "skill compile --allow-import" in shown
        assert not marker.exists(), f"{args} imported the project's code"
    result = skill("compile", "--allow-import", cwd=project)
    assert result.code == 0, result.stdout + result.stderr
    assert "importing the bundle of tool 'ping' to build its schema (--allow-import)" in result.stderr
    assert marker.read_text() == "ran"
    schema = json.loads((project / "dist/tools/ping/input.schema.json").read_text())
    assert schema["properties"]["share"]["anyOf"][1]["format"] == "fraction"
    # What was compiled with consent stays usable without asking again.
    assert skill("test", "--name", "ping", "--input", '{"share": "1/3"}', cwd=project).code == 0


# --- 12. thousands of unknown keys ---------------------------------------------------------


def test_thousands_of_unknown_keys_each_warn_once_at_their_line(skill: RunSkill, demo: Path) -> None:
    pyproject = demo / "pyproject.toml"
    text = pyproject.read_text()
    header = text.splitlines().index("[tool.skill]") + 1
    keys = "".join(f"unknown_{number:04d} = {number}\n" for number in range(4000))
    pyproject.write_text(text.replace("[tool.skill]\n", "[tool.skill]\n" + keys))
    result = skill("compile", "--check", "--format", "json", cwd=demo)
    assert result.code == 0
    warnings = [item for item in json.loads(result.stdout)["diagnostics"] if item["code"] == "skill/unknown-config-key"]
    assert len(warnings) == 4000
    assert {item["message"]: item["line"] for item in warnings} == {
        f"unknown key 'unknown_{number:04d}' in [tool.skill]": header + 1 + number for number in range(4000)
    }
