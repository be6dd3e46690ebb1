"""What the parser cannot take is a diagnostic, never a crash; what CPython refuses is an error.

LibCST's native parser crashes the whole process (a segmentation fault: exit 139, no
message) somewhere past a thousand levels of nesting, and a large generated module
takes gigabytes of memory and tens of seconds.  So every file goes through a size limit
(``[tool.skill] max_file_bytes``, checked before the file is read) and through CPython's
own ``compile()``, which also refuses what LibCST lets through (``return`` outside a
function, a duplicate argument...); the cases for those are under ``tests/projects/``.
The deep files here are generated, as real ``skill`` processes would meet them.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import AGENT, DEFAULT_PYPROJECT, SKILL, RunSkill, run_command, write_project
from skillc.compiler.api import compile_project
from skillc.compiler.config import locate_config, read_config
from skillc.compiler.index_types import Const, ModuleIndex
from skillc.compiler.locate import Locator
from skillc.compiler.source_tree import read_sources
from skillc.compiler.sources import Indexed, _index_one
from skillc.compiler.syntax_check import MAX_NESTING, check_syntax
from skillc.compiler.types import Pos

HEAD = '"""Generated."""\n\nREADY = True\n'
DEEP = 20_000
#: Each module has its deep statement on line 4, after ``HEAD``, and the columns (0-based)
#: where it may be reported: the statement's, where CPython itself cannot compile it (its
#: recursion errors carry no position: the statement is found apart), the node that
#: crosses ``MAX_NESTING`` where CPython compiles it (newer versions take deeper code), or
#: the bracket past CPython's limit of 200.
DEEP_MODULES: dict[str, tuple[str, tuple[int, ...]]] = {
    "brackets": ("EMPTY = " + "[" * 3000 + "]" * 3000, (208,)),
    "plus": ("TOTAL = 1" + " + 1" * DEEP, (0, 8)),
    "attributes": ("VALUE = a" + ".b" * DEEP, (0, 8)),
    "calls": ("VALUE = f" + "()" * DEEP, (0, 8)),
    "subscripts": ("VALUE = a" + "[0]" * DEEP, (0, 8)),
    "unary": ("VALUE = " + "-" * DEEP + "1", (0, 8)),
    "lambdas": ("VALUE = " + "lambda: " * DEEP + "1", (0, 8)),
    "conjunction": ("VALUE = a" + " and a" * DEEP, (8,)),
    "disjunction": ("VALUE = a" + " or a" * DEEP, (8,)),
    "dotted_import": ("import a" + ".b" * DEEP, (0,)),
    "dotted_from_import": ("from a" + ".b" * DEEP + " import c", (0,)),
    "comprehension": ("VALUE = [a " + "for a in b " * 2000 + "]", (0, 8)),
    "elif_chain": ("if READY: pass\n" + "elif READY: pass\n" * DEEP, (0,)),
}
#: Run a command and print the peak memory of its process tree (KiB on Linux) to stderr.
MEASURE = """\
import resource, subprocess, sys
finished = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, timeout=100)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
sys.exit(finished.returncode)
"""


def _report(completed_stdout: str) -> dict[str, Any]:
    document = json.loads(completed_stdout)
    assert isinstance(document, dict)
    return document


def _deep_project(root: Path) -> Path:
    modules = {f"{name}.py": HEAD + text + "\n" for name, (text, _) in DEEP_MODULES.items()}
    return write_project(root, {"agent.py": AGENT, **modules})


def test_what_would_crash_the_parser_is_a_syntax_error_at_its_line(skill: RunSkill, tmp_path: Path) -> None:
    """Every module here killed ``skill compile`` with a segmentation fault before."""
    _deep_project(tmp_path)
    result = skill("compile", "--format", "json")
    assert result.code == 1, result.stderr[-2000:]
    found = {
        item["path"]: (item["code"], item["line"], item["column"] - 1) for item in _report(result.stdout)["diagnostics"]
    }
    for name, (_, columns) in DEEP_MODULES.items():
        code, line, col = found.pop(f"src/{name}.py")
        assert (code, line) == ("skill/syntax-error", 4), name
        assert col in columns, (name, col)
    assert found == {}


@pytest.mark.parametrize("command", [("test", "--name", "ping", "--input", '{"text": "a"}'), ("chat", "-m", "hi")])
def test_test_and_chat_report_a_deep_module_instead_of_dying(
    skill: RunSkill, tmp_path: Path, command: tuple[str, ...]
) -> None:
    write_project(tmp_path, {"agent.py": AGENT, "deep.py": HEAD + DEEP_MODULES["brackets"][0] + "\n"})
    result = skill(*command)
    assert result.code == 1, (result.code, result.stderr[-2000:])
    assert "src/deep.py:4:209: error[skill/syntax-error] too many nested parentheses" in result.stdout + result.stderr


def test_a_file_above_the_limit_is_never_read(tmp_path: Path) -> None:
    """A 45 MB module took 22 GB and minutes; now it is refused before it is read."""
    write_project(tmp_path, {"agent.py": AGENT})
    (tmp_path / "src/generated.py").write_bytes(b"ROWS.append((1, 2, 3))\n" * 2_000_000)  # 46 MB
    started = time.monotonic()
    result = run_command([sys.executable, "-c", MEASURE, str(SKILL), "compile", "--format", "json"], tmp_path)
    assert time.monotonic() - started < 30
    assert result.code == 1, result.stderr[-2000:]
    (problem,) = _report(result.stdout)["diagnostics"]
    assert (problem["code"], problem["path"], problem["line"], problem["column"]) == (
        "skill/file-too-large",
        "src/generated.py",
        1,
        1,
    )
    assert "46,000,000 bytes" in problem["message"] and "2,000,000" in problem["message"]
    assert "max_file_bytes" in problem["message"]
    if sys.platform.startswith("linux"):  # ru_maxrss is in KiB there (bytes on macOS)
        assert int(result.stderr.split()[-1]) < 300 * 1024, "the compile took more memory than a small project"


def test_the_limit_is_configured_and_exact(tmp_path: Path) -> None:
    pyproject = DEFAULT_PYPROJECT + "max_file_bytes = 1000\n"
    at_limit = b"# " + b"x" * 997 + b"\n"
    assert len(at_limit) == 1000
    write_project(
        tmp_path,
        {"agent.py": AGENT, "fits.py": at_limit, "big.py": at_limit + b"\n", "uses.py": "from big import VALUE\n"},
        pyproject=pyproject,
    )
    config = read_config(locate_config(tmp_path))
    snapshot = read_sources(config)
    assert {item.path for item, _, _ in snapshot.files} == {"src/agent.py", "src/fits.py", "src/uses.py"}
    assert snapshot.unread == frozenset({"big"})
    report = compile_project(tmp_path)
    # The module that imports it is not blamed for it: the file exists, it is only unread.
    assert [(d.code, d.path, d.line, d.col) for d in report.diagnostics] == [
        ("skill/file-too-large", "src/big.py", 1, 0)
    ]
    assert "1,001 bytes, more than the 1,000 bytes" in report.diagnostics[0].message
    assert report.diagnostics[0].hint is not None and "max_file_bytes = 1001" in report.diagnostics[0].hint


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_named_pipe_is_not_read(skill: RunSkill, tmp_path: Path) -> None:
    """Reading one waited forever for a writer (hence a process, with a bounded wait)."""
    write_project(tmp_path, {"agent.py": AGENT})
    os.mkfifo(tmp_path / "src/pipe.py")
    result = skill("compile", "--format", "json")
    assert result.code == 1
    assert [(item["code"], item["path"]) for item in _report(result.stdout)["diagnostics"]] == [
        ("skill/unreadable-file", "src/pipe.py")
    ]


@pytest.mark.parametrize(
    ("source", "line", "col", "message"),
    [
        ("x = 1\nreturn x\n", 2, 0, "'return' outside function"),
        ("def f(a, b, a):\n    pass\n", 1, 12, "duplicate argument 'a' in function definition"),
        (
            "'''Doc.'''\nimport os\nfrom __future__ import annotations\n",
            3,
            0,
            "from __future__ imports must occur at the beginning of the file",
        ),
        ("nonlocal x\n", 1, 0, "nonlocal declaration not allowed at module level"),
        ("x = " + "(" * 201 + ")" * 201 + "\n", 1, 204, "too many nested parentheses"),
        ("s = 'éé'; break\n", 1, 10, "'break' outside loop"),  # columns count characters, not bytes
        ("from __future__ import braces\n", 1, 0, "not a chance"),
        ("x = 1\x00\n", 1, 5, "source code string cannot contain null bytes"),
    ],
)
def test_what_cpython_refuses_is_a_syntax_error_at_its_position(source: str, line: int, col: int, message: str) -> None:
    result = _index_one("src/m.py", "m", False, source.encode())
    assert isinstance(result, tuple)
    assert [(d.code, d.line, d.col, d.message) for d in result] == [("skill/syntax-error", line, col, message)]


def test_cpython_warnings_are_warning_diagnostics_and_never_printed(capfd: pytest.CaptureFixture[str]) -> None:
    source = b'import re\nDIGITS = re.compile("\\d+")\nassert (DIGITS, "message")\n'
    result = _index_one("src/m.py", "m", False, source)
    assert isinstance(result, Indexed)  # it indexes: warnings do not stop a compile
    assert [(d.code, d.severity.value, d.line) for d in result.warnings] == [
        ("skill/syntax-warning", "warning", 2),
        ("skill/syntax-warning", "warning", 3),
    ]
    assert "invalid escape sequence" in result.warnings[0].message
    assert capfd.readouterr() == ("", "")


def test_the_nesting_limit_is_where_it_says() -> None:
    """``MAX_NESTING`` levels pass and one more does not, whichever Python runs this.

    The module is level 0, the assignment 1, the ``and`` 2, and LibCST nests one more
    level for each term after the first; CPython compiles any number of terms.
    """
    at_limit = "x = a" + " and a" * (MAX_NESTING - 3) + "\n"
    tree, problems = check_syntax(at_limit.encode(), "m.py")
    assert tree is not None and problems == (), problems
    over = "x = a" + " and a" * (MAX_NESTING - 2) + "\n"
    tree, problems = check_syntax(over.encode(), "m.py")
    assert tree is None and [(d.code, d.line, d.col) for d in problems] == [("skill/syntax-error", 1, 4)]


def test_a_thousand_joined_strings_are_one_literal_and_one_docstring() -> None:
    """Implicitly joined strings are one constant to CPython's parser: a value, a docstring, no depth."""
    joined = " ".join(["'a'"] * 1500)
    result = _index_one("src/m.py", "m", False, f"READY = True\nVALUE = {joined}\n".encode())
    assert isinstance(result, ModuleIndex)
    assert [(item.name, item.value) for item in result.assignments] == [
        ("READY", Const(True, Pos(1, 8))),
        ("VALUE", Const("a" * 1500, Pos(2, 8))),
    ]
    result = _index_one("src/m.py", "m", False, f"READY = True\n\n\nclass Report:\n    {joined}\n".encode())
    assert isinstance(result, ModuleIndex)
    assert [(item.name, item.docstring) for item in result.classes] == [("Report", "a" * 1500)]


def test_the_locator_keeps_the_statement_position_for_a_file_that_turned_bad(tmp_path: Path) -> None:
    """It parses the file again, after indexing: whatever it finds there must not crash it."""
    inexact = Pos(2, 0, Pos.encode(("body", 1, "body", 0, "value")), exact=False)
    (tmp_path / "deep.py").write_text("READY = True\nVALUE = " + "[" * 3000 + "]" * 3000 + "\n")
    (tmp_path / "big.py").write_text("READY = True\nVALUE = 1\n" + "#" * 2000 + "\n")
    (tmp_path / "good.py").write_text("READY = True\nVALUE = f(1)\n")
    locator = Locator(tmp_path, max_file_bytes=1000)
    assert locator.position("deep.py", inexact) == (2, 0)
    assert locator.position("big.py", inexact) == (2, 0)
    assert locator.position("good.py", inexact) == (2, 8)


def test_threads_that_check_syntax_at_once_each_get_their_own_warnings() -> None:
    # The warnings machinery is the process's: two checks recording CPython's warnings at
    # once took each other's, or let one escape (raised, under -W error), unless serialized.
    sources = {name: f"x = '\\{letter}'\n".encode() for name, letter in (("a.py", "d"), ("b.py", "w"))}
    rounds = 400
    failures: list[str] = []

    def check(path: str) -> None:
        for _ in range(rounds):
            try:
                _, problems = check_syntax(sources[path], path)
            except SyntaxWarning as error:  # escaped the recording
                failures.append(f"{path}: raised {error}")
                continue
            if [(item.code, item.path, item.line) for item in problems] != [("skill/syntax-warning", path, 1)]:
                failures.append(f"{path}: {problems}")

    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        threads = [threading.Thread(target=check, args=(path,)) for path in sources]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        sys.setswitchinterval(previous)
    assert not any(thread.is_alive() for thread in threads)
    assert failures == []
