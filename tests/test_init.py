"""``skill init``: what the scaffold writes, what it refuses, and how it cleans up."""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path, PurePosixPath

import pytest
from helpers import RunSkill, run_command
from skillc import SkillError
from skillc.templates import plan_project, scaffold_project

EXPECTED_FILES = [
    ".env.example",
    ".gitignore",
    "README.md",
    "pyproject.toml",
    "src/agent.py",
    "src/skills/__init__.py",
    "src/skills/orders.py",
    "src/skills/tools/__init__.py",
    "src/skills/tools/cancel_order.py",
    "src/skills/tools/data/orders.json",
    "src/skills/tools/lookup_order.py",
    "src/skills/tools/shipping_quote.py",
    "src/skills/tools/store.py",
    "tests/test_tools.py",
]


def _tree(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_init_writes_every_file_of_the_project(skill: RunSkill, tmp_path: Path) -> None:
    result = skill("init", "demo")
    assert result.code == 0, result.stderr
    assert result.stdout.splitlines()[: len(EXPECTED_FILES) + 1] == [
        f"Created {len(EXPECTED_FILES)} files in demo/",
        *(f"  {name}" for name in EXPECTED_FILES),
    ]
    assert "skill compile" in result.stdout
    project = tmp_path / "demo"
    assert _tree(project) == EXPECTED_FILES

    config = tomllib.loads((project / "pyproject.toml").read_text())
    assert config["project"]["name"] == "demo"
    assert any(dep.startswith("skillc>=") for dep in config["project"]["dependencies"])
    assert config["tool"]["skill"] == {"entry": "src/agent.py", "src": "src", "out": "dist"}
    assert config["tool"]["pytest"]["ini_options"]["pythonpath"] == ["src"]

    agent = (project / "src/agent.py").read_text()
    assert 'name="demo"' in agent and "skills=[orders]" in agent
    skill_module = (project / "src/skills/orders.py").read_text()
    assert "tools=[LookupOrder(), cancel_order, shipping_quote]" in skill_module
    assert "class LookupOrder(Tool):" in (project / "src/skills/tools/lookup_order.py").read_text()
    assert "@tool(needs_approval=True)" in (project / "src/skills/tools/cancel_order.py").read_text()
    quote = (project / "src/skills/tools/shipping_quote.py").read_text()
    assert "shipping_quote = Tool(" in quote and "condition=shipping_available" in quote

    ignored = (project / ".gitignore").read_text().splitlines()
    assert {"dist/", ".skill/", ".env"} <= set(ignored)
    assert "SHIPPING_QUOTES=on" in (project / ".env.example").read_text()
    assert (project / "README.md").read_text().startswith("# demo\n")
    for python_file in project.rglob("*.py"):
        ast.parse(python_file.read_text(), filename=str(python_file))


def test_the_new_projects_own_tests_pass(skill: RunSkill, tmp_path: Path) -> None:
    assert skill("init", "demo").code == 0
    result = run_command([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], tmp_path / "demo")
    assert result.code == 0, result.stdout + result.stderr
    assert "8 passed" in result.stdout


def test_name_option_names_the_agent_and_package(skill: RunSkill, tmp_path: Path) -> None:
    assert skill("init", "bot", "--name", "Shop_Helper").code == 0
    assert 'name="Shop_Helper"' in (tmp_path / "bot/src/agent.py").read_text()
    config = tomllib.loads((tmp_path / "bot/pyproject.toml").read_text())
    assert config["project"]["name"] == "shop-helper"


def test_pretend_lists_the_files_and_writes_nothing(skill: RunSkill, tmp_path: Path) -> None:
    result = skill("init", "demo", "--pretend")
    assert result.code == 0
    assert result.stdout.splitlines() == [
        f"Would write {len(EXPECTED_FILES)} files in demo/",
        *(f"  {name}" for name in EXPECTED_FILES),
    ]
    assert list(tmp_path.iterdir()) == []


def test_init_into_the_current_empty_folder(skill: RunSkill, tmp_path: Path) -> None:
    (tmp_path / "here").mkdir()
    assert skill("init", ".", cwd=tmp_path / "here").code == 0
    assert 'name="here"' in (tmp_path / "here/src/agent.py").read_text()


def test_force_writes_into_a_folder_that_is_not_empty(skill: RunSkill, tmp_path: Path) -> None:
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo/notes.txt").write_text("mine")
    assert skill("init", "demo", "--force").code == 0
    assert (tmp_path / "demo/notes.txt").read_text() == "mine"
    assert _tree(tmp_path / "demo") == sorted([*EXPECTED_FILES, "notes.txt"])


def _make_non_empty(root: Path) -> None:
    (root / "demo").mkdir()
    (root / "demo/notes.txt").write_text("mine")


def _make_file(root: Path) -> None:
    (root / "demo").write_text("a file")


def _make_symlink_out(root: Path) -> None:
    (root / "elsewhere").mkdir()
    (root / "work/demo").symlink_to(root / "elsewhere")


@pytest.mark.parametrize(
    ("prepare", "args", "cwd", "message"),
    [
        (
            _make_non_empty,
            ["demo"],
            ".",
            "error: refusing to create a project in demo: the folder is not empty\n"
            "hint: choose a new folder, or pass --force to write into this one\n",
        ),
        (
            None,
            ["9lives"],
            ".",
            "error: invalid project name '9lives': start with a letter, then use letters, "
            "digits, '_' or '-' (at most 64 characters)\n"
            "hint: pass --name to name the agent differently from its folder\n",
        ),
        (
            None,
            ["demo", "--name", "has space"],
            ".",
            "error: invalid project name 'has space': start with a letter, then use letters, "
            "digits, '_' or '-' (at most 64 characters)\n"
            "hint: pass --name to name the agent differently from its folder\n",
        ),
        (
            None,
            ["../demo"],
            "work",
            "error: refusing to create a project at ../demo: it is outside the current folder\n"
            "hint: run `skill init` from the folder that should contain the project\n",
        ),
        (
            _make_symlink_out,
            ["demo"],
            "work",
            "error: refusing to create a project at demo: it is outside the current folder\n"
            "hint: run `skill init` from the folder that should contain the project\n",
        ),
        (
            _make_file,
            ["demo"],
            ".",
            "error: refusing to create a project at demo: it is a file\n",
        ),
    ],
    ids=["not-empty", "bad-folder-name", "bad-name-option", "outside", "symlink-outside", "file"],
)
def test_refusals_exit_2_with_a_clear_message_and_write_nothing(
    skill: RunSkill, tmp_path: Path, prepare: object, args: list[str], cwd: str, message: str
) -> None:
    (tmp_path / "work").mkdir(exist_ok=True)
    if callable(prepare):
        prepare(tmp_path)
    before = _tree(tmp_path)
    result = skill("init", *args, cwd=tmp_path / cwd)
    assert (result.code, result.stderr, result.stdout) == (2, message, "")
    assert _tree(tmp_path) == before


def test_an_absolute_path_outside_the_current_folder_is_refused(skill: RunSkill, tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    outside = tmp_path / "outside"
    result = skill("init", str(outside), cwd=tmp_path / "work")
    assert result.code == 2
    assert "it is outside the current folder" in result.stderr
    assert not outside.exists()


def test_missing_name_is_a_usage_error(skill: RunSkill) -> None:
    result = skill("init")
    assert result.code == 2
    assert "Missing argument 'NAME'" in result.stderr


def test_a_failure_half_way_removes_what_it_created(skill: RunSkill, tmp_path: Path) -> None:
    project = tmp_path / "demo"
    project.mkdir()
    (project / "README.md").write_text("my readme")
    (project / "src").write_text("a file where a folder must go")
    result = skill("init", "demo", "--force")
    assert result.code == 1
    assert result.stderr.startswith("error: could not write the project, nothing was left behind:")
    assert "Traceback" not in result.stderr
    assert _tree(project) == ["README.md", "src"]
    assert (project / "README.md").read_text() == "my readme"
    assert (project / "src").read_text() == "a file where a folder must go"


def test_a_failure_in_a_new_folder_removes_the_folder(tmp_path: Path) -> None:
    # The folder x/ is written first, then x.jinja renders to the same path and fails.
    template = _template(tmp_path / "t", {"x/y.txt": "1", "x.jinja": "2"})
    (tmp_path / "work").mkdir()
    with pytest.raises(SkillError, match="could not write the project, nothing was left behind"):
        scaffold_project(Path("new/deeper"), template=template, cwd=tmp_path / "work")
    assert list((tmp_path / "work").iterdir()) == []


def _template(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_only_jinja_files_are_rendered_and_file_names_are_templates(tmp_path: Path) -> None:
    template = _template(
        tmp_path / "t",
        {
            "{{ name }}/notes_{{ name }}.md.jinja": "Hello {{ name }}!\n",
            "raw.txt": "kept as is: {{ name }}\n",
        },
    )
    planned = plan_project(template, {"name": "zed"})
    assert [(p.path, p.content) for p in planned] == [
        (PurePosixPath("raw.txt"), b"kept as is: {{ name }}\n"),
        (PurePosixPath("zed/notes_zed.md"), b"Hello zed!\n"),
    ]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"a.txt.jinja": "{{ missing }}"}, "template a.txt.jinja cannot be rendered: 'missing' is undefined"),
        (
            {"a.txt.jinja": "{{ ''.__class__.__mro__[1].__subclasses__() }}"},
            "template a.txt.jinja cannot be rendered: access to attribute '__class__'",
        ),
        ({"{{ name }}/x.txt": "x"}, "template {{ name }}/x.txt renders to an unsafe path ../x.txt"),
    ],
    ids=["strict-undefined", "sandboxed", "unsafe-path"],
)
def test_template_errors_are_reported_with_the_file(tmp_path: Path, files: dict[str, str], message: str) -> None:
    template = _template(tmp_path / "t", files)
    with pytest.raises(SkillError) as caught:
        plan_project(template, {"name": ".."})
    assert str(caught.value).startswith(message)
