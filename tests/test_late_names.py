"""The names function bodies read that nothing binds: the analysis agrees with calling the functions.

Generated modules (module-level names bound plainly, under the main guard or under
``TYPE_CHECKING``; functions, methods, nested functions, lambdas, classes inside functions
and comprehensions, each binding some names and reading others) are executed in a fresh
namespace, then every function is called: the analysis must report exactly the names whose
reads raise ``NameError``.  On real code, every name it reports is one CPython's own scope
analysis (``symtable``) also resolves among the module's globals.  The generated code is
harmless: it binds constants and calls ``range`` and its own functions.
"""

from __future__ import annotations

import ast
import builtins
import symtable
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import SKILL, run_command, write_project
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skillc.compiler.api import compile_project
from skillc.compiler.check_projects import AGENT_MODULE, SETTINGS, tool_class
from skillc.compiler.index_function_bodies import read_function_bodies
from skillc.compiler.index_types import LateUse
from skillc.compiler.types import Pos

FILENAME = "<generated>"
#: The names the generated code binds and reads; ``len`` is a builtin until the module binds it.
NAMES = ("A", "B", "C", "len")
#: The local variable of the comprehensions, and the parameter of the lambdas.
LOCALS = ("item", "q")

names = st.sampled_from(NAMES)


def _uses(draw: st.DrawFn) -> str:
    return "(" + "".join(f"{name}, " for name in draw(st.lists(names, max_size=3))) + ")"


@st.composite
def body(draw: st.DrawFn, depth: int = 0) -> str:
    """A function body: it binds some names first, then reads some, then calls what it defines."""
    lines = []
    for name in draw(st.lists(names, max_size=2, unique=True)):
        form = draw(st.sampled_from(["assign", "for", "import", "annotated", "walrus"]))
        lines.append(
            {
                "assign": f"{name} = 1",
                "for": f"for {name} in range(1):\n    pass",
                "import": f"import os as {name}",
                "annotated": f"{name}: int = 1",
                "walrus": f"({name} := 1)",
            }[form]
        )
    lines.append(f"_ = {_uses(draw)}")
    if draw(st.booleans()):
        lines.append(f"_ = [{_uses(draw)} for item in range(1)]")
    if draw(st.booleans()):  # a local annotation is never evaluated
        lines.append(f"_unset: {draw(names)}")
    if draw(st.booleans()):  # never runs
        lines.append(f"if TYPE_CHECKING:\n    _ = {_uses(draw)}")
    if draw(st.booleans()):
        lines.append(f"_ = (lambda q: {_uses(draw)})(1)")
    if depth < 2 and draw(st.booleans()):
        lines.append("def inner():\n" + textwrap.indent(draw(body(depth + 1)), "    ") + "inner()")
    if depth < 2 and draw(st.booleans()):
        method = textwrap.indent(draw(body(depth + 1)), "        ")
        lines.append(f"class Local:\n    {draw(names)} = 1\n    def method(self):\n{method}Local().method()")
    lines.append("return None")
    return "\n".join(lines) + "\n"


@st.composite
def module(draw: st.DrawFn) -> str:
    parts = ["from typing import TYPE_CHECKING\n"]
    functions = 0
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["bind", "main", "typing", "function", "class"]))
        name = draw(names)
        if kind == "bind":
            parts.append(f"{name} = 1\n")
        elif kind == "main":
            parts.append(f'if __name__ == "__main__":\n    {name} = 1\n')
        elif kind == "typing":
            parts.append(f"if TYPE_CHECKING:\n    {name} = 1\n")
        elif kind == "function":
            parts.append(f"def f{functions}(p):\n" + textwrap.indent(draw(body()), "    "))
            functions += 1
        else:
            method = textwrap.indent(draw(body()), "        ")
            parts.append(f"class K{functions}:\n    {name} = 1\n    def method(self):\n{method}")
            functions += 1
    return "\n".join(parts)


def _calls(namespace: dict[str, object]) -> list[Callable[[], object]]:
    """Every function the module defines, ready to call."""
    calls: list[Callable[[], object]] = []
    for key, value in list(namespace.items()):
        if key.startswith("f") and callable(value):
            calls.append(lambda value=value: value(0))  # type: ignore[misc,operator]
        elif key.startswith("K") and isinstance(value, type):
            calls.append(lambda value=value: value().method())
    return calls


def raised_names(source: str) -> set[str]:
    """The names whose reads raise ``NameError`` when each function is called.

    A call stops at its first ``NameError``: the name is then bound in the module (as
    defining it would) and the call made again, until it goes through.
    """
    namespace: dict[str, object] = {"__name__": "generated"}
    exec(compile(source, FILENAME, "exec"), namespace)  # noqa: S102 - generated above, harmless
    raised: set[str] = set()
    for call in _calls(namespace):
        for _ in range(len(NAMES) + 1):
            try:
                call()
                break
            except NameError as error:
                assert not isinstance(error, UnboundLocalError), error  # the bodies bind before they read
                assert error.name is not None and error.name not in raised, error
                raised.add(error.name)
                namespace[error.name] = 1
        else:
            pytest.fail("a call kept raising NameError")
    return raised


def late_uses(source: str) -> tuple[LateUse, ...]:
    return read_function_bodies(
        ast.parse(source), source.encode(), lambda node: Pos(node.lineno, node.col_offset)
    ).late_uses


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(module())
def test_reported_exactly_when_calling_raises_name_error(source: str) -> None:
    reported = {use.name for use in late_uses(source)}
    assert reported == raised_names(source), source


def test_each_name_is_reported_once_at_its_first_read_with_the_function_that_reads_it() -> None:
    source = "def first():\n    return json\n\ndef second():\n    return json.dumps(1), yaml\n"
    assert late_uses(source) == (
        LateUse("json", Pos(2, 11), "first"),
        LateUse("yaml", Pos(5, 26), "second"),
    )


def test_where_the_module_binds_a_name_its_functions_cannot_read_is_said() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from decimal import Decimal\n"
        "class Order:\n"
        "    prefix = 'A'\n"
        "    def label(self):\n"
        "        return prefix, Decimal(1), SUFFIX\n"
        "if __name__ == '__main__':\n"
        "    SUFFIX = '!'\n"
    )
    assert late_uses(source) == (
        LateUse("prefix", Pos(7, 15), "Order.label", "Order", 5),
        LateUse("Decimal", Pos(7, 23), "Order.label", "type checking", 3),
        LateUse("SUFFIX", Pos(7, 35), "Order.label", "main guard", 9),
    )


def test_a_misspelling_is_matched_with_the_names_the_read_could_have_found() -> None:
    source = "LIMIT = 3\n\ndef page(valid_keys):\n    return LIMTI, valid_key\n"
    assert [(use.name, use.similar) for use in late_uses(source)] == [("LIMTI", "LIMIT"), ("valid_key", "valid_keys")]


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            "import enum\n@enum.global_enum\nclass Color(enum.IntEnum):\n    RED = 1\ndef f():\n    return RED\n",
            id="global_enum",
        ),
        pytest.param("globals()['X'] = 1\ndef f():\n    return X\n", id="globals"),
        pytest.param("def f():\n    global X\n    X = 1\ndef g():\n    return X\n", id="global"),
        pytest.param(
            "def f():\n    try:\n        get_ipython\n    except NameError:\n        return None\n    return get_ipython()\n",
            id="asked-about",
        ),
        pytest.param(
            "def f():\n    try:\n        return open('x')\n    except WindowsError:\n        return unicode('x')\n",
            id="other-pythons",
        ),
        pytest.param("def f():\n    x: Undefined = 1\n    return x\n", id="local-annotation"),
    ],
)
def test_names_the_walk_cannot_prove_unbound_are_never_reported(source: str) -> None:
    assert late_uses(source) == ()


def _stdlib_modules() -> list[Path]:
    folder = Path(ast.__file__).parent
    return sorted(path for path in folder.glob("*.py") if not path.name.startswith("test"))


def _global_reads(table: symtable.SymbolTable, inside_function: bool = False) -> set[str]:
    """The names CPython resolves among the module's globals in function-like scopes."""
    found = set()
    for child in table.get_children():
        kind = str(getattr(child.get_type(), "value", child.get_type()))
        function = kind == "function"
        if function or (kind == "class" and inside_function):
            found |= {
                symbol.get_name() for symbol in child.get_symbols() if symbol.is_referenced() and symbol.is_global()
            }
        found |= _global_reads(child, inside_function or function)
    return found


def test_on_the_standard_library_every_name_reported_is_one_cpython_resolves_as_a_global() -> None:
    modules = _stdlib_modules()
    assert len(modules) > 100
    reported = 0
    for path in modules:
        source = path.read_bytes()
        uses = late_uses(source.decode("utf-8"))
        reported += len(uses)
        if uses:
            resolved = _global_reads(symtable.symtable(source.decode("utf-8"), str(path), "exec"))
            assert {use.name for use in uses} <= resolved - set(dir(builtins)), path
    assert reported < 10  # the standard library's own modules are nearly free of them


def test_a_missing_import_in_execute_fails_the_compile_with_its_place_and_fix(tmp_path: Path) -> None:
    execute = "\n    def execute(self, input, ctx):\n        return json.dumps({'order_id': input.order_id})\n"
    tools = tool_class('    name = "lookup"\n' + SETTINGS + execute)
    agent = AGENT_MODULE
    write_project(tmp_path, {"tools.py": tools, "agent.py": agent})
    report = compile_project(tmp_path, use_cache=False)
    [found] = [item for item in report.diagnostics if item.code == "skill/undefined-name"]
    assert (found.path, found.line, found.col) == ("src/tools.py", 13, 15)
    assert found.message == (
        "json is used in Lookup.execute (line 13), and neither the function nor the module defines or imports it: "
        "calling Lookup.execute raises NameError there"
    )
    assert found.hint == "import json at the top of the module, or define it"
    for parsed in ("2 parsed, 0 cached", "0 parsed, 2 cached"):  # the second reads the index from the cache
        finished = run_command([str(SKILL), "compile", str(tmp_path)], cwd=tmp_path)
        assert finished.code == 1
        assert "src/tools.py:13:16: error[skill/undefined-name] json is used in Lookup.execute" in finished.stdout
        assert f"dist/ not written (2 modules, {parsed}," in finished.stdout
        assert not (tmp_path / "dist").exists()
