"""Symbolic links: never followed out of the project, written through, or read out of ``dist/``.

Every test builds real folders with real links and runs the real ``skill`` command (or,
for the runtime a deployment uses without the compiler, a real ``python`` process).
"""

from __future__ import annotations

import json
import os
import sys
import zipfile
from pathlib import Path

import pytest
from helpers import DEFAULT_PYPROJECT, Completed, RunSkill, run_command, write_project, write_tree

#: What the linked code returns; it must never appear in a bundle unless allowed.
MARKER = "OUTSIDE-MARKER"
OUTSIDE_MODULE = f'def greeting() -> str:\n    return "{MARKER}"\n'
ALLOW = DEFAULT_PYPROJECT + 'allow_outside = ["../outside"]\n'


def _agent(imports: str) -> str:
    return (
        "from skillc import Agent, Skill, tool\n"
        f"{imports}\n"
        "\n"
        "@tool\n"
        "def ping() -> str:\n"
        '    """Say the greeting."""\n'
        "    return greeting()\n"
        "\n"
        'agent = Agent(name="a", skills=[Skill(name="s", tools=[ping])])\n'
    )


def _compile(skill: RunSkill, project: Path) -> tuple[Completed, dict[str, object]]:
    result = skill("compile", str(project), "--format", "json")
    return result, json.loads(result.stdout)


def _codes(document: dict[str, object]) -> list[tuple[str, str]]:
    diagnostics = document["diagnostics"]
    assert isinstance(diagnostics, list)
    return [(item["code"], item["path"]) for item in diagnostics]


def _bundles(project: Path) -> dict[str, bytes]:
    """Every file of every bundle under ``dist/``, by archive and name."""
    found: dict[str, bytes] = {}
    for archive in sorted((project / "dist").rglob("*.zip")):
        with zipfile.ZipFile(archive) as opened:
            found.update({f"{archive.name}:{name}": opened.read(name) for name in opened.namelist()})
    return found


def _file_link_project(tmp_path: Path, pyproject: str = DEFAULT_PYPROJECT, *, link: bool = True) -> Path:
    """``src/shared.py`` links to ``outside/shared.py``, beside the project; the tool imports it."""
    write_tree(tmp_path / "outside", {"shared.py": OUTSIDE_MODULE})
    project = write_project(tmp_path / "proj", {"agent.py": _agent("from shared import greeting")}, pyproject)
    if link:
        (project / "src/shared.py").symlink_to("../../outside/shared.py")
    return project


def _folder_link_project(tmp_path: Path, pyproject: str = DEFAULT_PYPROJECT, *, link: bool = True) -> Path:
    """``src/pkg/lib`` links to the package ``outside/lib``; the tool imports ``pkg.lib.helpers``."""
    write_tree(tmp_path / "outside/lib", {"__init__.py": "", "helpers.py": OUTSIDE_MODULE})
    sources = {"agent.py": _agent("from pkg.lib.helpers import greeting"), "pkg/__init__.py": ""}
    project = write_project(tmp_path / "proj", sources, pyproject)
    if link:
        (project / "src/pkg/lib").symlink_to("../../../outside/lib", target_is_directory=True)
    return project


def test_a_file_link_out_of_the_project_is_a_warning_and_its_code_is_not_bundled(
    skill: RunSkill, tmp_path: Path
) -> None:
    project = _file_link_project(tmp_path)
    text = skill("compile", str(project))
    assert (
        "src/shared.py:1:1: warning[skill/symlink-outside-project] src/shared.py is a symbolic link to "
        "../../outside/shared.py, outside the project; not followed" in text.stdout
    )
    assert 'allow_outside = ["../outside"]' in text.stdout
    assert "Traceback" not in text.stdout + text.stderr

    linked, document = _compile(skill, project)
    bundles = _bundles(project)
    assert bundles and not any(MARKER.encode() in content for content in bundles.values())
    assert not any(name.endswith(":shared.py") for name in bundles)

    # The verdict is the one the project gets without the link: ``shared`` is then no module
    # of the project, but a third-party import the project does not declare.
    (project / "src/shared.py").unlink()
    unlinked, without = _compile(skill, project)
    assert linked.code == unlinked.code == 0
    assert sorted(_codes(document)) == sorted([*_codes(without), ("skill/symlink-outside-project", "src/shared.py")])
    assert ("skill/undeclared-dependency", "src/agent.py") in _codes(without)


def test_a_folder_link_out_of_the_project_is_a_warning_and_the_import_fails_as_without_it(
    skill: RunSkill, tmp_path: Path
) -> None:
    project = _folder_link_project(tmp_path)
    linked, document = _compile(skill, project)
    assert linked.code == 1, linked.stderr
    assert ("skill/symlink-outside-project", "src/pkg/lib") in _codes(document)
    assert ("skill/unresolved-import", "src/agent.py") in _codes(document)
    assert not (project / "dist").exists()

    (project / "src/pkg/lib").unlink()
    unlinked, without = _compile(skill, project)
    assert unlinked.code == 1
    assert sorted(_codes(document)) == sorted([*_codes(without), ("skill/symlink-outside-project", "src/pkg/lib")])


@pytest.mark.parametrize("make", [_file_link_project, _folder_link_project], ids=["file", "folder"])
def test_a_link_into_an_allowed_folder_is_followed_and_bundled(skill: RunSkill, tmp_path: Path, make: object) -> None:
    assert callable(make)
    project = make(tmp_path, ALLOW)
    result, document = _compile(skill, project)
    assert result.code == 0, result.stdout
    assert not any(code.startswith("skill/symlink") for code, _ in _codes(document))
    assert any(MARKER.encode() in content for content in _bundles(project).values())

    ran = skill("test", str(project), "--name", "ping", "--input", "{}")
    assert ran.code == 0, ran.stdout + ran.stderr
    assert MARKER in ran.stdout


def test_a_link_inside_the_project_is_followed_as_before(skill: RunSkill, tmp_path: Path) -> None:
    project = write_project(tmp_path / "proj", {"agent.py": _agent("from lib.helpers import greeting")})
    write_tree(project / "vendor/lib", {"__init__.py": "", "helpers.py": OUTSIDE_MODULE})
    (project / "src/lib").symlink_to("../vendor/lib", target_is_directory=True)
    result, document = _compile(skill, project)
    assert result.code == 0, result.stdout
    assert _codes(document) == []
    assert any(MARKER.encode() in content for content in _bundles(project).values())


def test_dangling_links_are_warnings(skill: RunSkill, tmp_path: Path) -> None:
    project = write_project(tmp_path / "proj", {"agent.py": _agent("def greeting() -> str:\n    return 'hi'")})
    (project / "src/gone.py").symlink_to("../nowhere.py")
    (project / "src/missing").symlink_to("../nowhere", target_is_directory=True)
    (project / "src/loop.py").symlink_to("loop.py")
    text = skill("compile", str(project))
    assert text.code == 0, text.stdout + text.stderr
    assert (
        "src/gone.py:1:1: warning[skill/dangling-symlink] src/gone.py is a symbolic link to "
        "../nowhere.py, which does not exist; not followed" in text.stdout
    )
    assert "Traceback" not in text.stdout + text.stderr
    _, document = _compile(skill, project)
    assert _codes(document) == [
        ("skill/dangling-symlink", "src/gone.py"),
        ("skill/dangling-symlink", "src/loop.py"),
        ("skill/dangling-symlink", "src/missing"),
    ]


@pytest.mark.parametrize("value", ['"../outside"', "[1]", '[""]'])
def test_allow_outside_must_be_a_list_of_paths(skill: RunSkill, tmp_path: Path, value: str) -> None:
    project = _file_link_project(tmp_path, DEFAULT_PYPROJECT + f"allow_outside = {value}\n")
    result = skill("compile", str(project))
    assert result.code == 2
    assert "[tool.skill] allow_outside must be a list of folder paths" in result.stderr
    assert "Traceback" not in result.stderr


# --- skill init --------------------------------------------------------------------


def _everything(root: Path) -> dict[str, str]:
    """Every entry under ``root``: a link by where it points, a file by its text."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[name] = f"-> {os.readlink(path)}"
        elif path.is_file():
            found[name] = path.read_text()
        else:
            found[name] = "/"
    return found


def test_init_force_never_writes_through_a_file_link(skill: RunSkill, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("mine")
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo/README.md").symlink_to("../outside.txt")
    before = _everything(tmp_path)
    result = skill("init", "demo", "--force")
    assert result.code == 2
    assert result.stderr.startswith(
        "error: refusing to write into demo through symbolic links; nothing was written:\n"
        "  README.md -> ../outside.txt\n"
    )
    assert "Traceback" not in result.stderr
    assert _everything(tmp_path) == before
    assert (tmp_path / "outside.txt").read_text() == "mine"


def test_init_force_never_writes_into_a_linked_folder(skill: RunSkill, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo/notes.txt").write_text("mine")
    (tmp_path / "demo/src").symlink_to("../elsewhere", target_is_directory=True)
    (tmp_path / "demo/.gitignore").symlink_to("../nowhere")
    before = _everything(tmp_path)
    result = skill("init", "demo", "--force")
    assert result.code == 2
    assert result.stderr.startswith(
        "error: refusing to write into demo through symbolic links; nothing was written:\n"
        "  .gitignore -> ../nowhere\n"
        "  src -> ../elsewhere\n"
    )
    assert _everything(tmp_path) == before
    assert not any((tmp_path / "elsewhere").iterdir())


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_init_refuses_a_name_that_is_a_link(skill: RunSkill, tmp_path: Path, force: bool) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "demo").symlink_to("real", target_is_directory=True)
    result = skill("init", "demo", *(["--force"] if force else []))
    assert result.code == 2
    assert result.stderr.startswith("error: refusing to create a project at demo: it is a symbolic link to real\n")
    assert not any((tmp_path / "real").iterdir())


def test_init_refuses_a_path_through_a_linked_folder(skill: RunSkill, tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "via").symlink_to("real", target_is_directory=True)
    result = skill("init", "via/demo")
    assert result.code == 2
    assert result.stderr.startswith("error: refusing to create a project at via/demo: via is a symbolic link to real\n")
    assert not any((tmp_path / "real").iterdir())


# --- dist/ -------------------------------------------------------------------------


def _relink(path: Path, target: Path) -> None:
    """Replace ``path`` by a link to a copy of it at ``target``, in one rename.

    The link is made before the file goes, so it cannot take over the file's inode.
    """
    target.write_bytes(path.read_bytes())
    temporary = path.with_name(path.name + ".link")
    temporary.symlink_to(os.path.relpath(target, path.parent))
    os.replace(temporary, path)


_RUNTIME = """\
import asyncio, sys
from skillc.runtime import load_dist
from skillc.contracts.errors import UserError

try:
    runtime = load_dist(sys.argv[1])
except UserError as error:
    print("refused:", error.message)
    raise SystemExit(0)
with runtime:
    result = asyncio.run(runtime.call("ping", {}, "call-1"))
print(result.error_type, result.output)
"""


def _run_runtime(dist: Path) -> Completed:
    return run_command([sys.executable, "-c", _RUNTIME, str(dist)], dist.parent)


@pytest.fixture
def compiled(skill: RunSkill, tmp_path: Path) -> Path:
    project = write_project(tmp_path / "proj", {"agent.py": _agent("def greeting() -> str:\n    return 'hi'")})
    assert skill("compile", str(project)).code == 0
    return project


def test_the_runtime_refuses_a_bundle_that_is_a_link_out_of_dist(compiled: Path, tmp_path: Path) -> None:
    dist = compiled / "dist"
    assert _run_runtime(dist).stdout == "None hi\n"
    _relink(dist / "tools/ping/bundle.zip", tmp_path / "copy.zip")
    result = _run_runtime(dist)
    assert result.code == 0, result.stderr
    assert result.stdout == (
        "execution The tool cannot run: the bundle of tool 'ping' (tools/ping/bundle.zip) is not the file "
        "skillc wrote (it is a symbolic link, or inside a linked folder): it changed after it was compiled; "
        "recompile with `skill compile`.\n"
    )


def test_the_runtime_refuses_a_linked_tool_folder_and_a_linked_manifest(compiled: Path, tmp_path: Path) -> None:
    dist = compiled / "dist"
    (tmp_path / "copy").mkdir()
    for name in os.listdir(dist / "tools/ping"):
        (tmp_path / "copy" / name).write_bytes((dist / "tools/ping" / name).read_bytes())
    (dist / "tools/ping.link").symlink_to("../../../copy", target_is_directory=True)
    os.rename(dist / "tools/ping", tmp_path / "retired")
    os.rename(dist / "tools/ping.link", dist / "tools/ping")
    assert (
        "is not the file skillc wrote (it is a symbolic link, or inside a linked folder)" in _run_runtime(dist).stdout
    )

    _relink(dist / "manifest.json", tmp_path / "manifest.json")
    assert _run_runtime(dist).stdout == (
        f"refused: {dist.resolve() / 'manifest.json'} is not the manifest skillc wrote: "
        "it is a symbolic link, or inside a linked folder\n"
    )


def test_skill_test_refuses_a_bundle_that_is_a_link_out_of_dist(
    skill: RunSkill, compiled: Path, tmp_path: Path
) -> None:
    _relink(compiled / "dist/tools/ping/bundle.zip", tmp_path / "copy.zip")
    result = skill("test", str(compiled), "--name", "ping", "--input", "{}")
    assert result.code != 0, result.stdout
    assert "tools/ping/bundle.zip" in result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert (compiled / "dist/tools/ping/bundle.zip").is_symlink()


def test_a_dist_file_with_another_name_outside_is_never_shared_with_the_next_dist(
    skill: RunSkill, tmp_path: Path
) -> None:
    """Byte-identical files of the previous dist/ are hard-linked into the next one, but
    not a file that also has a name outside dist/: the next dist/ gets a file of its own."""
    tools = 'from skillc import tool\n\n\n@tool\ndef ping() -> str:\n    """Ping."""\n    return "hi"\n'
    agent = 'from skillc import Agent, Skill\n\nfrom tools import ping\n\nagent = Agent(name="a", skills=[Skill(name="s", tools=[ping])])\n'
    project = write_project(tmp_path / "p", {"tools.py": tools, "agent.py": agent})
    result, _ = _compile(skill, project)
    assert result.code == 0, result.stderr
    kept, shared = (
        project / "dist" / "tools" / "ping" / "tool.json",
        project / "dist" / "tools" / "ping" / "input.schema.json",
    )
    outside = tmp_path / "outside.json"
    os.link(kept, outside)
    (project / "src" / "agent.py").write_text(agent + "# changed\n", encoding="utf-8")
    before = shared.stat().st_ino
    result, _ = _compile(skill, project)
    assert result.code == 0, result.stderr
    assert shared.stat().st_ino == before  # byte-identical and named once: shared
    assert kept.stat().st_ino != outside.stat().st_ino  # named outside too: a file of its own
    assert kept.read_bytes() == outside.read_bytes()
