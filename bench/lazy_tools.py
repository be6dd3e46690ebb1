"""How many prompt tokens do lazy tools save on an agent with 200 tools?

One generated project, compiled twice: once with every tool sent on every request (eager),
once with all but the 10 everyday tools marked ``lazy = True``, so that the model gets those
10 and the built-in ``find_tools``.  The same conversation runs through the real agent loop
(``skillc.runtime.agent.AgentLoop``, tools run from their compiled bundles) against a model
in this process that plays the same script for both: the user asks for one of the rarely
used tools; the lazy agent's model searches for it first (``find_tools``), then calls it,
then answers; the eager agent's model calls it at once, then answers.

Measured: the bytes of every request's ``tools`` and ``messages``, in the Chat Completions
shape the ``openai`` client sends (``chat_tool``), summed over the turn, and estimated
prompt tokens (bytes / 4, OpenAI's rule of thumb for English text and JSON; no tokenizer is
a dependency of skillc).  Reported: the ratio of the lazy agent's prompt to the eager one's,
per request and over the turn.  Target: the lazy turn costs at most a quarter of the eager
one, though it makes one request more.

Usage::

    .venv/bin/python bench/lazy_tools.py [--tools N] [--json]

Exit codes: 0 measured (a MISS is a result, not a failure), 1 the measurement failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

EVERYDAY = 10
TARGET_RATIO = 0.25
#: The tool the user's request needs: one of the rarely used ones.
WANTED = 137

PYPROJECT = """\
[project]
name = "bench-lazy"
version = "0.1.0"
dependencies = ["skillc", "pydantic>=2"]

[tool.skill]
entry = "src/agent.py"
"""

_AREAS = ("invoice", "shipment", "warehouse", "coupon", "supplier", "return", "review", "payout", "ledger", "audit")
_VERBS = ("list", "create", "update", "archive", "export", "reconcile", "approve", "merge", "split", "forecast")


def _tool(index: int, lazy: bool) -> str:
    area, verb = _AREAS[index % len(_AREAS)], _VERBS[(index // len(_AREAS)) % len(_VERBS)]
    name = f"{verb}_{area}_{index:03d}"
    setting = "(lazy=True)" if lazy else ""
    return f'''
@tool{setting}
def {name}(
    {area}_id: Annotated[str, Field(pattern=r"^[A-Z]{{2}}-\\d{{6}}$")],
    region: Literal["eu", "us", "apac"] = "eu",
    limit: Annotated[int, Field(ge=1, le=500)] = 50,
    include_archived: bool = False,
) -> dict[str, object]:
    """{verb.capitalize()} {area} records of batch {index:03d} for the back office.

    Args:
        {area}_id: The {area} id, two letters and six digits, like AB-123456.
        region: The region whose records are meant.
        limit: At most this many records.
        include_archived: Whether archived records count too.
    """
    return {{"tool": "{name}", "id": {area}_id, "region": region, "count": min(limit, 3)}}
'''


def write_agent(root: Path, count: int, lazy: bool) -> list[str]:
    """A project of ``count`` tools in one skill; all but the first ``EVERYDAY`` lazy when ``lazy``."""
    tools = [_tool(index, lazy and index >= EVERYDAY) for index in range(count)]
    names = [source.split("def ", 1)[1].split("(", 1)[0] for source in tools]
    module = (
        "from typing import Annotated, Literal\n\nfrom pydantic import Field\n\nfrom skillc import Agent, Skill, tool\n"
        + "".join(tools)
        + f"\nback_office = Skill(name='back_office', description='The back office.', tools=[{', '.join(names)}])\n"
        + "agent = Agent(name='office', persona='You run the back office.', skills=[back_office])\n"
    )
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "src" / "agent.py").write_text(module)
    return names


class ScriptedModel:
    """Plays the script and records each request as the ``openai`` client would send it."""

    label = "scripted"

    def __init__(self, wanted: str, search: bool) -> None:
        self.wanted = wanted
        self.search = search
        self.requests: list[dict[str, Any]] = []

    async def respond(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]],
        *,
        tool_choice: Any = None,
        on_text: Any = None,
    ) -> Any:
        from skillc.runtime.models import Reply, ToolCall
        from skillc.runtime.openai_chat import chat_tool

        self.requests.append({"messages": list(messages), "tools": [chat_tool(tool) for tool in tools]})
        names = {tool["name"] for tool in tools}
        calls = sum(1 for message in messages if message.get("role") == "tool")
        if self.search and self.wanted not in names:
            query = self.wanted.rsplit("_", 1)[0].replace("_", " ") + " batch " + self.wanted.rsplit("_", 1)[1]
            return Reply(tool_calls=(ToolCall(f"c{calls}", "find_tools", json.dumps({"query": query})),))
        if not any(
            message.get("content", "").startswith('{"tool":') for message in messages if message.get("role") == "tool"
        ):
            return Reply(
                tool_calls=(
                    ToolCall(f"c{calls}", self.wanted, '{"' + self.wanted.split("_")[1] + '_id": "AB-123456"}'),
                )
            )
        return Reply("Done: 3 records.")

    async def aclose(self) -> None:
        return None


def _size(document: object) -> int:
    return len(json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode())


def measure(work: Path, count: int, lazy: bool) -> dict[str, Any]:
    from skillc.compiler.api import compile_project
    from skillc.runtime.agent import AgentLoop
    from skillc.runtime.context import ToolContext
    from skillc.runtime.loader import load_dist

    root = work / ("lazy" if lazy else "eager")
    names = write_agent(root, count, lazy)
    report = compile_project(root)
    if not report.ok:
        raise RuntimeError(f"the generated project does not compile: {[item.message for item in report.diagnostics]}")
    model = ScriptedModel(names[WANTED], search=lazy)

    async def turn() -> Any:
        with load_dist(root / "dist") as runtime:
            loop = AgentLoop(runtime, model, ToolContext())
            return await loop.turn([], f"Please {names[WANTED].rsplit('_', 1)[0].replace('_', ' ')} AB-123456.")

    result = asyncio.run(turn())
    if result.stopped or not all(not item.is_error for item in result.results):
        raise RuntimeError(f"the {'lazy' if lazy else 'eager'} turn failed: {result}")
    tools = [_size(request["tools"]) for request in model.requests]
    messages = [_size(request["messages"]) for request in model.requests]
    return {
        "requests": len(model.requests),
        "tools_sent": [len(request["tools"]) for request in model.requests],
        "tool_bytes": tools,
        "prompt_bytes": [a + b for a, b in zip(tools, messages, strict=True)],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tools", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    if options.tools <= WANTED:
        parser.error(f"--tools must be more than {WANTED}")
    work = Path(tempfile.mkdtemp(prefix="skillc-bench-lazy-"))
    try:
        eager = measure(work, options.tools, lazy=False)
        lazy = measure(work, options.tools, lazy=True)
    except Exception as error:  # the measurement failed: say why, exit 1
        print(f"bench/lazy_tools.py: {error}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    eager_total, lazy_total = sum(eager["prompt_bytes"]), sum(lazy["prompt_bytes"])
    ratio = lazy_total / eager_total
    document = {
        "tools": options.tools,
        "everyday": EVERYDAY,
        "eager": eager,
        "lazy": lazy,
        "estimated_tokens": {"eager": eager_total // 4, "lazy": lazy_total // 4},
        "ratio": round(ratio, 4),
        "target": TARGET_RATIO,
        "met": ratio <= TARGET_RATIO,
    }
    if options.json:
        print(json.dumps(document, indent=2))
        return 0
    table = Table(title=f"One turn of a {options.tools}-tool agent ({EVERYDAY} everyday tools, the rest lazy)")
    for column in ("agent", "requests", "tools sent per request", "prompt bytes", "~tokens (bytes/4)"):
        table.add_column(column, justify="right" if column != "agent" else "left")
    for label, run in (("eager", eager), ("lazy", lazy)):
        total = sum(run["prompt_bytes"])
        table.add_row(
            label, str(run["requests"]), " / ".join(map(str, run["tools_sent"])), f"{total:,}", f"{total // 4:,}"
        )
    console = Console()
    console.print(table)
    verdict = "MET" if document["met"] else "MISS"
    saved = eager_total // 4 - lazy_total // 4
    console.print(
        f"lazy / eager prompt: {ratio:.3f} (~{saved:,} tokens saved in the turn; "
        f"first request {lazy['prompt_bytes'][0] / eager['prompt_bytes'][0]:.3f}); "
        f"target <= {TARGET_RATIO}: {verdict}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
