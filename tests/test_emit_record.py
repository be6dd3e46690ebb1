"""A watch compares what it writes with what it wrote, never with a ``dist/`` changed since.

``skill compile --watch`` keeps, in its ``CompileSession``, what each compile wrote into
``dist/`` and the status each file had (``dist_record``), so the next compile need not
read unchanged files back.  The record is believed only while the fingerprint of
``dist/`` taken again shows the very status recorded: a file changed in place (even to
bytes of the same size, its modification time put back), replaced, or given another
name outside is read again, and ``dist/`` is still byte for byte a cold compile's.  The
fingerprint a compile records is taken as it writes, and must be exactly what a walk of
``dist/`` finds: the next compile, in another process, finds ``dist/`` up to date.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import read_tree, write_project, write_tree
from skillc.compiler.api import DIST_CURRENT, DIST_WRITTEN, compile_project
from skillc.compiler.file_identity import RACY_NS
from skillc.compiler.output import fingerprint
from skillc.compiler.session import CompileSession
from skillc.contracts.errors import UsageError
from test_emit_recycle import PLANTS

TOOL = """from pydantic import BaseModel
from skillc import Tool


class {cls}In(BaseModel):
    value: int = {default}


class {cls}(Tool):
    name = "{name}"
    description = "{description}"
    input_schema = {cls}In

    def execute(self, input, ctx):
        return {{"value": input.value}}
"""


def _sources(descriptions: dict[str, str]) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {"tools/__init__.py": ""}
    for number, (name, description) in enumerate(descriptions.items()):
        files[f"tools/{name}.py"] = TOOL.format(
            cls=name.capitalize(), name=name, description=description, default=number
        )
    imports = "".join(f"from tools.{name} import {name.capitalize()}\n" for name in descriptions)
    listed = ", ".join(f"{name.capitalize()}()" for name in descriptions)
    files["agent.py"] = (
        f'from skillc import Agent, Skill\n{imports}\nagent = Agent(name="a", skills=[Skill(name="s", tools=[{listed}])])\n'
    )
    return files


def _cold(tmp_path: Path, descriptions: dict[str, str], label: str) -> dict[str, bytes | str]:
    project = write_project(tmp_path / f"cold-{label}", _sources(descriptions))
    assert compile_project(project, use_cache=False).ok
    return read_tree(project / "dist")


def _watch_compile(project: Path, session: CompileSession, descriptions: dict[str, str]) -> None:
    write_project(project, _sources(descriptions))
    report = compile_project(project, session=session)
    assert report.ok and report.dist == DIST_WRITTEN, report.diagnostics
    # What it recorded is what a walk of dist/ finds: another process finds it up to date.
    assert compile_project(project).dist == DIST_CURRENT


def _same_size_in_place(file: Path, outside: Path) -> None:
    before = file.stat()
    data = file.read_bytes()
    with file.open("r+b") as stream:  # the very file, changed in place: its other name in the spare sees it too
        stream.write(bytes([data[0] ^ 0x20]) + data[1:])
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))  # only its change time tells


def _replaced_by_a_copy(file: Path, outside: Path) -> None:
    data = file.read_bytes()
    file.unlink()
    file.write_bytes(data.replace(b'"', b"'", 1))


def _named_outside(file: Path, outside: Path) -> None:
    os.link(file, outside / "alias")


TAMPERINGS: dict[str, Callable[[Path, Path], None]] = {
    "same-size-in-place": _same_size_in_place,
    "replaced-by-a-copy": _replaced_by_a_copy,
    "named-outside": _named_outside,
}


#: One project's states: its first tool described anew each time, the others as they were.
STATES = [{"t0": f"Tool 0, version {number}.", "t1": "Tool 1.", "t2": "Tool 2."} for number in range(6)]


def _settled_session(project: Path) -> CompileSession:
    """A watch that has compiled ``STATES[:4]``, its files and folders older than a tick of any file system's clock.

    So the last compile's record vouches for dist/'s files, and the record of the folder
    it retired (parked in .skill/spare/) for that folder's listing: the next compile reads
    neither back.
    """
    session = CompileSession()
    for number, state in enumerate(STATES[:4]):
        if number == 2:
            time.sleep(RACY_NS / 1e9 + 0.2)
        _watch_compile(project, session, state)
    assert session.dist is not None and session.spare is not None
    assert any(written.settled for files in session.dist.files.values() for written in files.values())
    assert session.spare.folders["tools/t1"].settled
    return session


@pytest.mark.parametrize("tamper", TAMPERINGS.values(), ids=TAMPERINGS.keys())
def test_a_watch_never_takes_a_changed_dist_file_for_what_it_wrote(
    tmp_path: Path, tamper: Callable[[Path, Path], None]
) -> None:
    project, outside = tmp_path / "p", tmp_path / "outside"
    outside.mkdir()
    session = _settled_session(project)
    tamper(project / "dist/tools/t1/tool.json", outside)
    outside_before = read_tree(outside)
    _watch_compile(project, session, STATES[4])
    assert read_tree(project / "dist") == _cold(tmp_path, STATES[4], "4")
    assert read_tree(outside) == outside_before  # nothing written through the other name
    inodes = {path.stat().st_ino for path in (project / "dist").rglob("*") if path.is_file()}
    assert not inodes & {path.stat().st_ino for path in outside.iterdir()}


@pytest.mark.parametrize("plant", PLANTS.values(), ids=PLANTS.keys())
def test_a_watch_never_takes_a_changed_parked_folder_for_what_it_left(
    tmp_path: Path, plant: Callable[[Path, Path], None]
) -> None:
    project = tmp_path / "p"
    session = _settled_session(project)
    [spare] = sorted((project / ".skill/spare").iterdir())
    outside = write_tree(
        tmp_path / "outside",
        {"victim.json": '{"mine": true}\n', "folder/tool.json": "mine\n", "folder/bundle.zip": b"mine"},
    )
    plant(spare, outside)
    before = read_tree(outside)
    held = [os.open(spare, os.O_RDONLY | os.O_DIRECTORY)] if spare.is_dir() and not spare.is_symlink() else []
    try:
        planted = [os.fstat(descriptor).st_ino for descriptor in held]  # kept open: no new folder gets its inode
        for number in (4, 5):  # the planted folder, then the one parked after it
            _watch_compile(project, session, STATES[number])
            assert (project / "dist").stat().st_ino not in planted  # not used: a new folder was made instead
            assert read_tree(project / "dist") == _cold(tmp_path, STATES[number], str(number))
            assert read_tree(outside) == before  # nothing written, moved or deleted through a link
            inodes = {path.stat().st_ino for path in (project / "dist").rglob("*") if path.is_file()}
            assert not inodes & {path.stat().st_ino for path in outside.rglob("*") if path.is_file()}
    finally:
        for descriptor in held:
            os.close(descriptor)


def _foreign_file(dist: Path, outside: Path) -> None:
    (dist / "tools/t1/notes.txt").write_text("mine\n")


def _foreign_folder(dist: Path, outside: Path) -> None:
    write_tree(dist, {"tools/t9/extra.py": "planted = 1\n"})


def _foreign_top_file(dist: Path, outside: Path) -> None:
    (dist / "notes.txt").write_text("mine\n")


def _linked_tool_folder(dist: Path, outside: Path) -> None:
    write_tree(outside, {"folder/tool.json": "mine\n"})
    shutil.rmtree(dist / "tools/t1")
    (dist / "tools/t1").symlink_to(outside / "folder", target_is_directory=True)


FOREIGN: dict[str, Callable[[Path, Path], None]] = {
    "file": _foreign_file,
    "folder": _foreign_folder,
    "top-file": _foreign_top_file,
    "linked-tool-folder": _linked_tool_folder,
}


def _tampered(tamper: Callable[[Path, Path], None]) -> Callable[[Path, Path], None]:
    return lambda dist, outside: tamper(dist / "tools/t1/tool.json", outside)


def _file_removed(dist: Path, outside: Path) -> None:
    (dist / "tools/t1/tool.json").unlink()


def _folder_for_a_file(dist: Path, outside: Path) -> None:
    (dist / "tools/t1/tool.json").unlink()
    (dist / "tools/t1/tool.json").mkdir()


def _tool_folder_removed(dist: Path, outside: Path) -> None:
    shutil.rmtree(dist / "tools/t2")


def _tool_folder_renamed(dist: Path, outside: Path) -> None:
    (dist / "tools/t2").rename(dist / "tools/t9")


def _manifest_removed(dist: Path, outside: Path) -> None:
    (dist / "manifest.json").unlink()


def _group_linked(dist: Path, outside: Path) -> None:
    (dist / "tools").rename(outside / "tools")
    (dist / "tools").symlink_to(outside / "tools", target_is_directory=True)


#: Every way dist/ may differ from what the last compile recorded of it.
CHANGES: dict[str, Callable[[Path, Path], None]] = {
    **{name: _tampered(tamper) for name, tamper in TAMPERINGS.items()},
    **FOREIGN,
    "file-removed": _file_removed,
    "folder-for-a-file": _folder_for_a_file,
    "tool-folder-removed": _tool_folder_removed,
    "tool-folder-renamed": _tool_folder_renamed,
    "manifest-removed": _manifest_removed,
    "group-linked": _group_linked,
}


@pytest.mark.parametrize("settled", [True, False], ids=["settled", "recent"])
@pytest.mark.parametrize("change", [None, *CHANGES.values()], ids=["unchanged", *CHANGES])
def test_the_look_at_dist_a_record_guides_finds_what_a_walk_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Callable[[Path, Path], None] | None, settled: bool
) -> None:
    """``fingerprint_now`` trusts a folder's listing only when its times are settled (all of them
    with a racy window that ends a minute from now; right after a compile, none it wrote), and finds
    whatever changed either way; a ``dist/`` just as recorded gives the record's own fingerprint."""
    if settled:
        monkeypatch.setattr("skillc.compiler.dist_record.RACY_NS", -60 * 10**9)
    project, outside = tmp_path / "p", tmp_path / "outside"
    outside.mkdir()
    session = CompileSession()
    for state in STATES[:2]:
        _watch_compile(project, session, state)
    record = session.dist
    assert record is not None
    assert {folder.settled for folder in record.folders.values()} == {settled}
    if change is None:
        assert record.fingerprint_now() is record.fingerprint()
        assert record.fingerprint() == fingerprint(project / "dist")
    else:
        change(project / "dist", outside)
        now = record.fingerprint_now()
        assert now == fingerprint(project / "dist")
        assert now != record.fingerprint()


@pytest.mark.parametrize("plant", FOREIGN.values(), ids=FOREIGN.keys())
def test_a_watch_sees_what_was_added_to_dist_and_leaves_it(tmp_path: Path, plant: Callable[[Path, Path], None]) -> None:
    project, outside = tmp_path / "p", tmp_path / "outside"
    outside.mkdir()
    session = _settled_session(project)
    assert session.dist is not None and session.dist.fingerprint_now() == fingerprint(project / "dist")
    plant(project / "dist", outside)
    # The record guides the look at dist/, and what it finds is what a walk finds.
    assert session.dist.fingerprint_now() == fingerprint(project / "dist")
    before = read_tree(project / "dist")
    write_project(project, _sources(STATES[4]))
    with pytest.raises(UsageError, match="skillc did not write"):
        compile_project(project, session=session)
    assert read_tree(project / "dist") == before


def test_a_watch_after_another_process_wrote_dist_reads_it_back(tmp_path: Path) -> None:
    project = tmp_path / "p"
    states = [{"t0": "Tool 0.", "t1": "Tool 1."}, {"t0": "Tool 0.", "t1": "Tool 1, again."}]
    session = CompileSession()
    _watch_compile(project, session, states[0])
    shutil.rmtree(project / ".skill")  # another compile, with no spare and no cache, writes dist/ anew
    write_project(project, _sources(states[1]))
    assert compile_project(project).dist == DIST_WRITTEN
    _watch_compile(project, session, states[0])
    assert read_tree(project / "dist") == _cold(tmp_path, states[0], "0")
