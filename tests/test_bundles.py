"""What each tool's bundle holds: every module it imports, wherever; no module it does not.

The compiler cases of ``tests/projects/`` prove the tools run from their bundles; these
tests read the bundles themselves (``dist/tools/<name>/bundle.zip``), the manifest's
requirements, and what ``--verify`` says when each bundle is imported on its own.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

from helpers import write_project
from skillc.compiler.api import compile_project
from skillc.compiler.requirements import Dependencies

PROJECTS = Path(__file__).resolve().parent / "projects"
IGNORED = shutil.ignore_patterns(".skill", "dist", "__pycache__", "expected.json")


def _case(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copytree(PROJECTS / name, target, ignore=IGNORED)
    return target


def _bundle(project: Path, tool: str) -> dict[str, bytes]:
    with zipfile.ZipFile(project / "dist" / "tools" / tool / "bundle.zip") as archive:
        return {info.filename: archive.read(info) for info in archive.infolist() if not info.is_dir()}


def _modules(project: Path, tool: str) -> set[str]:
    return {name for name in _bundle(project, tool) if not name.startswith("_skillc_")}


def _requirements(project: Path) -> dict[str, list[str]]:
    manifest = json.loads((project / "dist" / "manifest.json").read_text(encoding="utf-8"))
    return {tool["name"]: tool["requirements"] for tool in manifest["tools"]}


def test_lazy_imports_in_functions_and_methods_are_bundled(tmp_path: Path) -> None:
    project = _case("lazy_project_import", tmp_path)
    assert compile_project(project).ok
    expected = {"tools.py", "store.py", "text/__init__.py", "text/shout.py"}
    assert _modules(project, "lookup") == expected
    assert _modules(project, "status") == expected


def test_fallback_imports_and_literal_import_module_are_bundled(tmp_path: Path) -> None:
    project = _case("lazy_import_fallback", tmp_path)
    assert compile_project(project).ok
    assert _modules(project, "greet") == {
        "tools.py",
        "fast_format.py",
        "plain_format.py",
        "fast_greeting.py",
        "plain_greeting.py",
        "plugins/__init__.py",
        "plugins/loud.py",
    }
    assert _requirements(project)["greet"] == ["orjson>=3", "skillc"]


def test_a_lazy_third_party_import_is_a_requirement_and_one_warning_per_project(tmp_path: Path) -> None:
    project = _case("lazy_third_party_import", tmp_path)
    report = compile_project(project)
    assert [(d.code, d.path, d.line) for d in report.diagnostics] == [
        ("skill/undeclared-dependency", "src/fetch.py", 8)
    ]
    assert _requirements(project) == {"fetch": ["jinja2>=3.1", "skillc"], "post": ["skillc"]}
    second = compile_project(project)  # from the cache: the same single warning
    assert [(d.code, d.path, d.line) for d in second.diagnostics] == [
        ("skill/undeclared-dependency", "src/fetch.py", 8)
    ]


def test_type_checking_imports_are_not_requirements(tmp_path: Path) -> None:
    project = _case("type_checking_imports", tmp_path)
    assert compile_project(project).diagnostics == ()
    assert _requirements(project) == {"lookup": ["skillc"]}
    assert "models.py" in _modules(project, "lookup")  # bundled all the same: harmless


def test_what_skillc_brings_in_is_declared_by_depending_on_skillc(tmp_path: Path) -> None:
    project = _case("depends_on_skillc_only", tmp_path)
    assert compile_project(project).diagnostics == ()
    assert _requirements(project) == {"lookup": ["skillc"]}


def test_a_reexporting_init_holds_only_each_tools_own_modules(tmp_path: Path) -> None:
    project = _case("reexport_init_per_tool", tmp_path)
    assert compile_project(project).ok
    assert _modules(project, "lookup") == {"tools/__init__.py", "tools/lookup.py", "tools/common.py"}
    assert _modules(project, "weather") == {"tools/__init__.py", "tools/weather.py"}
    stand_in = _bundle(project, "lookup")["tools/__init__.py"].decode()
    assert stand_in.startswith('"""Stand-in for src/tools/__init__.py') and "import" not in stand_in.split('"""')[2]
    assert _requirements(project) == {"lookup": ["skillc"], "weather": ["skillc", "weatherlib>=1"]}


def test_verify_imports_each_bundle_with_its_stand_in(tmp_path: Path) -> None:
    project = _case("reexport_init_per_tool", tmp_path)
    report = compile_project(project, verify=True)
    # Only the tool whose own module imports a missing distribution fails to import (which
    # compiling had warned of already).
    assert [(d.code, d.path, d.line) for d in report.diagnostics] == [
        ("skill/dependency-not-installed", "src/tools/weather.py", 1),
        ("skill/bundle-not-self-contained", "src/tools/weather.py", 7),
    ]
    assert "No module named 'weatherlib'" in report.diagnostics[1].message


def test_verify_passes_the_reexport_case_whose_skill_module_reads_the_package(tmp_path: Path) -> None:
    project = _case("reexport_init", tmp_path)
    report = compile_project(project, verify=True)
    assert report.ok and report.diagnostics == (), report.diagnostics
    assert _modules(project, "cancel") == {"tools/__init__.py", "tools/cancel.py"}
    assert _modules(project, "track") == {"tools/__init__.py", "tools/track.py", "tools/lookup.py"}


_AGENT = (
    "from skillc import Agent, Skill\n"
    "from tools.ping import ping\n"
    'agent = Agent(name="a", skills=[Skill(name="s", description="S.", tools=[ping])])\n'
)
_PING = 'from skillc import tool\n{imports}\n\n@tool\ndef ping(text: str) -> str:\n    """Echo."""\n    return {body}\n'
_INIT = "from .helpers import shout\nfrom .other import other\n\n__all__ = ['shout', 'other']\n"
_FILES = {
    "agent.py": _AGENT,
    "tools/helpers.py": "def shout(text):\n    return text.upper()\n",
    "tools/other.py": "other = 1\n",
}


def _ping_project(tmp_path: Path, imports: str, body: str, init: str = _INIT) -> Path:
    files = {**_FILES, "tools/__init__.py": init, "tools/ping.py": _PING.format(imports=imports, body=body)}
    return write_project(tmp_path, files)


def test_a_name_read_through_the_package_keeps_the_import_that_binds_it(tmp_path: Path) -> None:
    project = _ping_project(tmp_path, "from tools import shout", "shout(text)")
    report = compile_project(project, verify=True)
    assert report.ok and report.diagnostics == (), report.diagnostics
    assert _modules(project, "ping") == {"tools/__init__.py", "tools/ping.py", "tools/helpers.py"}
    stand_in = _bundle(project, "ping")["tools/__init__.py"].decode()
    assert stand_in.splitlines()[2:] == ["from .helpers import shout"]


def test_an_init_the_bundle_may_read_whole_is_kept_whole(tmp_path: Path) -> None:
    cases = [
        ("import tools", "tools.shout(text)", _INIT),  # binds the package: any name may be read
        ("from tools import *", "shout(text)", _INIT),
        ("from tools.helpers import shout", "shout(text)", _INIT + "print('imported')\n"),  # a side effect
        ("from tools.helpers import shout", "shout(text)", "import json\n" + _INIT),  # a third-party import
    ]
    for number, (imports, body, init) in enumerate(cases):
        project = _ping_project(tmp_path / str(number), imports, body, init)
        compile_project(project)
        bundle = _bundle(project, "ping")
        assert bundle["tools/__init__.py"] == init.encode(), imports
        assert "tools/other.py" in bundle, imports


def test_a_declared_distribution_brings_in_its_requirements_and_asked_for_extras() -> None:
    metadata = {
        "web": ["httpcore>=1", "socks-lib; extra == 'socks'", "winlib; sys_platform == 'win32'"],
        "httpcore": ["h11"],
    }
    asked: list[str] = []

    def requires(name: str) -> list[str] | None:
        asked.append(name)
        return metadata.get(name)

    plain = Dependencies(["web>=2"], lambda: {}, requires, lambda top: True)
    assert plain.requirement_for("web") == "web>=2" and asked == []  # a declared name asks nothing
    assert plain.requirement_for("h11") == "web>=2"
    assert plain.requirement_for("winlib") == "web>=2"
    assert plain.requirement_for("socks_lib") is None
    extras = Dependencies(["Web[socks] >= 2"], lambda: {"socks_lib": ["socks-lib"]}, requires, lambda top: True)
    assert extras.requirement_for("socks_lib") == "Web[socks] >= 2"
