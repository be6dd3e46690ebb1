"""Loading a ``dist/``: a clear error for a bad manifest, and nothing opened before it is needed."""

from __future__ import annotations

import json
import sys
import threading
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import run_command
from runtime_support import compile_tree, many_tools_project, run
from skillc.contracts.errors import UserError
from skillc.runtime.context import ToolContext
from skillc.runtime.loader import load_dist

MANY = 40

#: Files opened while a test records, by path; an audit hook cannot be removed, so it
#: stays installed and records only while this holds a list.
_OPENED: list[list[str]] = []


def _audit(event: str, arguments: tuple[Any, ...]) -> None:
    if event == "open" and _OPENED and isinstance(arguments[0], str | Path):
        _OPENED[-1].append(str(arguments[0]))


sys.addaudithook(_audit)


@pytest.fixture
def opened() -> Iterator[list[str]]:
    record: list[str] = []
    _OPENED.append(record)
    try:
        yield record
    finally:
        _OPENED.remove(record)


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_tree(many_tools_project(tmp_path_factory.mktemp("many"), MANY))


def inside(paths: list[str], dist: Path) -> set[str]:
    root = str(dist)
    return {Path(path).relative_to(root).as_posix() for path in paths if path.startswith(root + "/")}


def test_loading_opens_the_manifest_only_and_a_call_only_its_own_bundle(many: Path, opened: list[str]) -> None:
    runtime = load_dist(many)
    try:
        assert inside(opened, many) == {"manifest.json"}
        assert len(runtime.tool_names) == MANY and runtime.loaded == frozenset()

        opened.clear()
        found = run(runtime.offer(ToolContext()))
        assert len(found.tools) == MANY
        assert inside(opened, many) == {f"tools/t{index}/tool.json" for index in range(MANY)}

        opened.clear()
        result = run(runtime.call("t7", {"n": 2}, "c1", ToolContext()))
        assert result.output == "a7:2"
        assert inside(opened, many) == {"tools/t7/bundle.zip"}
        assert runtime.loaded == {"t7"}

        opened.clear()
        assert run(runtime.call("t7", {}, "c2", ToolContext())).output == "a7:0"
        assert run(runtime.offer(ToolContext())).names == frozenset(runtime.tool_names)
        assert inside(opened, many) == set(), "bundles and definitions are read once"
    finally:
        runtime.close()


def test_two_dists_with_the_same_module_names_never_share_code(tmp_path: Path) -> None:
    first = compile_tree(many_tools_project(tmp_path / "first", 3, answer="first"))
    second = compile_tree(many_tools_project(tmp_path / "second", 3, answer="second"))
    with load_dist(first) as one, load_dist(second) as two:
        assert run(one.call("t1", {}, "c", ToolContext())).output == "first1:0"
        assert run(two.call("t1", {}, "c", ToolContext())).output == "second1:0"
        assert run(two.call("t2", {}, "c", ToolContext())).output == "second2:0"
        assert run(one.call("t2", {}, "c", ToolContext())).output == "first2:0"
    assert "tools.shared" not in sys.modules


_WITHOUT_COMPILER = """
import asyncio, sys
from skillc.runtime.context import ToolContext
from skillc.runtime.loader import load_dist

runtime = load_dist(sys.argv[1])

async def main():
    await runtime.offer(ToolContext())
    return await runtime.call("t1", {}, "c", ToolContext())

result = asyncio.run(main())
found = [name for name in sys.modules if name.split(".")[0] == "libcst" or name.startswith(("skillc.compiler", "skillc.cli"))]
print(result.output, sorted(found))
"""


def test_the_runtime_needs_neither_the_compiler_nor_libcst(many: Path, tmp_path: Path) -> None:
    completed = run_command([sys.executable, "-c", _WITHOUT_COMPILER, str(many)], tmp_path)
    assert completed.stdout.strip() == "a1:0 []", completed.stderr


def _dist(tmp_path: Path, manifest: object) -> Path:
    (tmp_path / "manifest.json").write_text(manifest if isinstance(manifest, str) else json.dumps(manifest))
    return tmp_path


def _valid(many: Path) -> dict[str, Any]:
    document = json.loads((many / "manifest.json").read_text())
    assert isinstance(document, dict)
    return document


def test_a_folder_without_a_manifest(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="manifest.json does not exist") as caught:
        load_dist(tmp_path)
    assert caught.value.hint is not None and "skill compile" in caught.value.hint
    with pytest.raises(UserError, match="does not exist"):
        load_dist(tmp_path / "nowhere")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda doc: "{not json", "is not valid JSON"),
        (lambda doc: [], "holds no JSON object"),
        (lambda doc: {**doc, "format": 2}, "manifest format 2"),
        (lambda doc: {key: value for key, value in doc.items() if key != "tools"}, "tools: Field required"),
        (
            lambda doc: {**doc, "tools": [{**doc["tools"][0], "bundle": "../../outside.zip"}]},
            "must be a relative path inside dist/",
        ),
        (lambda doc: {**doc, "tools": [{**doc["tools"][0], "sha256": "abc"}]}, "tools[0].sha256"),
        (lambda doc: {**doc, "tools": [{**doc["tools"][0], "skill": "ghost"}]}, "'ghost', which is not listed"),
        (lambda doc: {**doc, "tools": [doc["tools"][0], doc["tools"][0]]}, "two tools have the same name"),
    ],
)
def test_a_malformed_manifest_is_a_clear_user_error(many: Path, tmp_path: Path, change: Any, message: str) -> None:
    with pytest.raises(UserError) as caught:
        load_dist(_dist(tmp_path, change(_valid(many))))
    assert message in caught.value.message


def test_a_bundle_loads_while_other_threads_import(many: Path, tmp_path: Path) -> None:
    # A bundle's import puts the dist's modules in sys.modules and takes them out again, while
    # any other thread of the process may import a module of its own.  Before, taking them out
    # walked sys.modules itself: a module another thread added meanwhile failed the load with
    # "dictionary changed size during iteration" (seen in a chat whose client-side tools ran
    # beside a tool being loaded), and left the dist's modules in sys.modules.
    stop = threading.Event()

    def imports_on_and_on() -> None:
        names = [f"_another_threads_module_{index}" for index in range(50)]
        while not stop.is_set():  # bounded by the test: it sets ``stop`` in any case
            for name in names:  # imported, one after the other
                sys.modules[name] = types.ModuleType(name)
            for name in names:  # and forgotten (the process's count of modules changes all the time)
                del sys.modules[name]

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    importer = threading.Thread(target=imports_on_and_on)
    importer.start()
    try:
        with load_dist(many) as runtime:
            outputs = [run(runtime.call(f"t{index}", {"n": 1}, "c", ToolContext())).output for index in range(MANY)]
    finally:
        stop.set()
        importer.join(timeout=60)
        sys.setswitchinterval(interval)
    assert outputs == [f"a{index}:1" for index in range(MANY)]
    assert not any(name == "tools" or name.startswith("tools.") for name in sys.modules)
