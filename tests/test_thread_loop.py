"""A sync execute, needs_approval or condition() runs in a worker thread, which has no event loop.

Looking the loop up there (``asyncio.get_event_loop().run_until_complete(...)``, the way
LangChain's sync ``_run`` calls its ``_arun``) raises ``RuntimeError`` on every call: the
compiler reports it (``skill/event-loop-in-thread``) in the functions the runtime runs in a
thread.  What it cannot see (a helper the function calls) really fails at call time, and
what its hint says to do instead (``asyncio.run``) really works: both run here through
``skill test``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import SKILL, run_command, write_project
from skillc.compiler.api import compile_project
from skillc.compiler.check_projects import AGENT_MODULE

#: A tool class and a @tool function around an async ``fetch``; each test gives the bodies.
TOOLS = """\
import asyncio
from asyncio import get_event_loop

from pydantic import BaseModel
from skillc import Tool, tool


class LookupInput(BaseModel):
    order_id: str


async def fetch(order_id):
    return {{"order_id": order_id}}


def helper(order_id):
    return asyncio.get_event_loop().run_until_complete(fetch(order_id))


class Lookup(Tool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput

    {head}execute(self, input, ctx):
        {body}
{more}

@tool
def find(order_id: str) -> dict:
    \"\"\"Find an order.\"\"\"
    {function}
"""
AGENT = AGENT_MODULE.replace("Lookup()", "Lookup(), find").replace("import Lookup", "import Lookup, find")
RUN = "return asyncio.run(fetch(input.order_id))"


def _compile(tmp_path: Path, head: str = "def ", body: str = RUN, more: str = "", function: str = "return {}") -> list:
    write_project(
        tmp_path, {"tools.py": TOOLS.format(head=head, body=body, more=more, function=function), "agent.py": AGENT}
    )
    report = compile_project(tmp_path, use_cache=False)
    return [(item.code, item.line, item.col) for item in report.diagnostics]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param({"body": "return asyncio.get_event_loop().run_until_complete(fetch(1))"}, (26, 15), id="execute"),
        pytest.param({"body": "return get_event_loop().run_until_complete(fetch(1))"}, (26, 15), id="imported"),
        pytest.param({"body": "loop = asyncio.get_running_loop()\n        return 1"}, (26, 15), id="running-loop"),
        pytest.param({"function": "return get_event_loop().run_until_complete(fetch(order_id))"}, (32, 11), id="tool"),
        pytest.param(
            {"more": "\n    def condition(self):\n        return asyncio.get_event_loop().is_running()\n"},
            (29, 15),
            id="condition",
        ),
        pytest.param(
            {"more": "\n    def needs_approval(self, input, ctx):\n        return bool(asyncio.get_running_loop())\n"},
            (29, 20),
            id="needs-approval",
        ),
        # Run on the loop, caught, given a loop of its own, or out of sight.
        pytest.param(
            {"head": "async def ", "body": "return await fetch(asyncio.get_running_loop())"}, None, id="async"
        ),
        pytest.param(
            {
                "body": "try:\n            return get_event_loop().run_until_complete(fetch(1))\n"
                "        except RuntimeError:\n            return asyncio.run(fetch(1))"
            },
            None,
            id="caught",
        ),
        pytest.param(
            {
                "body": "asyncio.set_event_loop(asyncio.new_event_loop())\n"
                "        return asyncio.get_event_loop().run_until_complete(fetch(1))"
            },
            None,
            id="own-loop",
        ),
        pytest.param({"body": "return helper(input.order_id)"}, None, id="helper"),
    ],
)
def test_a_loop_looked_up_in_a_worker_thread_fails_the_compile(
    tmp_path: Path, arguments: dict[str, str], expected: tuple[int, int] | None
) -> None:
    found = _compile(tmp_path, **arguments)
    assert found == ([] if expected is None else [("skill/event-loop-in-thread", *expected)])


def test_the_message_says_why_and_what_to_do(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        {
            "tools.py": TOOLS.format(
                head="def ",
                body="return asyncio.get_event_loop().run_until_complete(fetch(1))",
                more="",
                function="return {}",
            ),
            "agent.py": AGENT,
        },
    )
    finished = run_command([str(SKILL), "compile", str(tmp_path)], cwd=tmp_path)
    assert finished.code == 1
    assert (
        "src/tools.py:26:16: error[skill/event-loop-in-thread] Lookup.execute() calls asyncio.get_event_loop(), but "
        "the runtime runs a sync Lookup.execute() in a worker thread, which has no event loop: asyncio raises "
        "RuntimeError every time"
    ) in finished.stdout
    assert (
        "hint: run a coroutine with asyncio.run(...) (a worker thread may start a loop of its own), or make it an "
        "async def and await it"
    ) in finished.stdout


@pytest.mark.parametrize(
    ("body", "output"),
    [
        pytest.param("return helper(input.order_id)", "RuntimeError: There is no current event loop", id="helper"),
        pytest.param(RUN, '"order_id": "A1001"', id="asyncio-run"),
    ],
)
def test_in_the_worker_thread_a_lookup_fails_and_asyncio_run_works(tmp_path: Path, body: str, output: str) -> None:
    assert _compile(tmp_path, body=body) == []
    for _ in range(2):  # the second call may run in a thread the first one used
        finished = run_command(
            [str(SKILL), "test", "--name", "lookup", "--input", '{"order_id": "A1001"}'], cwd=tmp_path
        )
        assert output in finished.stdout, finished.stdout
        assert finished.code == (1 if "Error" in output else 0)
