"""Calls whose coroutine nothing awaits: the check agrees with running the code.

Generated modules call, as statements of their own, coroutine functions and what only
looks like them (an async generator, an ``async def`` a decorator made sync, a name bound
again in the module or in the function, a method a subclass defines again), from sync and
async functions, nested functions, methods, and code that never runs.  Every function and
method is then run, with CPython's own record of where each coroutine that was never
awaited was made: ``skill/unawaited-coroutine`` must be reported at exactly the lines
that drop a coroutine every time they run.  The generated code is harmless: it only
calls its own functions.
"""

from __future__ import annotations

import asyncio
import re
import sys
import textwrap
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import SKILL, run_command, write_project
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skillc.compiler.api import compile_project
from skillc.compiler.check_projects import AGENT_MODULE, SETTINGS, tool_class
from skillc.compiler.index_types import ModuleIndex
from skillc.compiler.resolve import Linker
from skillc.compiler.sources import _index_one
from skillc.compiler.unawaited_calls_check import check_unawaited_calls

FILENAME = "<generated>"
PRELUDE = """\
import asyncio


def sync_version(function):
    return lambda *args: None


async def a0():
    return 1


@sync_version
async def a1():
    return 1


async def a2():
    yield 1


def s0():
    return 1


async def a3():
    return 1
"""
#: What a statement of a function may call: coroutine functions (``a0``, ``a3`` unless bound
#: again), an async def made sync (``a1``), an async generator (``a2``), a plain function.
NAME_CALLS = ("a0()", "a1()", "a2()", "a3()", "s0()")
#: ... and of a method: ``m0`` (unless ``L`` defines it again), ``m3`` (a staticmethod) make coroutines.
METHOD_CALLS = ("self.m0()", "self.m1()", "self.m2()", "self.m3()")
_CREATED_AT = re.compile(r'File "<generated>", line (\d+)')


@st.composite
def statements(draw: st.DrawFn, calls: tuple[str, ...], asynchronous: bool, depth: int = 0) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["call", "call", "kept", "never", "nested", "await"]))
        call = draw(st.sampled_from(calls))
        if kind == "kept":  # made and closed: never dropped
            lines.append("kept = asyncio.sleep(0)\nkept.close()")
        elif kind == "never":
            lines.append(f"if False:\n    {call}")
        elif kind == "nested" and depth == 0:
            inner = draw(statements(calls, False, depth + 1))
            lines.append("def inner():\n" + textwrap.indent(inner, "    ") + "inner()")
        elif kind == "await" and asynchronous:
            lines.append("await a0()")
        else:
            lines.append(call)
    return "\n".join(lines) + "\n"


@st.composite
def module(draw: st.DrawFn) -> str:
    parts = [PRELUDE]
    for number in range(draw(st.integers(1, 3))):
        asynchronous = draw(st.booleans())
        shadowed = not asynchronous and draw(st.booleans())  # a0 bound in the function: the local one runs
        body = ("a0 = s0\n" if shadowed else "") + draw(statements(NAME_CALLS, asynchronous))
        head = "async def" if asynchronous else "def"
        parts.append(f"\n\n{head} g{number}():\n" + textwrap.indent(body, "    "))
    methods = "    async def m0(self):\n        return 1\n\n    def m1(self):\n        return 1\n\n"
    methods += (
        "    async def m2(self):\n        yield 1\n\n    @staticmethod\n    async def m3():\n        return 1\n\n"
    )
    calls = METHOD_CALLS + NAME_CALLS
    methods += "    def run(self):\n" + textwrap.indent(draw(statements(calls, False)), "        ")
    methods += "\n    async def arun(self):\n" + textwrap.indent(draw(statements(calls, True)), "        ")
    parts.append("\n\nclass K:\n" + methods)
    override = "    def m0(self):\n        return 2\n" if draw(st.booleans()) else "    pass\n"
    parts.append("\n\nclass L(K):\n" + override)
    if draw(st.booleans()):
        parts.append("\n\na3 = s0\n")
    return "".join(parts)


def dropped_every_time(source: str) -> set[int]:
    """The lines that dropped a coroutine each time they ran: ``K``'s methods run on a ``K`` and an ``L``."""
    namespace: dict[str, object] = {"__name__": "generated"}
    exec(compile(source, FILENAME, "exec"), namespace)  # noqa: S102 - generated above, harmless
    runs: list[Callable[[], object]] = []
    for name, value in namespace.items():
        if name.startswith("g") and callable(value):
            runs.append(value)
    for instance in (namespace["K"](), namespace["L"]()):  # type: ignore[operator]
        runs.extend((instance.run, instance.arun))
    depth = sys.get_coroutine_origin_tracking_depth()
    sys.set_coroutine_origin_tracking_depth(1)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for run in runs:
                made = run()
                if asyncio.iscoroutine(made):
                    asyncio.run(made)
    finally:
        sys.set_coroutine_origin_tracking_depth(depth)
    drops = Counter(
        int(found.group(1))
        for item in caught
        if "was never awaited" in str(item.message) and (found := _CREATED_AT.search(str(item.message)))
    )
    lines = source.splitlines()
    twice = {
        number
        for number, text in enumerate(lines, 1)
        if text.startswith("        ") and _method_of(lines, number) in ("run", "arun")
    }
    return {line for line, count in drops.items() if count == (2 if line in twice else 1)}


def _method_of(lines: list[str], number: int) -> str | None:
    """The method of ``K`` whose body holds line ``number``."""
    for text in reversed(lines[: number - 1]):
        if text.startswith("    ") and "def " in text and not text.startswith("     "):
            return text.split("def ")[1].split("(")[0]
        if not text.startswith(" ") and text:
            return None
    return None


def reported_lines(source: str) -> set[int]:
    index = _index_one("tools.py", "tools", False, source.encode())
    assert isinstance(index, ModuleIndex)
    linker = Linker({"tools": index}, None, paths={"tools": "tools.py"})  # type: ignore[arg-type]
    check_unawaited_calls(linker)
    assert {finding.code for finding in linker.findings} <= {"skill/unawaited-coroutine"}
    return {finding.pos.line for finding in linker.findings}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(module())
def test_reported_exactly_where_running_the_code_drops_a_coroutine_every_time(source: str) -> None:
    assert reported_lines(source) == dropped_every_time(source), source


def test_a_dropped_call_fails_the_compile_with_its_place_and_fix(tmp_path: Path) -> None:
    execute = (
        "\n    async def execute(self, input, ctx):\n        self.save(input.order_id)\n        return input.order_id\n"
        "\n    async def save(self, order_id):\n        return order_id\n"
    )
    write_project(
        tmp_path, {"tools.py": tool_class('    name = "lookup"\n' + SETTINGS + execute), "agent.py": AGENT_MODULE}
    )
    report = compile_project(tmp_path, use_cache=False)
    [found] = report.diagnostics
    assert (found.code, found.path, found.line, found.col) == ("skill/unawaited-coroutine", "src/tools.py", 13, 8)
    assert found.message == (
        "self.save(...) in Lookup.execute (line 13) makes a coroutine that nothing awaits: "
        "Lookup.save is an async def, so none of its body runs, and the call does nothing"
    )
    assert found.hint == "await it (await self.save(...)), or start it with asyncio.create_task(...) and keep the task"
    # The second compile reuses the first one's result; the third reads tools.py's summary from the index cache.
    for parsed in ("2 parsed, 0 cached", "0 parsed, 2 cached", "1 parsed, 1 cached"):
        if parsed.startswith("1"):
            with (tmp_path / "src" / "agent.py").open("a") as agent:
                agent.write("EDITED = 1\n")  # a new summary: the link is made again, of every summary
        finished = run_command([str(SKILL), "compile", str(tmp_path)], cwd=tmp_path)
        assert finished.code == 1
        assert "src/tools.py:13:9: error[skill/unawaited-coroutine] self.save(...) in Lookup.execute" in finished.stdout
        assert f"dist/ not written (2 modules, {parsed}," in finished.stdout
        assert not (tmp_path / "dist").exists()


def test_a_helper_made_async_in_another_module_is_reported_where_it_is_called(tmp_path: Path) -> None:
    """Only helpers.py changes: the link is made again, and the call in tools.py reported."""
    tools = "from helpers import notify\n" + tool_class('    name = "lookup"\n' + SETTINGS)
    tools += "\n    async def execute(self, input, ctx):\n        notify()\n        return 1\n"
    write_project(
        tmp_path, {"tools.py": tools, "helpers.py": "def notify():\n    return None\n", "agent.py": AGENT_MODULE}
    )
    first = run_command([str(SKILL), "compile", str(tmp_path)], cwd=tmp_path)
    assert first.code == 0, first.stdout
    (tmp_path / "src" / "helpers.py").write_text("async def notify():\n    return None\n")
    second = run_command([str(SKILL), "compile", str(tmp_path)], cwd=tmp_path)
    assert second.code == 1
    assert (
        "src/tools.py:14:9: error[skill/unawaited-coroutine] notify(...) in Lookup.execute (line 14)" in second.stdout
    )
    assert "(3 modules, 1 parsed, 2 cached," in second.stdout


@pytest.mark.parametrize(
    ("helpers", "call"),
    [
        pytest.param("async def notify():\n    return None\n", "notify()", id="imported"),
        pytest.param("async def notify():\n    return None\n\n\nnotify = print\n", None, id="bound-again-there"),
        pytest.param(
            "import functools\n\n\n@functools.cache\nasync def notify():\n    return None\n", None, id="decorated"
        ),
        pytest.param("def notify():\n    return None\n", None, id="sync"),
    ],
)
def test_a_function_imported_from_another_module_is_looked_up_where_it_is_defined(
    tmp_path: Path, helpers: str, call: str | None
) -> None:
    tools = "from helpers import notify\n" + tool_class('    name = "lookup"\n' + SETTINGS)
    tools += "\n    def execute(self, input, ctx):\n        notify()\n        return 1\n"
    write_project(tmp_path, {"tools.py": tools, "helpers.py": helpers, "agent.py": AGENT_MODULE})
    report = compile_project(tmp_path, use_cache=False)
    found = [(item.code, item.line, item.col, item.hint) for item in report.diagnostics]
    if call is None:
        assert found == []
    else:
        hint = (
            "Lookup.execute is not an async def, so it cannot await notify: make it one and await the call, "
            "or run the call with asyncio.run(...) where no event loop runs"
        )
        assert found == [("skill/unawaited-coroutine", 14, 8, hint)]


#: A tool class and a @tool function; ``{execute}`` is the class's execute, ``{more}`` more of its methods.
RETURNING = """\
from pydantic import BaseModel
from skillc import Tool, tool


class LookupInput(BaseModel):
    order_id: str


async def fetch(order_id):
    return {{"order_id": order_id}}


def plain(order_id):
    return {{"order_id": order_id}}


async def relay(order_id):
    return fetch(order_id)


class Lookup(Tool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput

{execute}
    async def decide(self, input):
        return False
{more}

@tool
async def find(order_id: str) -> dict:
    \"\"\"Find an order.\"\"\"
    {function}
"""
_EXECUTE = "    async def execute(self, input, ctx):\n        {}\n"


@pytest.mark.parametrize(
    ("execute", "more", "function", "expected"),
    [
        pytest.param(
            _EXECUTE.format("return fetch(input.order_id)"),
            "",
            "return await fetch(order_id)",
            (
                27,
                15,
                "Lookup.execute() returns fetch(...) without awaiting it: the runtime awaits Lookup.execute() once "
                "and gets the coroutine fetch makes, which is no result it can send: every call fails",
            ),
            id="execute",
        ),
        pytest.param(
            _EXECUTE.format("return await fetch(input.order_id)"),
            "",
            "return fetch(order_id)",
            (
                36,
                11,
                "find() returns fetch(...) without awaiting it: the runtime awaits find() once and gets the "
                "coroutine fetch makes, which is no result it can send: every call fails",
            ),
            id="tool-function",
        ),
        pytest.param(
            _EXECUTE.format("return 1"),
            "\n    async def needs_approval(self, input, ctx):\n        return self.decide(input)\n",
            "return 1",
            (
                33,
                15,
                "Lookup.needs_approval() returns self.decide(...) without awaiting it: the runtime awaits "
                "Lookup.needs_approval() once and gets the coroutine self.decide makes, which is neither True nor "
                "False: every call asks for approval",
            ),
            id="needs-approval",
        ),
        pytest.param(
            _EXECUTE.format("return 1"),
            "\n    async def condition(self):\n        return fetch('x')\n",
            "return 1",
            (
                33,
                15,
                "Lookup.condition() returns fetch(...) without awaiting it: the runtime awaits Lookup.condition() "
                "once and gets the coroutine fetch makes, which is neither True nor False: the tool is never offered",
            ),
            id="condition",
        ),
        # A sync execute may return a coroutine (the runtime awaits it); a helper's caller awaits
        # what it returns; a sync function's result is no coroutine.
        pytest.param(
            "    def execute(self, input, ctx):\n        return fetch(input.order_id)\n",
            "",
            "return plain(order_id)",
            None,
            id="sync-execute",
        ),
        pytest.param(_EXECUTE.format("return await relay(input.order_id)"), "", "return 1", None, id="helper"),
    ],
)
def test_an_async_def_the_runtime_calls_must_await_the_coroutine_it_returns(
    tmp_path: Path, execute: str, more: str, function: str, expected: tuple[int, int, str] | None
) -> None:
    tools = RETURNING.format(execute=execute, more=more, function=function)
    agent = AGENT_MODULE.replace("Lookup()", "Lookup(), find").replace("import Lookup", "import Lookup, find")
    write_project(tmp_path, {"tools.py": tools, "agent.py": agent})
    report = compile_project(tmp_path, use_cache=False)
    found = [(item.code, item.line, item.col, item.message) for item in report.diagnostics]
    assert found == ([] if expected is None else [("skill/unawaited-coroutine", *expected)])
