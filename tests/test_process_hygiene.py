"""A compile leaves no process behind, however it ends, and ``--watch`` outlives a vanishing config.

A project of a thousand files or more is indexed with a pool of worker processes.  Killed with
SIGKILL or SIGTERM, a compile used to leave its workers blocked forever on their queue;
they now die with it.  A worker that crashes (a parser bug) costs only the file it was
reading.  The processes are found through ``/proc``, so most of these tests need Linux.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

import pytest
from helpers import AGENT, DEFAULT_PYPROJECT, SKILL, write_project
from skillc.compiler import sources
from skillc.compiler.index_types import ModuleIndex

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
needs_fork = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="the pool's workers must inherit the test's patch"
)
#: One module of the slow project: 100 small functions, some milliseconds each.
SLOW_MODULE = "".join(
    f"def helper_{i}(a: int, b: str = 'x') -> dict[str, int]:\n    return {{'a': a + {i}, 'b': len(b)}}\n\n\n"
    for i in range(100)
)
#: No wait in these tests is longer than this.
WAIT = 20.0


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name, or ``None`` once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rpartition(")")[2].split()


def _alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")  # a zombie has ended: only unreaped


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None and int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _slow_project(root: Path) -> Path:
    """A project with more files than the pool threshold, slow enough to be killed while indexing."""
    count = sources.PARALLEL_THRESHOLD + 8
    modules = {f"helpers/module_{n}.py": f'"""Helpers {n}."""\n\n\n' + SLOW_MODULE for n in range(count)}
    assert len(modules) >= sources.PARALLEL_THRESHOLD
    return write_project(root, {"agent.py": AGENT, **modules})


@needs_proc
@pytest.mark.parametrize("signal_number", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_killed_compile_leaves_no_worker_behind(tmp_path: Path, signal_number: signal.Signals) -> None:
    _slow_project(tmp_path)
    compile_ = subprocess.Popen(
        [str(SKILL), "compile", "--check"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + WAIT
        while not workers and compile_.poll() is None and time.monotonic() < deadline:
            workers = _children(compile_.pid)
            time.sleep(0.01)
        assert workers, "the compile started no worker"
        time.sleep(0.2)  # well into indexing: workers busy with their share
        assert compile_.poll() is None and all(_alive(pid) for pid in workers), "the compile ended too soon"
        compile_.send_signal(signal_number)
        assert compile_.wait(timeout=WAIT) == -signal_number
        deadline = time.monotonic() + WAIT
        while any(map(_alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [pid for pid in workers if _alive(pid)] == [], "workers outlived the compile"
    finally:
        for pid in [compile_.pid, *workers]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        compile_.wait(timeout=WAIT)
        assert compile_.stderr is not None
        compile_.stderr.close()


#: A compile's parallel index interrupted while its worker has a minute of work left.
_INTERRUPTED_INDEX = """\
import multiprocessing, os, signal, threading, time
from skillc.compiler import sources

parent = os.getpid()
index_one = sources._index_one


def slow_in_the_worker(path, module, is_package, source):
    if os.getpid() != parent:
        time.sleep(60)  # the worker's share takes a minute
    return index_one(path, module, is_package, source)


sources._index_one = slow_in_the_worker
jobs = [(f"src/m{n}.py", f"m{n}", False, f"VALUE = {n}\\n".encode()) for n in range(8)]
threading.Timer(1.0, os.kill, (parent, signal.SIGINT)).start()  # this process's own share is done by then
try:
    sources._parse_all(jobs, 2)
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted; workers left:", len(multiprocessing.active_children()))
"""


@needs_fork
def test_an_interrupted_index_ends_its_workers_rather_than_waiting_for_them(tmp_path: Path) -> None:
    # Before: leaving the pool waited for every worker to finish its share, so a compile
    # asked to stop (Ctrl-C, or SIGTERM sent to it alone) went on indexing, for seconds on
    # a large project and past the test's wait on a loaded machine.
    finished = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED_INDEX], cwd=tmp_path, capture_output=True, text=True, timeout=WAIT
    )
    assert finished.stdout == "interrupted; workers left: 0\n", finished.stderr


@needs_proc
def test_a_worker_whose_parent_is_gone_ends_where_the_kernel_does_not_say(tmp_path: Path) -> None:
    """The portable watch (no ``PR_SET_PDEATHSIG``): the worker polls for a new parent."""
    script = (
        "import os\n"
        "from skillc.compiler import sources\n"
        "sources.PARENT_POLL_SECONDS = 0.05\n"
        "parent = os.getpid()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    sources._watch_parent(parent)\n"
        "    os._exit(3)  # not reached: the watch ends the process itself\n"
        "print(child, flush=True)\n"
        "os._exit(0)\n"
    )
    finished = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=WAIT, check=True
    )
    orphan = int(finished.stdout)
    deadline = time.monotonic() + WAIT
    while _alive(orphan) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(orphan):
        os.kill(orphan, signal.SIGKILL)
        pytest.fail("the orphan kept running after its parent ended")


@needs_fork
def test_a_worker_that_dies_costs_only_the_file_it_was_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool broken by one file (a parser crash) is no crash of the compile."""
    test_process = os.getpid()
    index_one = sources._index_one

    def crash_on_m3(path: str, module: str, is_package: bool, source: bytes) -> sources.IndexResult:
        if path == "src/m3.py" and os.getpid() != test_process:
            os.kill(os.getpid(), signal.SIGKILL)  # as a segmentation fault would end it
        return index_one(path, module, is_package, source)

    monkeypatch.setattr(sources, "_index_one", crash_on_m3)
    jobs = [(f"src/m{n}.py", f"m{n}", False, f"VALUE = {n}\n".encode()) for n in range(8)]
    results = sources._parse_all(jobs, 2)  # m1, m3, m5 and m7 go to the worker
    assert [type(result).__name__ for result in results] == ["ModuleIndex"] * 3 + ["tuple"] + ["ModuleIndex"] * 4
    assert [getattr(result, "name", None) for result in results] == [
        "m0",
        "m1",
        "m2",
        None,
        "m4",
        "m5",
        "m6",
        "m7",
    ]
    (problem,) = results[3]
    assert not isinstance(problem, ModuleIndex)
    assert (problem.code, problem.path) == ("skill/internal-error", "src/m3.py")
    assert "its process died" in problem.message


class _Lines:
    """A process's output, read by a thread, so that every wait for it can be bounded."""

    def __init__(self, stream: IO[str]) -> None:
        self.text = ""
        self._stream = stream
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Once the process has ended: the reader has seen the end of its output."""
        self._thread.join(timeout=WAIT)
        self._stream.close()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self._queue.put(line)
        self._queue.put(None)

    def wait_for(self, marker: str, count: int = 1) -> str:
        deadline = time.monotonic() + WAIT
        while self.text.count(marker) < count:
            try:
                line = self._queue.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                pytest.fail(f"no {marker!r} (x{count}) within {WAIT}s in:\n{self.text}")
            if line is None:
                pytest.fail(f"the watch ended before {marker!r} (x{count}):\n{self.text}")
            self.text += line
        return self.text


def test_watch_waits_for_a_pyproject_that_is_saved_by_rename(tmp_path: Path) -> None:
    write_project(tmp_path, {"agent.py": AGENT}, pyproject=DEFAULT_PYPROJECT)
    environment = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
    watch = subprocess.Popen(
        [str(SKILL), "compile", "--watch"],
        cwd=tmp_path,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert watch.stdout is not None
    output = _Lines(watch.stdout)
    try:
        output.wait_for("Watching for changes")
        pyproject = tmp_path / "pyproject.toml"
        pyproject.rename(tmp_path / "pyproject.toml~")  # an editor saving by rename
        output.wait_for("waiting:")
        time.sleep(1.0)  # a few polls without it: the watch goes on waiting
        assert watch.poll() is None, output.text
        (tmp_path / "pyproject.toml~").rename(pyproject)
        text = output.wait_for("Watching for changes", count=2)
        assert "Change detected, compiling again." in text
        assert text.count("1 tool in 1 skill, 0 errors") == 2, text
        watch.send_signal(signal.SIGINT)
        assert watch.wait(timeout=WAIT) == 0
        assert "Traceback" not in output.text
    finally:
        if watch.poll() is None:
            watch.kill()
        watch.wait(timeout=WAIT)
        output.close()


def test_watch_reports_a_file_that_vanished_during_a_compile(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The compile read the config just as the editor renamed it away: one line, no traceback."""
    from rich.console import Console
    from skillc.cli import watch

    compiles: list[int] = []

    def compile_once() -> int:
        compiles.append(1)
        if len(compiles) == 1:
            raise FileNotFoundError(2, "No such file or directory", "pyproject.toml")
        raise KeyboardInterrupt  # the second compile: the user is done watching

    # Taken before each compile, then while waiting: gone, still gone, back, and before the second compile.
    states = iter([{"pyproject.toml": (1, 1)}, {}, {}, {"pyproject.toml": (1, 1)}, {"pyproject.toml": (1, 1)}])
    monkeypatch.setattr(watch, "snapshot", lambda project: next(states))
    monkeypatch.setattr(watch, "POLL_SECONDS", 0)
    output = io.StringIO()
    console = Console(file=output, width=200, no_color=True, highlight=False)
    assert watch.watch_project(tmp_path, compile_once, console) == 0
    text = output.getvalue()
    assert "error: [Errno 2] No such file or directory: 'pyproject.toml'" in text
    assert text.count("waiting: no pyproject.toml with a [tool.skill] table") == 1
    assert "Change detected, compiling again." in text and text.rstrip().endswith("Stopped watching.")
