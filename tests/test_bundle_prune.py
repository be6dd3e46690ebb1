"""Extracted bundles that no process used for a week are removed; one in use never is.

Every compile of a changed tool extracts one more folder into the per-user bundle cache.
A process holds a shared lock on each folder it uses for as long as it runs; the pruner
takes the exclusive lock without waiting before it removes a folder, at most once a day,
in the background, and whatever goes wrong while it prunes never fails a command.
"""

from __future__ import annotations

import gc
import hashlib
import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import AGENT, COMMAND_TIMEOUT, RunSkill, write_project
from skillc.compiler.bundle import write_archive
from skillc.runtime.bundle_cache import locks_folder, prune_bundles
from skillc.runtime.bundles import ModuleSpace

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock")

FILES = {"shop/__init__.py": b"", "shop/data.json": b'{"apple": 3}'}
#: Extract ``FILES`` as the bundle ``argv[1]``, print the folder, and, with ``hold``, keep
#: running until a line arrives, then read the data file again; with ``reread``, read it
#: again and again for a while.
CHILD = textwrap.dedent(
    """
    import sys
    from skillc.runtime.extract import extracted_folder
    files = {"shop/__init__.py": b"", "shop/data.json": b'{"apple": 3}'}
    folder = extracted_folder(sys.argv[1], files)
    print(folder, flush=True)
    assert (folder / "shop" / "data.json").read_bytes() == files["shop/data.json"]
    if sys.argv[2:] == ["hold"]:
        sys.stdin.readline()
        print((folder / "shop" / "data.json").read_text(), flush=True)
    if sys.argv[2:] == ["reread"]:
        import time
        for _ in range(100):
            assert (folder / "shop" / "data.json").read_bytes() == files["shop/data.json"]
            time.sleep(0.002)
    """
)
OLD = 30 * 24 * 3600.0


def _sha(label: str) -> str:
    return hashlib.sha256(label.encode()).hexdigest()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"XDG_CACHE_HOME": str(tmp_path / "user-cache")}


@pytest.fixture
def root(env: dict[str, str]) -> Path:
    """The bundle cache, with a fresh prune stamp: the helpers' own processes do not prune."""
    folder = Path(env["XDG_CACHE_HOME"]) / "skillc" / "bundles"
    folder.mkdir(mode=0o700, parents=True)
    locks_folder(folder).mkdir(mode=0o700)
    (locks_folder(folder) / "prune.stamp").touch()
    return folder


def _run_child(script: str, *args: str, env: dict[str, str]) -> str:
    """Run ``script`` in a Python process of its own, with the bundle cache of ``env``; what it printed."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _extract(sha: str, env: dict[str, str]) -> Path:
    """Extract a bundle in a process of its own that then ends."""
    return Path(_run_child(CHILD, sha, env=env).strip())


def _holder(sha: str, env: dict[str, str]) -> tuple[subprocess.Popen[str], Path]:
    """A process that uses the extracted bundle ``sha`` until it is told to stop."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, sha, "hold"],
        env={**os.environ, **env},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    return child, Path(child.stdout.readline().strip())


def _release(child: subprocess.Popen[str]) -> str:
    out, err = child.communicate("\n", timeout=COMMAND_TIMEOUT)
    assert child.returncode == 0, err
    return out


def _age(*paths: Path, seconds: float = OLD) -> None:
    then = time.time() - seconds
    for path in paths:
        os.utime(path, (then, then), follow_symlinks=False)


def _lock(root: Path, sha: str) -> Path:
    return locks_folder(root) / f"{sha}.lock"


def _plant_legacy(root: Path, sha: str) -> Path:
    """A folder an older skillc extracted, with no lock file, unused for a month."""
    folder = root / sha
    (folder / "shop").mkdir(parents=True)
    (folder / "shop" / "data.json").write_bytes(FILES["shop/data.json"])
    _age(folder / "shop", folder)
    return folder


def test_skill_test_prunes_what_is_unused_and_keeps_what_a_live_process_uses(
    tmp_path: Path, skill: RunSkill, env: dict[str, str], root: Path
) -> None:
    project = write_project(tmp_path / "p", {"agent.py": AGENT})
    assert skill("compile", str(project), env=env).code == 0
    held, old, legacy, fresh, link, lock_only = (_sha(name) for name in ("held", "old", "legacy", "fresh", "l", "q"))
    child, held_folder = _holder(held, env)
    try:
        assert held_folder == root / held
        _age(held_folder, _lock(root, held))  # used a month ago, and still in use
        _age(_extract(old, env), _lock(root, old))
        _plant_legacy(root, legacy)
        _extract(fresh, env)
        outside = tmp_path / "outside"
        (outside / "shop").mkdir(parents=True)
        (outside / "shop" / "data.json").write_text("not skillc's")
        (root / link).symlink_to(outside, target_is_directory=True)
        _age(root / link)
        _lock(root, lock_only).touch()
        _age(_lock(root, lock_only))
        dead_work, live_work = root / ".0123456789abcdef-k2j3h4g5", root / ".fedcba9876543210-z9y8x7w6"
        dead_work.mkdir()
        live_work.mkdir()
        _age(dead_work)
        _age(locks_folder(root) / "prune.stamp", seconds=2 * 24 * 3600)  # the last prune was two days ago

        tested = skill("test", "--name", "ping", "--input", '{"text": "hi"}', str(project), env=env)
        assert tested.code == 0, tested.stdout + tested.stderr
        assert "hi" in tested.stdout and "prune" not in tested.stderr

        (ping,) = {path.name for path in root.iterdir()} - {held, fresh, link, live_work.name}
        assert {path.name for path in root.iterdir()} == {held, fresh, link, live_work.name, ping}
        assert {path.name for path in locks_folder(root).iterdir()} == {
            f"{held}.lock",
            f"{fresh}.lock",
            f"{ping}.lock",
            "prune.stamp",
        }
        assert time.time() - (locks_folder(root) / "prune.stamp").stat().st_mtime < 600
        assert (outside / "shop" / "data.json").read_text() == "not skillc's"  # the link was never followed
        assert (root / link).is_symlink()
    finally:
        output = _release(child)
    assert output.splitlines()[-1] == '{"apple": 3}'  # the live process still reads its folder


def test_pruning_runs_at_most_once_a_day(tmp_path: Path, skill: RunSkill, env: dict[str, str], root: Path) -> None:
    project = write_project(tmp_path / "p", {"agent.py": AGENT})
    assert skill("compile", str(project), env=env).code == 0
    legacy = _plant_legacy(root, _sha("legacy"))
    _age(locks_folder(root) / "prune.stamp", seconds=23 * 3600)
    assert skill("test", "--name", "ping", "--input", '{"text": "a"}', str(project), env=env).code == 0
    assert legacy.is_dir()  # the last prune was less than a day ago
    _age(locks_folder(root) / "prune.stamp", seconds=25 * 3600)
    assert skill("test", "--name", "ping", "--input", '{"text": "b"}', str(project), env=env).code == 0
    assert not legacy.exists()


def test_a_held_folder_survives_even_a_prune_that_finds_everything_stale(env: dict[str, str], root: Path) -> None:
    child, held = _holder(_sha("held"), env)
    try:
        unheld = _extract(_sha("unheld"), env)
        assert prune_bundles(root, max_age=-60) == (unheld.name,)
        assert held.is_dir() and not unheld.exists() and _lock(root, held.name).is_file()
    finally:
        assert _release(child).splitlines()[-1] == '{"apple": 3}'
    assert prune_bundles(root, max_age=-60) == (held.name,)  # its process has ended
    assert list(root.iterdir()) == [] and [path.name for path in locks_folder(root).iterdir()] == ["prune.stamp"]


def test_a_folder_is_let_go_once_the_modules_that_use_it_are_gone(
    env: dict[str, str], root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
    first, second = (
        write_archive([("shop/__init__.py", b""), ("shop/prices.py", f"P = {n}\n".encode())]) for n in (1, 2)
    )
    space = ModuleSpace()
    assert space.import_bundle(first, "first.zip", "shop.prices", "P") == 1
    folder = root / hashlib.sha256(first).hexdigest()
    assert folder.is_dir() and prune_bundles(root, max_age=-60) == ()  # held while the space lives
    del space
    gc.collect()
    assert ModuleSpace().import_bundle(second, "second.zip", "shop.prices", "P") == 2  # lets the first go
    assert folder.name in prune_bundles(root, max_age=-60) and not folder.exists()


def test_processes_extracting_while_the_pruner_runs_always_see_a_whole_folder(env: dict[str, str], root: Path) -> None:
    """Three waves of two processes extract the same folder while the pruner runs without a pause.

    Within a wave, one process may end and the pruner take the folder while the other is
    still extracting it; between waves, nobody holds it, so the pruner takes it for sure
    and the next wave extracts it again.
    """
    sha = _sha("contended")
    deadline = time.monotonic() + COMMAND_TIMEOUT
    pruned: list[str] = []
    for _ in range(3):
        children = [
            subprocess.Popen(
                [sys.executable, "-c", CHILD, sha, "reread"],
                env={**os.environ, **env},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        while any(child.poll() is None for child in children) and time.monotonic() < deadline:
            pruned.extend(prune_bundles(root, max_age=-60))  # every folder no process holds goes at once
        for child in children:
            _, err = child.communicate(timeout=COMMAND_TIMEOUT)
            assert child.returncode == 0, err  # each read the whole data file from its folder, every time
        pruned.extend(prune_bundles(root, max_age=-60))
        assert list(root.iterdir()) == []  # the wave's folder went, and nothing half-removed is left behind
    assert len(pruned) >= 3 and set(pruned) == {sha}


def test_a_planted_link_as_a_lock_file_is_never_followed(env: dict[str, str], root: Path, tmp_path: Path) -> None:
    folder = _plant_legacy(root, _sha("legacy"))
    outside = tmp_path / "somebody's file"
    outside.write_text("keep me")
    _age(outside)
    before = outside.stat()
    _lock(root, folder.name).symlink_to(outside)
    assert prune_bundles(root) == ()  # a folder whose lock is not skillc's cannot be proved unused
    assert folder.is_dir() and outside.read_text() == "keep me"
    after = outside.stat()
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)


def test_the_lock_folder_is_private_and_pruning_problems_never_fail_a_command(
    tmp_path: Path, skill: RunSkill, env: dict[str, str]
) -> None:
    project = write_project(tmp_path / "p", {"agent.py": AGENT})
    assert skill("compile", str(project), env=env).code == 0
    assert skill("test", "--name", "ping", "--input", '{"text": "a"}', str(project), env=env).code == 0
    cache = Path(env["XDG_CACHE_HOME"]) / "skillc"
    assert stat.S_IMODE((cache / "bundles.locks").stat().st_mode) == 0o700
    # No lock folder can be made: nothing is held or pruned, and the call works as before.
    for path in (cache / "bundles.locks").iterdir():
        path.unlink()
    (cache / "bundles.locks").rmdir()
    (cache / "bundles.locks").write_text("in the way")
    legacy = _plant_legacy(cache / "bundles", _sha("legacy"))
    tested = skill("test", "--name", "ping", "--input", '{"text": "b"}', str(project), env=env)
    assert tested.code == 0 and "b" in tested.stdout and tested.stderr == "", tested.stderr
    assert legacy.is_dir()


#: Load the compiled project ``argv[1]`` with a soft limit of ``argv[2]`` descriptors and call
#: every tool; print how many succeeded, then the descriptors held and free after the calls.
MANY_TOOLS_CHILD = textwrap.dedent(
    """
    import asyncio, os, resource, sys
    from pathlib import Path
    resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[2]), resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    from skillc.runtime import load_dist
    from skillc.runtime.context import ToolContext

    async def main():
        runtime = load_dist(Path(sys.argv[1]) / "dist")
        results = [await runtime.call(name, '{"n": 2}', "c", ToolContext()) for name in runtime.tool_names]
        print(sum(not result.is_error for result in results), len(results))
        print(next((result.output for result in results if result.is_error), "no error"))
        opened = []
        try:  # what the process can still open: its tools' own files and sockets need descriptors
            while len(opened) < 16:
                opened.append(os.open(os.devnull, os.O_RDONLY))
        except OSError as error:
            print("cannot open:", error)
        print(len(opened), "opened")
        runtime.close()

    asyncio.run(main())
    """
)


def _many_tools_project(tmp_path: Path, skill: RunSkill, env: dict[str, str], count: int) -> Path:
    """A compiled project of ``count`` tools, each in a module (a bundle) of its own."""
    sources = {
        f"tool_{number}.py": f"from skillc import tool\n\n\n@tool\ndef tool_{number}(n: int) -> int:\n"
        f'    """Multiply by {number}."""\n    return n * {number}\n'
        for number in range(count)
    }
    imports = "".join(f"from tool_{number} import tool_{number}\n" for number in range(count))
    tools = ", ".join(f"tool_{number}" for number in range(count))
    sources["agent.py"] = (
        f"from skillc import Agent, Skill\n{imports}\n\n"
        f'agent = Agent(name="many", skills=[Skill(name="s", tools=[{tools}])])\n'
    )
    project = write_project(tmp_path / "many", sources)
    compiled = skill("compile", str(project), env=env)
    assert compiled.code == 0, compiled.stdout + compiled.stderr
    return project


def test_a_process_with_more_tools_than_descriptors_holds_a_share_and_runs_them_all(
    tmp_path: Path, skill: RunSkill, env: dict[str, str], root: Path
) -> None:
    count, limit = 60, 64  # macOS's default soft limit is 256: a project of 300 tools
    project = _many_tools_project(tmp_path, skill, env, count)
    printed = _run_child(MANY_TOOLS_CHILD, str(project), str(limit), env=env)
    assert printed.splitlines() == [f"{count} {count}", "no error", "16 opened"]
    folders = [path.name for path in root.iterdir() if len(path.name) == 64]
    assert len(folders) == count  # one extracted folder per tool
    locks = {path.name for path in locks_folder(root).iterdir()} - {"prune.stamp"}
    assert locks == {f"{name}.lock" for name in folders}  # each held, or marked used without a descriptor
    assert prune_bundles(root) == ()  # every one was used just now


#: As ``MANY_TOOLS_CHILD``, with the folders marked again every 0.1 s: after the calls, make
#: every folder and lock file look unused for 30 days, wait (bounded) until the unheld ones
#: are marked again, and print what a prune then removes; close the runtime, let its modules
#: go, make everything old again, and print what a prune removes once no tool uses them.
REMARK_CHILD = textwrap.dedent(
    """
    import asyncio, gc, os, resource, sys, time
    from pathlib import Path
    resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[2]), resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    from skillc.runtime import bundle_cache, load_dist
    from skillc.runtime.context import ToolContext
    bundle_cache._REMARK_EVERY = 0.1
    root = Path(os.environ["XDG_CACHE_HOME"]) / "skillc" / "bundles"
    locks = bundle_cache.locks_folder(root)

    def age_everything():
        old = time.time() - 30 * 24 * 3600
        for path in [*root.iterdir(), *locks.iterdir()]:
            if path.name != "prune.stamp":
                os.utime(path, (old, old))

    def old_locks():
        return sum(time.time() - path.stat().st_mtime > 24 * 3600 for path in locks.glob("*.lock"))

    async def main():
        runtime = load_dist(Path(sys.argv[1]) / "dist")
        results = [await runtime.call(name, '{"n": 2}', "c", ToolContext()) for name in runtime.tool_names]
        print(sum(not result.is_error for result in results), "called")
        age_everything()
        held = int(sys.argv[2]) // 4
        deadline = time.monotonic() + 20
        while old_locks() > held and time.monotonic() < deadline:
            time.sleep(0.01)
        print(old_locks(), "old")
        print(len(bundle_cache.prune_bundles(root)), "pruned while used")
        runtime.close()
        return len(results)

    count = asyncio.run(main())
    gc.collect()
    time.sleep(0.3)  # a tick of the marking thread lets the collected holders go
    age_everything()
    time.sleep(0.5)  # five ticks: nothing is marked again
    print(len(bundle_cache.prune_bundles(root)), "pruned once unused of", count)
    """
)


def test_a_folder_used_past_the_share_is_marked_used_again_while_it_is_used(
    tmp_path: Path, skill: RunSkill, env: dict[str, str], root: Path
) -> None:
    # A server that runs for weeks with more tools than its share: each day, a prune that
    # removes what was unused for a week must find none of the folders it uses unheld stale.
    count, limit = 40, 64
    project = _many_tools_project(tmp_path, skill, env, count)
    printed = _run_child(REMARK_CHILD, str(project), str(limit), env=env)
    # The 16 held ones stay old (their lock keeps them); the 24 others were marked again.
    # Before: all 24 unheld folders were pruned under the process that used them.
    assert printed.splitlines() == [
        f"{count} called",
        f"{limit // 4} old",
        "0 pruned while used",
        f"{count} pruned once unused of {count}",
    ]
