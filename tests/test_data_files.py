"""Data files: found by ``[tool.skill] include`` / ``exclude``, bundled with their package, kept current."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from helpers import RunSkill, write_project
from skillc.compiler.api import compile_project
from skillc.compiler.config import read_config
from skillc.compiler.data_refs import data_references, data_writes
from skillc.compiler.globs import matches_any
from skillc.compiler.source_tree import discover_data
from skillc.contracts.errors import ConfigError

AGENT = (
    "from skillc import Agent, Skill\n\n"
    "from shop.tools import price\n\n"
    'agent = Agent(name="a", skills=[Skill(name="s", description="Prices.", tools=[price])])\n'
)
TOOLS = (
    "import json\nfrom pathlib import Path\n\nfrom skillc import tool\n\n"
    'DATA = Path(__file__).parent / "data"\n\n\n'
    "@tool\ndef price(product: str) -> str:\n"
    '    """The price of a product."""\n'
    '    return str(json.loads((DATA / "prices.json").read_text())[product])\n'
)
PYPROJECT = '[project]\nname = "p"\nversion = "0"\ndependencies = ["skillc"]\n\n[tool.skill]\nentry = "src/agent.py"\n'


def _project(root: Path, extra: dict[str, str] | None = None, pyproject: str = PYPROJECT) -> Path:
    files = {"agent.py": AGENT, "shop/__init__.py": "", "shop/tools.py": TOOLS, "shop/data/prices.json": '{"a": 1}'}
    return write_project(root, {**files, **(extra or {})}, pyproject)


def _members(project: Path) -> list[str]:
    (bundle,) = (project / "dist").rglob("*.zip")
    with zipfile.ZipFile(bundle) as archive:
        return sorted(info.filename for info in archive.infolist() if not info.is_dir())


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ('include = "**/*.json"', "include must be a list of glob patterns"),
        ("exclude = [1]", "exclude must be a list of glob patterns"),
        ('include = [""]', "include must be a list of glob patterns"),
        ('include = ["/etc/*"]', "must be a relative path inside src"),
        ('exclude = ["../*.csv"]', "must be a relative path inside src"),
        ('include = ["data\\\\*.json"]', "must be a relative path inside src"),
    ],
)
def test_bad_globs_are_configuration_errors(tmp_path: Path, setting: str, message: str) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT + setting + "\n")
    with pytest.raises(ConfigError, match=message):
        read_config(tmp_path / "pyproject.toml")


def test_bad_globs_exit_2(tmp_path: Path, skill: RunSkill) -> None:
    _project(tmp_path, pyproject=PYPROJECT + 'exclude = ["/x"]\n')
    done = skill("compile", str(tmp_path))
    assert done.code == 2 and "exclude pattern '/x' must be a relative path inside src" in done.stderr


def test_globs() -> None:
    assert matches_any("a/b/c.json", ["**/*.json"]) and matches_any("c.json", ["**/*.json"])
    assert matches_any("data/x/y.bin", ["data/**"]) and not matches_any("database/y", ["data/**"])
    assert matches_any("top.txt", ["*.txt"]) and not matches_any("a/top.txt", ["*.txt"])
    assert matches_any("a/r1.csv", ["a/r[0-9].csv"]) and not matches_any("a/rx.csv", ["a/r[!x].csv"])


def test_discovery_defaults_owners_and_what_is_never_data(tmp_path: Path) -> None:
    _project(
        tmp_path,
        {
            "shop/.env": "SECRET=1",
            "shop/__pycache__/tools.cpython-311.pyc": "x",
            "shop/native.so": "x",
            "README.txt": "top",
            "loose/deep/x.txt": "x",
        },
    )
    data = discover_data(read_config(tmp_path / "pyproject.toml"))
    owners = {item.member: item.owner for item in data.files}
    # agent.py makes src itself a package folder: README.txt and loose/ belong to it.
    assert owners == {"README.txt": "", "loose/deep/x.txt": "", "shop/data/prices.json": "shop"}


def test_only_the_packages_in_the_closure_bring_their_data(tmp_path: Path) -> None:
    _project(tmp_path, {"other/__init__.py": "", "other/big.json": "{}", "shop/notes.md": "n"})
    assert compile_project(tmp_path).diagnostics == ()
    assert "other/big.json" not in _members(tmp_path)
    assert {"shop/data/prices.json", "shop/notes.md"} <= set(_members(tmp_path))


def test_an_excluded_file_is_absent_from_the_bundle(tmp_path: Path) -> None:
    _project(tmp_path, {"shop/data/rates.csv": "a,1"}, PYPROJECT + 'exclude = ["**/*.csv"]\n')
    assert compile_project(tmp_path).diagnostics == ()
    members = _members(tmp_path)
    assert "shop/data/prices.json" in members and "shop/data/rates.csv" not in members


def test_a_changed_data_file_is_bundled_again(tmp_path: Path, skill: RunSkill) -> None:
    _project(tmp_path)
    assert skill("compile", str(tmp_path)).code == 0
    (tmp_path / "src/shop/data/prices.json").write_text('{"a": 2}')
    done = skill("test", str(tmp_path), "--name", "price", "--input", '{"product": "a"}', "--json")
    assert json.loads(done.stdout)["output"] == "2", done.stdout + done.stderr


def test_a_missing_data_file_then_added_clears_the_diagnostic(tmp_path: Path) -> None:
    _project(tmp_path)
    (tmp_path / "src/shop/data/prices.json").unlink()
    first = compile_project(tmp_path)
    assert [(d.code, d.path, d.line, d.col) for d in first.diagnostics] == [
        ("skill/missing-data-file", "src/shop/tools.py", 6, 7),  # the folder: no file is in it
        ("skill/missing-data-file", "src/shop/tools.py", 12, 27),
    ]
    (tmp_path / "src/shop/data/prices.json").write_text('{"a": 1}')
    assert compile_project(tmp_path).diagnostics == ()


def test_references_that_are_not_literal_are_not_followed() -> None:
    source = (
        b"from pathlib import Path\nimport os\n"
        b"def f(name):\n"
        b"    a = Path(__file__).parent / name\n"
        b'    b = Path(__file__).parent / f"{name}.json"\n'
        b"    c = os.path.join(os.path.dirname(__file__), name)\n"
        b"    d = Path(__file__).stem\n"
    )
    assert data_references(source, "shop/tools.py") == ()


_PATHS = "import gzip, io, os, shutil\nfrom pathlib import Path\n\nHERE = Path(__file__).parent\nLOG = HERE / 'log.txt'\n\n\ndef f(data):\n"


@pytest.mark.parametrize(
    ("call", "shown", "target"),
    [
        ("LOG.write_text(data)", "LOG.write_text(...)", "shop/log.txt"),
        ("(HERE / 'x.bin').write_bytes(data)", "(HERE / 'x.bin').write_bytes(...)", "shop/x.bin"),
        ("LOG.open('a')", "LOG.open(...)", "shop/log.txt"),
        ("LOG.open(mode='r+')", "LOG.open(...)", "shop/log.txt"),
        ("open(LOG, 'w')", "open(...)", "shop/log.txt"),
        ("open(file=LOG, mode='xb')", "open(...)", "shop/log.txt"),
        ("io.open(LOG, 'ab')", "io.open(...)", "shop/log.txt"),
        ("gzip.open(HERE / 'log.gz', 'wt')", "gzip.open(...)", "shop/log.gz"),
        ("LOG.touch()", "LOG.touch(...)", "shop/log.txt"),
        ("LOG.unlink()", "LOG.unlink(...)", "shop/log.txt"),
        ("(HERE / 'cache').mkdir()", "(HERE / 'cache').mkdir(...)", "shop/cache"),
        ("os.makedirs(os.path.join(os.path.dirname(__file__), 'out'))", "os.makedirs(...)", "shop/out"),
        ("os.remove(LOG)", "os.remove(...)", "shop/log.txt"),
        ("os.replace(data, LOG)", "os.replace(...)", "shop/log.txt"),
        ("shutil.copy(data, HERE / 'copy.txt')", "shutil.copy(...)", "shop/copy.txt"),
        ("shutil.rmtree(HERE.parent / 'old')", "shutil.rmtree(...)", "old"),
        ("(HERE.parent.parent / 'out.txt').write_text(data)", "(HERE.parent.parent / 'out.txt').write_text(...)", None),
    ],
)
def test_each_write_to_a_path_of_the_bundle_is_found(call: str, shown: str, target: str | None) -> None:
    source = (_PATHS + f"    {call}\n").encode()
    [found] = data_writes(source, "shop/tools.py")
    assert (found.pos.line, found.pos.col, found.shown, found.target) == (9, 4, shown, target)


@pytest.mark.parametrize(
    "call",
    [
        "LOG.read_text()",
        "open(LOG)",
        "open(LOG, 'rb')",
        "LOG.open()",
        "open(LOG, data)",  # a mode only running the code would tell
        "open('/tmp/log.txt', 'a')",
        "shutil.copy(LOG, '/tmp/log.txt')",  # read from the bundle, written elsewhere
        "(Path(data) / 'x').write_text(data)",
    ],
)
def test_reads_and_writes_elsewhere_are_not_writes_to_the_bundle(call: str) -> None:
    assert data_writes((_PATHS + f"    {call}\n").encode(), "shop/tools.py") == ()


@pytest.mark.parametrize(
    ("call", "target"),
    [
        ("(HERE / data).write_text(data)", "shop"),
        ("open(HERE / 'cache' / f'{data}.json', 'w')", "shop/cache"),
        ("HERE.joinpath(data, 'x').touch()", "shop"),
        ("os.makedirs(os.path.join(os.path.dirname(__file__), data))", "shop"),
        ("shutil.copy(data, Path(HERE.parent, data))", ""),
    ],
)
def test_a_write_under_a_folder_of_the_bundle_is_found_whatever_the_name(call: str, target: str) -> None:
    """Only running the code would tell the file's name, but not that it is in the bundle."""
    [found] = data_writes((_PATHS + f"    {call}\n").encode(), "shop/tools.py")
    assert (found.target, found.exact) == (target, False)


def test_an_open_that_is_not_the_builtin_is_not_read_as_one() -> None:
    source = b"from pathlib import Path\nfrom webbrowser import open\n\nopen(Path(__file__).parent / 'x.html', 'w')\n"
    assert data_writes(source, "shop/tools.py") == ()


def test_making_a_folder_the_bundle_holds_is_not_a_write(tmp_path: Path) -> None:
    """``os.makedirs(DATA, exist_ok=True)`` changes nothing where ``data/`` is bundled; where it is not, it does."""
    tools = TOOLS.replace("import json\n", "import json\nimport os\n", 1).replace(
        "\n\n\n@tool", "\nos.makedirs(DATA, exist_ok=True)\n\n\n@tool", 1
    )
    project = write_project(tmp_path, {"agent.py": AGENT, "shop/__init__.py": "", "shop/tools.py": tools}, PYPROJECT)
    (tmp_path / "src/shop/data").mkdir()
    (tmp_path / "src/shop/data/prices.json").write_text('{"a": 1}')
    assert compile_project(project, use_cache=False).diagnostics == ()
    (tmp_path / "src/shop/data/prices.json").unlink()
    found = [(item.code, item.line) for item in compile_project(project, use_cache=False).diagnostics]
    assert found == [("skill/write-into-bundle", 8), ("skill/missing-data-file", 14)]
