"""The indexer reads any file without crashing, and bad files become diagnostics."""

from __future__ import annotations

import ast
import dataclasses
import os
import sysconfig
import tempfile
from pathlib import Path

import pytest
from helpers import DEFAULT_PYPROJECT, write_project
from hypothesis import given, settings
from hypothesis import strategies as st
from skillc.compiler.api import compile_project
from skillc.compiler.config import locate_config, read_config
from skillc.compiler.index import _Indexer, index_source
from skillc.compiler.index_types import Call, Const, Container, Dynamic, ModuleIndex, Param, Ref, Subscript
from skillc.compiler.source_tree import read_sources
from skillc.compiler.sources import Indexed, _index_one
from skillc.compiler.types import Pos

STDLIB = Path(sysconfig.get_paths()["stdlib"])
GOOD_AGENT = (
    "from skillc import Agent, Skill, tool\n"
    "@tool\n"
    "def ping(text: str) -> str:\n"
    '    """Echo the text."""\n'
    "    return text\n"
    'agent = Agent(name="a", skills=[Skill(name="s", tools=[ping])])\n'
)


@pytest.mark.parametrize("package", ["email", "json", "asyncio", "importlib"])
def test_indexes_every_module_of_a_stdlib_package(package: str) -> None:
    files = sorted((STDLIB / package).rglob("*.py"))
    assert files
    for path in files:
        result = _index_one(str(path), path.stem, path.name == "__init__.py", path.read_bytes())
        assert isinstance(result, ModuleIndex), (path, result)


def test_what_the_index_records() -> None:
    source = b'''"""Doc."""
from __future__ import annotations
import os.path as osp, json
from .base import Base as B
from .. import sibling
from pkg import *
try:
    from fast import Thing
except ImportError:
    from slow import Thing

class Model(B, metaclass=Meta):
    """A model."""
    x: int = 1
    y: Annotated[str, Field(min_length=1)]
    a = b = "z"

    @property
    def p(self, q: int = 2, *args, k: str, **kw) -> list[int]:
        """P."""

@tool(name="t")
async def t(x: int) -> None: ...

VALUE = -3.5
register(VALUE, key=[1, (2,), {"a": None}])
'''
    index = index_source(source, "src/pkg/mod.py", "pkg.mod", False)
    assert isinstance(index, ModuleIndex)
    assert index.docstring == "Doc."
    imports = [(i.local, i.module, i.name, i.level, i.star, i.branch) for i in index.imports]
    assert imports == [
        ("annotations", "__future__", "annotations", 0, False, None),
        ("osp", "os.path", None, 0, False, None),
        ("json", "json", None, 0, False, None),
        ("B", "base", "Base", 1, False, None),
        ("sibling", "", "sibling", 2, False, None),
        ("*", "pkg", None, 0, True, None),
        ("Thing", "fast", "Thing", 0, False, "try@7:body"),
        ("Thing", "slow", "Thing", 0, False, "try@7:except0"),
    ]
    (model,) = index.classes
    assert (model.name, model.docstring, model.pos.line, model.pos.col) == ("Model", "A model.", 12, 0)
    assert [(a.name, a.pos.line, a.pos.col) for a in model.attributes] == [
        ("x", 14, 4),
        ("y", 15, 4),
        ("a", 16, 4),
        ("b", 16, 4),
    ]
    (method,) = model.methods
    assert [(p.name, p.kind) for p in method.params] == [
        ("self", "normal"),
        ("q", "normal"),
        ("k", "keyword_only"),
        ("args", "var_positional"),
        ("kw", "var_keyword"),
    ]
    assert (method.docstring, method.pos.line) == ("P.", 19)
    (function,) = index.functions
    assert (function.name, function.is_async, function.pos.line) == ("t", True, 23)
    (value,) = index.assignments
    assert (value.name, getattr(value.value, "value", None)) == ("VALUE", -3.5)
    (call,) = index.calls
    assert getattr(call.func, "dotted", None) == "register"


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_the_indexer_never_raises(source: bytes) -> None:
    result = _index_one("src/x.py", "x", False, source)
    assert isinstance(result, ModuleIndex | Indexed | tuple)


#: Ways to nest an expression one level further: (text before it, text after it).  Past a
#: thousand levels or so, LibCST's native parser crashed the process (no exception).
NESTINGS = [
    ("(", ")"),
    ("[", "]"),
    ("{", "}"),
    ("{1: ", "}"),
    ("-", ""),
    ("not ", ""),
    ("lambda: ", ""),
    ("await ", ""),
    ("1 if a else ", ""),
    ("a and ", ""),
    ("a or ", ""),
    ("f(x=", ")"),
    ("f'{", "}'"),
    ("", ".a"),
    ("", "[0]"),
    ("", "()"),
    ("", " + 1"),
    ("", " ** 2"),
    ("", " | int"),
]
STATEMENTS = [
    "x = {}\n",
    "f({})\n",
    "if {}:\n    pass\n",
    "def g(a={}):\n    pass\n",
    "@{}\ndef g(): pass\n",
    "class C({}): pass\n",
    "async def g():\n    return {}\n",
    "x: {} = 1\n",
]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(NESTINGS), st.integers(1, 3000)), min_size=1, max_size=3),
    st.sampled_from(STATEMENTS),
)
def test_the_indexer_survives_any_depth_of_nesting(nesting: list[tuple[tuple[str, str], int]], statement: str) -> None:
    before = "".join(opening * count for (opening, _), count in nesting)
    after = "".join(closing * count for (_, closing), count in reversed(nesting))
    source = ('"""Generated."""\n' + statement.format(before + "b" + after)).encode()
    result = _index_one("src/x.py", "x", False, source)  # a crash here kills the test run
    assert isinstance(result, ModuleIndex | Indexed | tuple)
    if isinstance(result, tuple):
        lines = source.count(b"\n") + 1
        for problem in result:
            assert problem.code in ("skill/syntax-error", "skill/syntax-warning"), problem
            assert 1 <= problem.line <= lines, problem


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4000), st.lists(st.integers(0, 6000), min_size=1, max_size=4))
def test_no_file_above_the_size_limit_is_read(limit: int, sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = write_project(
            Path(folder),
            {f"m{n}.py": b"#" * size for n, size in enumerate(sizes)},
            pyproject=DEFAULT_PYPROJECT + f"max_file_bytes = {limit}\n",
        )
        snapshot = read_sources(read_config(locate_config(root)))
    read = {item.path: len(content) for item, _, content in snapshot.files}
    assert read == {f"src/m{n}.py": size for n, size in enumerate(sizes) if size <= limit}
    refused = {problem.path: problem for problem in snapshot.problems}
    assert set(refused) == {f"src/m{n}.py" for n, size in enumerate(sizes) if size > limit}
    for path, problem in refused.items():
        assert problem.code == "skill/file-too-large" and (problem.line, problem.col) == (1, 0)
        assert f"{sizes[int(path[5:-3])]:,} bytes" in problem.message


def test_a_syntax_error_is_reported_and_the_rest_still_compiles(tmp_path: Path) -> None:
    write_project(tmp_path, {"agent.py": GOOD_AGENT, "broken.py": "x = (1,\n", "also.py": "def f(:\n"})
    report = compile_project(tmp_path)
    assert [(d.code, d.path, d.line, d.col, d.message) for d in report.diagnostics] == [
        ("skill/syntax-error", "src/also.py", 1, 6, "invalid syntax"),
        ("skill/syntax-error", "src/broken.py", 1, 4, "'(' was never closed"),
    ]
    assert [tool.name for tool in report.tools] == ["ping"]


def test_unreadable_and_non_utf8_files_and_symlink_loops_are_diagnostics(tmp_path: Path) -> None:
    write_project(tmp_path, {"agent.py": GOOD_AGENT, "pkg/latin.py": b"s = '\xff'\n"})
    (tmp_path / "src/pkg/gone.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "src/pkg/loop").symlink_to(tmp_path / "src", target_is_directory=True)
    report = compile_project(tmp_path)
    assert [(d.code, d.severity.value, d.path, d.line, d.col) for d in report.diagnostics] == [
        ("skill/dangling-symlink", "warning", "src/pkg/gone.py", 1, 0),
        ("skill/encoding-error", "error", "src/pkg/latin.py", 1, 5),
        ("skill/symlink-loop", "warning", "src/pkg/loop", 1, 0),
    ]
    assert [tool.name for tool in report.tools] == ["ping"]


def test_a_symlinked_folder_that_is_no_loop_is_followed(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        {
            "agent.py": GOOD_AGENT.replace(
                "from skillc import Agent, Skill, tool\n",
                "from skillc import Agent, Skill, tool\nfrom shared.extra import bonus\n",
            ).replace("tools=[ping]", "tools=[ping, bonus]")
        },
    )
    extra = tmp_path / "elsewhere"
    extra.mkdir()
    (extra / "extra.py").write_text(
        'from skillc import tool\n@tool\ndef bonus() -> int:\n    """One."""\n    return 1\n'
    )
    os.symlink(extra, tmp_path / "src/shared", target_is_directory=True)
    report = compile_project(tmp_path)
    assert report.diagnostics == ()
    assert [(tool.name, tool.source.path) for tool in report.tools] == [
        ("ping", "src/agent.py"),
        ("bonus", "src/shared/extra.py"),
    ]


def _placed(value: object, found: list[tuple[str, Pos]]) -> list[tuple[str, Pos]]:
    """Every name the index records (references and parameters) with its position."""
    if isinstance(value, Ref):
        found.append((value.dotted.split(".")[0], value.pos))
    elif isinstance(value, Param):
        found.append((value.name, value.pos))
    if dataclasses.is_dataclass(value):
        for item in dataclasses.fields(value):
            _placed(getattr(value, item.name), found)
    elif isinstance(value, tuple | list):
        for item in value:
            _placed(item, found)
    return found


@pytest.mark.parametrize("package", ["email", "asyncio"])
def test_every_recorded_name_is_placed_at_its_first_character(package: str) -> None:
    """Positions are exact and count characters: the source there starts with the name.

    The exceptions are by design: a parenthesised expression starts at its parenthesis,
    and a base class given as ``*bases`` at its star.
    """
    compared = 0
    for path in sorted((STDLIB / package).rglob("*.py")):
        source = path.read_bytes()
        index = _Indexer(ast.parse(source), source).run("m", "m", False)
        lines = source.decode("utf-8").splitlines()
        for name, pos in _placed(index, []):
            assert pos.exact, (path, name, pos)
            text = lines[pos.line - 1][pos.col :]
            assert text.startswith((name, "(", "*")), (path, name, pos, text[:40])
            compared += 1
    assert compared > 1000


DYNAMIC_SOURCE = b"""\
from typing import Annotated
A = f(lambda: 1)
B = f((lambda: 1))
C = (lambda: 1)
D = f(x for x in y)
E = "a" f"{b}"
F = f"{b}"
G = None.__class__
H: Annotated[int, str]
I: Annotated[(int, str)]
J: Annotated[(int), (str)]
K = x[1:2]
L = -1, -True
"""


def test_dynamic_values_keep_their_source_and_kind() -> None:
    """What cannot be evaluated keeps its own text (with its own parentheses only) and kind,
    and a subscript's items are what its brackets list, a parenthesised tuple being one."""
    index = _Indexer(ast.parse(DYNAMIC_SOURCE), DYNAMIC_SOURCE).run("m", "m", False)
    values = {item.name: item.value if item.value is not None else item.annotation for item in index.assignments}

    def shown(value: object) -> object:
        if isinstance(value, Dynamic):
            return (value.kind, value.text)
        if isinstance(value, Call):
            return [shown(arg) for arg in value.args]
        if isinstance(value, Subscript):
            return [type(item).__name__ for item in value.items]
        if isinstance(value, Container):
            return [shown(item) for item in value.items]
        return value

    assert {name: shown(value) for name, value in values.items()} == {
        "A": [("Lambda", "lambda: 1")],
        "B": [("Lambda", "(lambda: 1)")],
        "C": ("Lambda", "(lambda: 1)"),
        "D": [("GeneratorExp", "x for x in y")],
        "E": ("ConcatenatedString", '"a" f"{b}"'),
        "F": ("FormattedString", 'f"{b}"'),
        "G": Ref("None.__class__", Pos(8, 4)),
        "H": ["Ref", "Ref"],
        "I": ["Container"],
        "J": ["Ref", "Ref"],
        "K": ["Dynamic"],
        "L": [Const(-1, Pos(13, 4)), ("UnaryOperation", "-True")],
    }
