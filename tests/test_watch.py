"""``skill compile --watch`` keeps what it read in memory: after files are added, removed or
edited, and after the configuration changes, each of its compiles reports what a fresh
``skill compile`` reports and leaves the ``dist/`` it leaves, byte for byte."""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import DEFAULT_PYPROJECT, SKILL, run_command, write_project
from rich.console import Console
from skillc.cli.watch import watch_project
from skillc.compiler.api import compile_project
from skillc.compiler.session import CompileSession
from skillc.compiler.source_tree import RACY_NS

MODELS = """from pydantic import BaseModel


class Query(BaseModel):
    text: str
"""
TOOL = """from skillc import Tool
from models import Query


class Tool{i}(Tool):
    name = "tool_{i}"
    description = "Tool number {i}."
    input_schema = Query

    def execute(self, input, ctx):
        return input.text
"""


def _agent(tools: list[int]) -> str:
    imports = "".join(f"from tool_{i} import Tool{i}\n" for i in tools)
    entries = ", ".join(f"Tool{i}()" for i in tools)
    return f'from skillc import Agent, Skill\n{imports}\nagent = Agent(name="a", skills=[Skill(name="s", tools=[{entries}])])\n'


def _save(folder: Path, files: dict[str, str]) -> None:
    """Save each file as an editor does: written beside the project, then renamed into place."""
    for name, text in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        staged = folder.parent.parent / f".{target.name}.saving"
        staged.write_text(text, encoding="utf-8")
        os.replace(staged, target)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _seen(document: dict[str, object]) -> dict[str, object]:
    """A JSON report without timings and cache statistics ("up to date" counts as "written")."""
    seen = {key: value for key, value in document.items() if key not in ("timings", "stats")}
    dist = dict(seen["dist"])  # type: ignore[call-overload]
    dist["state"] = "written" if dist["state"] == "up to date" else dist["state"]
    seen["dist"] = dist
    return seen


def _fresh(project: Path, elsewhere: Path) -> tuple[dict[str, object], dict[str, bytes]]:
    """What a cold ``skill compile --format json`` of a copy of ``project`` reports and writes."""
    shutil.rmtree(elsewhere, ignore_errors=True)
    shutil.copytree(project / "src", elsewhere / "src")
    shutil.copy(project / "pyproject.toml", elsewhere / "pyproject.toml")
    finished = run_command([str(SKILL), "compile", "--format", "json", str(elsewhere)], cwd=elsewhere)
    return _seen(json.loads(finished.stdout)), _files(elsewhere / "dist")


class _Watch:
    """The watch's output, one compile's JSON document at a time, each waited for at most a bounded time."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")  # the end of the output

    def next_report(self, timeout: float = 60) -> dict[str, object]:
        text = ""
        deadline = time.monotonic() + timeout
        while "Watching for changes" not in text:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no compile within {timeout}s: {text!r}") from None
            assert line, f"the watch ended early: {text!r}"
            text += line
        document = text[text.index("{") : text.rindex("}") + 1]
        return _seen(json.loads(document))


@contextlib.contextmanager
def _watching(project: Path) -> Iterator[_Watch]:
    """``skill compile --watch --format json`` in ``project``; it must end with exit 0 on SIGINT
    when the block is done (it is killed if the block fails)."""
    with subprocess.Popen(
        [str(SKILL), "compile", "--watch", "--format", "json"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    ) as process:
        try:
            yield _Watch(process)
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=30) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=30)


def test_watch_compiles_equal_fresh_compiles_across_added_removed_and_edited_files(tmp_path: Path) -> None:
    project = write_project(
        tmp_path / "project",
        {"agent.py": _agent([0, 1]), "models.py": MODELS, "tool_0.py": TOOL.format(i=0), "tool_1.py": TOOL.format(i=1)},
    )
    fresh = tmp_path / "fresh"
    src = project / "src"
    # Files older than this are trusted by their identity: the watch reads again only those
    # the steps change, and walks again only the folders they change.
    time.sleep(RACY_NS / 1e9 + 0.2)
    steps = [
        lambda: _save(src, {"tool_2.py": TOOL.format(i=2)}),  # a file added: an unreachable tool
        lambda: _save(src, {"agent.py": _agent([0, 1, 2])}),
        lambda: (src / "tool_1.py").unlink(),  # a file removed: its import fails
        lambda: _save(src, {"agent.py": _agent([0, 2])}),
        lambda: _save(src, {"models.py": MODELS.replace("text: str", "text: str\n    limit: int = 3")}),
        lambda: _save(src, {"tool_0.py": TOOL.format(i=0) + "\n# a comment\n"}),  # no summary changes
        lambda: _save(src, {"models.py": "class Query(\n"}),  # broken: reported, dist/ kept
        lambda: _save(src, {"models.py": MODELS}),
        lambda: _save(project, {"pyproject.toml": DEFAULT_PYPROJECT + "\n[tool.skill.defaults]\ntimeout = 5\n"}),
        lambda: _save(src, {"notes.txt": "bundled with every tool of the folder"}),  # a data file
    ]
    with _watching(project) as watch:
        report = watch.next_report()
        assert report == _fresh(project, fresh)[0]
        for step in steps:
            before = _files(project / "dist")
            step()
            report = watch.next_report()
            expected, written = _fresh(project, fresh)
            assert report == expected
            assert _files(project / "dist") == (written if report["ok"] else before)


#: The one tool of ``_watching_a_saved_tool``'s project, described anew.
EDITED = TOOL.format(i=0).replace("Tool number 0.", "Tool number 0, edited.")


@contextlib.contextmanager
def _watching_a_saved_tool(tmp_path: Path) -> Iterator[tuple[Path, _Watch]]:
    """A watch of a project of one tool that has compiled it, then a save of its module (so it
    watches the folders the compile read): its ``src`` folder, and the watch."""
    project = write_project(
        tmp_path / "project", {"agent.py": _agent([0]), "models.py": MODELS, "tool_0.py": TOOL.format(i=0)}
    )
    with _watching(project) as watch:
        assert watch.next_report()["ok"] is True
        _save(project / "src", {"tool_0.py": TOOL.format(i=0) + "# saved\n"})
        assert watch.next_report()["ok"] is True
        yield project / "src", watch


def _descriptions(report: dict[str, object]) -> list[object]:
    tools = report["tools"]
    assert isinstance(tools, list)
    return [tool["description"] for tool in tools]


def test_a_watch_compiles_a_file_being_written_only_once_it_is_closed(tmp_path: Path) -> None:
    with _watching_a_saved_tool(tmp_path) as (src, watch):
        with (src / "tool_0.py").open("w", encoding="utf-8") as stream:  # truncated: a change
            stream.write(EDITED[: len(EDITED) // 2])  # half of it, flushed: a compile now would fail
            stream.flush()
            with pytest.raises(AssertionError, match="no compile within"):
                watch.next_report(timeout=0.5)
            stream.write(EDITED[len(EDITED) // 2 :])
        report = watch.next_report()
    assert report["ok"] is True
    assert _descriptions(report) == ["Tool number 0, edited."]


def test_a_watch_does_not_wait_for_a_file_it_does_not_read_to_be_closed(tmp_path: Path) -> None:
    with _watching_a_saved_tool(tmp_path) as (src, watch):
        with (src / ".tool_0.py.swp").open("wb") as swap:  # an editor's, open while it edits
            swap.write(b"swap")
            swap.flush()
            _save(src, {"tool_0.py": EDITED})
            swap.write(b" again")
            swap.flush()
            report = watch.next_report(timeout=4)  # sooner than a file the compile reads is waited for
    assert _descriptions(report) == ["Tool number 0, edited."]


def test_a_watch_writes_the_caches_of_a_compile_after_its_report_and_before_it_waits(tmp_path: Path) -> None:
    """While a watch reports a compile, its caches are held back; they are on disk, as a compile
    of its own leaves them, before the watch waits for the next change."""
    files = {"agent.py": _agent([0]), "models.py": MODELS, "tool_0.py": TOOL.format(i=0)}
    project = write_project(tmp_path / "project", files)
    alone = write_project(tmp_path / "alone", files)
    assert compile_project(alone).ok
    caches = project / ".skill" / "cache"
    session = CompileSession()
    seen: list[list[str]] = []  # the cache files before each compile and after the first one

    def once() -> int:
        seen.append(sorted(path.name for path in caches.glob("*.pickle")))
        if len(seen) == 3:
            raise KeyboardInterrupt  # the second compile: the watch stops (exit 0)
        assert compile_project(project, session=session).ok
        seen.append(sorted(path.name for path in caches.glob("*.pickle")))  # reported now: nothing written yet
        _save(project / "src", {"tool_0.py": TOOL.format(i=0) + "# an edit\n"})  # so that the watch goes on
        return 0

    assert watch_project(project, once, Console(file=io.StringIO()), session) == 0
    written = sorted(path.name for path in (alone / ".skill" / "cache").glob("*.pickle"))
    assert seen == [[], [], written] and "report.pickle" in written, seen


def test_a_watch_collects_garbage_while_it_waits_and_not_while_it_compiles(tmp_path: Path) -> None:
    """The watch collects everything after each compile, before it waits: with the collector
    as ``skill compile``'s own process has it (``lifetime.collect_seldom``), a compile after
    one change then runs no collection at all."""
    files = {"agent.py": _agent([0]), "models.py": MODELS, "tool_0.py": TOOL.format(i=0)}
    project = write_project(tmp_path / "project", files)
    session = CompileSession()
    events: list[str] = []  # "compile <n>", "end <n>", and each collection's generation between them

    def heard(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            events.append(f"collection {info['generation']}")

    def once() -> int:
        compiles = sum(event.startswith("compile") for event in events)
        if compiles == 3:
            raise KeyboardInterrupt
        events.append(f"compile {compiles}")
        assert compile_project(project, session=session).ok
        events.append(f"end {compiles}")
        _save(project / "src", {"tool_0.py": TOOL.format(i=0) + f"# edit {compiles}\n"})
        return 0

    before = gc.get_threshold()
    gc.set_threshold(200_000, 30, 30)  # as in skill compile's own process
    gc.callbacks.append(heard)
    try:
        assert watch_project(project, once, Console(file=io.StringIO()), session) == 0
    finally:
        gc.callbacks.remove(heard)
        gc.set_threshold(*before)
    later = events[events.index("end 0") :]
    # After each compile, one full collection (the watch's); inside the second compile, none.
    assert later[: later.index("end 2") + 1] == [
        "end 0",
        "collection 2",
        "compile 1",
        "end 1",
        "collection 2",
        "compile 2",
        "end 2",
    ], events


SETTINGS_TOOL = (
    "import json\n\nfrom skillc import tool\n\n\n@tool\ndef region() -> str:\n"
    '    """The region of the shop."""\n'
    '    with open("settings.json") as handle:\n        return json.load(handle)["region"]\n'
)


def test_a_watch_compiles_again_when_a_file_a_path_names_outside_src_comes_or_goes(tmp_path: Path) -> None:
    """``open("settings.json")`` names a file beside pyproject.toml once there is one: no source
    changes, and the watch still compiles again, as a fresh compile would report."""
    agent = 'from skillc import Agent, Skill\nfrom shop import region\n\nagent = Agent(name="a", skills=[Skill(name="s", tools=[region])])\n'
    project = write_project(tmp_path / "project", {"agent.py": agent, "shop.py": SETTINGS_TOOL})
    with _watching(project) as watch:
        assert watch.next_report()["diagnostics"] == []
        (project / "settings.json").write_text('{"region": "eu"}', encoding="utf-8")
        report = watch.next_report(timeout=20)
        assert [(item["code"], item["line"]) for item in report["diagnostics"]] == [  # type: ignore[union-attr,index]
            ("skill/working-folder-path", 9)
        ]
        (project / "settings.json").unlink()
        assert watch.next_report(timeout=20)["diagnostics"] == []
