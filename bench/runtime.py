"""How much does skillc's runtime cost per tool call, and ``skill test`` per start, relative
to the least the same work could cost?

Three measurements, each reported as a ratio to a baseline measured side by side in the
same run (machines are noisy and differ; a ratio of two figures taken together is what
stays comparable from one machine or one run to the next):

Cost per call
    Three small tools that take the same pydantic input model of four fields
    (``order_id: str`` with a pattern, ``quantity: int`` with bounds and a default,
    ``express: bool = False``, ``tags: list[str] = []``) and return the same four values:

    async tool
        ``place_order``: an async ``execute`` that returns a dict;
    sync tool
        ``place_order_sync``: the same ``execute`` as a plain function;
    output model
        ``place_order_typed``: an async ``execute`` that returns a pydantic model, the
        tool's ``output_schema``.

    For each tool, the median cost of one call, over R rounds of N calls each (default
    20 x 2,000), of:

    skillc
        the tools compiled into a generated project (``compile_project``), loaded with
        ``load_dist`` and called with ``await runtime.call(name, arguments_json, call_id,
        ctx)``: parse, validate, execute under a timeout, validate the output where there
        is an output model, serialize, ``ToolResult``.
    floor
        the same work by hand: ``Model.model_validate_json(text)``, ``execute(...)``
        (awaited; the sync tool in a thread, ``asyncio.to_thread``), then ``json.dumps``
        of the dict, or ``Output.model_validate(result).model_dump_json()``.  No runtime
        can do less.  A sync tool must leave the event loop free (its ``execute`` may block
        on a socket for seconds while other calls wait): one hop to a thread and back is
        part of the least its call can cost, and the Agents SDK and LangChain make it too.
    LangChain
        ``StructuredTool.from_function(coroutine=...)`` (``func=...`` for the sync tool)
        with ``args_schema=Model``, and ``await tool.ainvoke(arguments_dict)``.
    OpenAI Agents SDK
        an ``@function_tool`` function (async, or sync) with the same four parameters and
        the same return type, and ``await tool.on_invoke_tool(tool_context, arguments_json)``.

    The frameworks are given every benefit of the doubt: LangChain gets the arguments
    already parsed into a dict, and neither framework's result is serialized nor its
    output checked against a model; the Agents SDK reuses one ``ToolContext`` instead of
    building one per call, and is called below the runner (no tracing span, no
    guardrails).  The targets: skillc within 2x of the floor and no slower than the Agents
    SDK, and LangChain at least 5x slower than skillc.

1,000 calls at once
    For the async and the sync tool, ``asyncio.gather`` of C calls (default 1,000) started
    together, R times, for each candidate above: the throughput (C over the wall time of
    the burst, median over the rounds) and the p99 of the time from the burst's start to
    each call's result (median of each round's p99).  Every result of a burst is checked.
    No targets: the figures are compared with the floor's and with each other's.

Start-up of ``skill test``
    The wall time of a whole ``skill test --name TOOL --input JSON PROJECT`` process on an
    up-to-date ``dist/``, against ``python -c "import pydantic"`` with the same
    interpreter (median of K runs, interleaved; target 2.5x).  Beside them, a bare script
    that makes the same call with no skillc at all (imports asyncio and pydantic, defines
    the input model, validates the JSON, awaits the tool, prints its result): the least a
    process that runs the tool can cost, and so what skillc's own share is measured
    against.  All run as on a user's machine: ``PYTHONDONTWRITEBYTECODE`` removed, so that
    bytecode is cached.

The frameworks are never installed into the project's environment: the benchmark creates
``bench/.venv-runtime`` (git-ignored), installs langchain-core, openai-agents and this
repository (editable) into it, and runs itself again there with ``--inner``.  When that
installation fails (no network, say) it says "frameworks: skipped (reason)" and measures
skillc against the floor in the interpreter it was started with.

Usage::

    .venv/bin/python bench/runtime.py [--quick] [--json] [--keep] [--profile] [--no-frameworks]
                                      [--rounds R] [--calls N] [--concurrent C] [--repeat K]
    .venv/bin/python bench/runtime.py --startup-only [--repeat K] [--json] [--keep]

``--startup-only`` measures the start-up rows alone (no per-call rows, no frameworks, so no
``bench/.venv-runtime``), in the interpreter it was started with.

Exit codes: 0 measured (a MISS is a result, not a failure), 1 something the measurement
depends on failed (the reason is printed).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import hashlib
import importlib
import io
import json
import os
import platform
import pstats
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field
from rich import box
from rich.console import Console
from rich.table import Table

# ------------------------------------------------------------------------------ settings

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
#: The benchmark's own environment, the only place the frameworks are installed.
VENV = BENCH / ".venv-runtime"
#: What ``VENV`` was last installed with; a different one means install again.
STAMP = VENV / "bench-runtime-installed.json"
#: The frameworks compared, as pip requirements (pinned to the API this script speaks).
FRAMEWORKS = ("langchain-core>=1.0,<2", "openai-agents>=0.24,<0.25")

VENV_TIMEOUT = 300.0
PIP_TIMEOUT = 1200.0
#: The longest the whole inner run may take.
INNER_TIMEOUT = 3600.0
#: The longest one ``skill compile``, ``skill test`` or ``python -c`` may take.
COMMAND_TIMEOUT = 120.0

#: The tool ``skill test`` runs in the start-up measurement: the async one.
TOOL_NAME = "place_order"
ARGUMENTS = '{"order_id": "A1001", "quantity": 3, "express": true, "tags": ["gift", "fragile"]}'
#: What every candidate must return for ``ARGUMENTS``, once decoded.
EXPECTED: dict[str, object] = {
    "order_id": "A1001",
    "quantity": 3,
    "express": True,
    "tags": ["gift", "fragile"],
}
CALL_ID = "call_bench_1"

#: skillc per call as a multiple of the floor, at most.
TARGET_SKILLC_OVER_FLOOR = 2.0
#: Each framework per call as a multiple of skillc, at least: LangChain 5x slower, the Agents SDK not faster.
TARGET_FRAMEWORK_OVER_SKILLC = {"langchain": 5.0, "openai_agents": 1.0}
#: Calls started together in one burst (``--concurrent``).
CONCURRENT = 1000
#: ``skill test`` as a multiple of ``python -c "import pydantic"``, at most.
TARGET_STARTUP = 2.5

#: Commands run as on a user's machine, where Python caches the bytecode it compiles.
MEASURED_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


class BenchError(Exception):
    """A step the measurement depends on failed; the message says which and why."""


class Unavailable(Exception):
    """A framework cannot be measured here; the message says why."""


# --------------------------------------------------------------------- the three tools

PYPROJECT = """\
[project]
name = "runtime-bench"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["skillc", "pydantic>=2"]

[tool.skill]
entry = "src/agent.py"
"""

#: The input model of every tool of the benchmark, as its source says it (the project's and the bare script's).
INPUT_MODEL = '''\
class PlaceOrderInput(BaseModel):
    """What place_order needs."""

    order_id: str = Field(pattern=r"^A\\d{4}$", description="The order id, like A1001.")
    quantity: Annotated[int, Field(ge=1, le=100)] = 1
    express: bool = False
    tags: list[str] = Field(default_factory=list, description="Labels to add.")
'''

TOOL_MODULE = (
    '''\
"""The runtime benchmark's three tools: the same input and values, written three ways."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from skillc import Tool, ToolContext


'''
    + INPUT_MODEL
    + '''

class PlaceOrderOutput(BaseModel):
    """What place_order_typed returns."""

    order_id: str
    quantity: int
    express: bool
    tags: list[str]


class PlaceOrder(Tool):
    name = "place_order"
    description = "Order again: the runtime benchmark's async tool."
    input_schema = PlaceOrderInput

    async def execute(self, input: PlaceOrderInput, ctx: ToolContext) -> dict[str, object]:
        return {"order_id": input.order_id, "quantity": input.quantity, "express": input.express, "tags": input.tags}


class PlaceOrderSync(Tool):
    name = "place_order_sync"
    description = "Order again: the runtime benchmark's sync tool."
    input_schema = PlaceOrderInput

    def execute(self, input: PlaceOrderInput, ctx: ToolContext) -> dict[str, object]:
        return {"order_id": input.order_id, "quantity": input.quantity, "express": input.express, "tags": input.tags}


class PlaceOrderTyped(Tool):
    name = "place_order_typed"
    description = "Order again: the runtime benchmark's tool with an output model."
    input_schema = PlaceOrderInput
    output_schema = PlaceOrderOutput

    async def execute(self, input: PlaceOrderInput, ctx: ToolContext) -> PlaceOrderOutput:
        return PlaceOrderOutput(order_id=input.order_id, quantity=input.quantity, express=input.express, tags=input.tags)
'''
)

AGENT_MODULE = '''\
"""The runtime benchmark's agent: one skill with three tools."""

from skillc import Agent, Skill

from orders import PlaceOrder, PlaceOrderSync, PlaceOrderTyped

agent = Agent(
    name="bench",
    persona="You help the customers of an online shop with their orders.",
    skills=[
        Skill(
            name="orders",
            description="Orders.",
            context="Ids look like A1001.",
            tools=[PlaceOrder(), PlaceOrderSync(), PlaceOrderTyped()],
        )
    ],
)
'''

PROJECT_FILES = {
    "pyproject.toml": PYPROJECT,
    "src/orders.py": TOOL_MODULE,
    "src/agent.py": AGENT_MODULE,
}


# The same models as the generated project's (``skillc_candidate`` checks that the JSON
# schemas are equal, so the docstrings must be the same too).
class PlaceOrderInput(BaseModel):
    """What place_order needs."""

    order_id: str = Field(pattern=r"^A\d{4}$", description="The order id, like A1001.")
    quantity: Annotated[int, Field(ge=1, le=100)] = 1
    express: bool = False
    tags: list[str] = Field(default_factory=list, description="Labels to add.")


class PlaceOrderOutput(BaseModel):
    """What place_order_typed returns."""

    order_id: str
    quantity: int
    express: bool
    tags: list[str]


async def execute(input: PlaceOrderInput, ctx: object) -> dict[str, object]:
    """The async tool's ``execute``, as the floor calls it."""
    return {"order_id": input.order_id, "quantity": input.quantity, "express": input.express, "tags": input.tags}


def execute_sync(input: PlaceOrderInput, ctx: object) -> dict[str, object]:
    """The sync tool's ``execute``, as the floor calls it."""
    return {"order_id": input.order_id, "quantity": input.quantity, "express": input.express, "tags": input.tags}


async def execute_typed(input: PlaceOrderInput, ctx: object) -> PlaceOrderOutput:
    """The output-model tool's ``execute``, as the floor calls it."""
    return PlaceOrderOutput(order_id=input.order_id, quantity=input.quantity, express=input.express, tags=input.tags)


@dataclass(frozen=True)
class Kind:
    """One of the three tools: its name in the project, and how its rows are named."""

    key: str
    tool: str
    label: str
    #: Appended to each candidate's key (the async tool's rows keep their plain keys).
    suffix: str
    #: Whether the burst of concurrent calls is measured for it.
    burst: bool


KINDS = (
    Kind("async", "place_order", "async tool", "", burst=True),
    Kind("sync", "place_order_sync", "sync tool", "_sync", burst=True),
    Kind("output", "place_order_typed", "output model", "_output", burst=False),
)


#: The Agents SDK reads a tool's parameters from its signature: these carry the input model's constraints.
OrderId = Annotated[str, Field(pattern=r"^A\d{4}$", description="The order id, like A1001.")]
Quantity = Annotated[int, Field(ge=1, le=100)]


def write_project(root: Path) -> None:
    """Write the generated one-tool project under ``root``."""
    for name, text in PROJECT_FILES.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------- subprocesses


@dataclass(frozen=True)
class Finished:
    """A finished command: its exit code, wall time, and captured streams."""

    code: int
    seconds: float
    stdout: str
    stderr: str


def run_bounded(
    args: Sequence[str | Path],
    *,
    timeout: float,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    capture: bool = True,
) -> Finished:
    """Run a command without standard input and time it; kill its process group on timeout.

    With ``capture=False`` the command writes to this process's own stdout and stderr
    (the inner run of the benchmark prints its table that way).
    """
    started = time.perf_counter()
    pipe = subprocess.PIPE if capture else None
    process = subprocess.Popen(
        [str(arg) for arg in args],
        cwd=cwd,
        env=None if env is None else dict(env),
        stdin=subprocess.DEVNULL,
        stdout=pipe,
        stderr=pipe,
        text=True,
        start_new_session=capture,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        if capture:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
        process.communicate()
        raise BenchError(f"{Path(args[0]).name} took longer than {timeout:.0f}s: killed") from None
    return Finished(process.returncode, time.perf_counter() - started, stdout or "", stderr or "")


def require_success(finished: Finished, what: str) -> Finished:
    """Return ``finished`` if it exited 0; otherwise raise with the end of its output."""
    if finished.code != 0:
        tail = "\n".join((finished.stderr.strip() or finished.stdout.strip()).splitlines()[-15:])
        raise BenchError(f"{what} exited {finished.code}" + (f":\n{tail}" if tail else ""))
    return finished


# ------------------------------------------------------------------ the frameworks' venv


def venv_python() -> Path:
    """The interpreter of the benchmark's own environment."""
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def wanted_stamp() -> dict[str, object]:
    """What the environment must have been installed with to be reused as it is."""
    pyproject = (REPO / "pyproject.toml").read_bytes()
    return {
        "requirements": list(FRAMEWORKS),
        "skillc_pyproject_sha256": hashlib.sha256(pyproject).hexdigest(),
        "python": platform.python_version(),
    }


def prepare_venv(say: Console) -> Path:
    """Create and fill ``bench/.venv-runtime`` unless it is current; return its interpreter.

    Raises ``Unavailable`` with the reason when it cannot be made (no network, no venv
    module, a failing install).
    """
    python = venv_python()
    try:
        wanted = wanted_stamp()
    except OSError as error:
        raise Unavailable(f"cannot read the repository's pyproject.toml ({error})") from None
    try:
        if json.loads(STAMP.read_text(encoding="utf-8")) == wanted and python.exists():
            return python
    except (OSError, ValueError):
        pass
    try:
        if not python.exists():
            say.print(f"creating {VENV.relative_to(REPO)} ...")
            made = run_bounded([sys.executable, "-m", "venv", VENV], timeout=VENV_TIMEOUT)
            require_success(made, "python -m venv")
        say.print(f"installing {', '.join(FRAMEWORKS)} and skillc into it (pip) ...")
        installed = run_bounded(
            [
                python,
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "--quiet",
                *FRAMEWORKS,
                "--editable",
                REPO,
            ],
            timeout=PIP_TIMEOUT,
        )
        require_success(installed, "pip install")
    except BenchError as error:
        lines = [line for line in str(error).splitlines() if line.strip()]
        errors = [line.strip() for line in lines if line.lstrip().startswith("ERROR")]
        raise Unavailable(errors[-1] if errors else " ".join(lines[:3])) from None
    STAMP.write_text(json.dumps(wanted, indent=2) + "\n", encoding="utf-8")
    return python


# ------------------------------------------------------------------------- candidates

#: One call of a candidate: it returns what the candidate returns.
Call = Callable[[], Awaitable[object]]


@dataclass
class Burst:
    """What the bursts of concurrent calls of one candidate took: per round, the wall time and the p99."""

    walls: list[float] = field(default_factory=list)
    p99s: list[float] = field(default_factory=list)


@dataclass
class Candidate:
    """One way of calling one of the tools, and the times measured for it (seconds)."""

    key: str
    label: str
    kind: Kind
    call: Call
    #: Turns what ``call`` returns into the tool's result, for the check against ``EXPECTED``.
    decode: Callable[[object], object]
    samples: list[float] = field(default_factory=list)
    burst: Burst = field(default_factory=Burst)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    async def check(self) -> None:
        """Call once (this is also the warm-up's first call); the result must be ``EXPECTED``."""
        self.expect(await self.call())

    def expect(self, returned: object) -> None:
        """``returned`` (what one call returned) must decode to ``EXPECTED``."""
        value = self.decode(returned)
        if value != EXPECTED:
            raise BenchError(f"{self.label} returned {value!r}, expected {EXPECTED!r}")


def _plain(value: object) -> object:
    """What a framework returned, as plain data: a pydantic model dumped, anything else as it is."""
    return value.model_dump() if isinstance(value, BaseModel) else value


def _skillc_output(result: object) -> object:
    if getattr(result, "is_error", True):
        raise BenchError(f"skillc returned an error result: {result!r}")
    return json.loads(result.output)


async def skillc_candidates(project: Path) -> tuple[list[Candidate], Any]:
    """Compile the project in-process, load its dist/ and return a call of each tool; and the runtime."""
    from skillc import ToolContext
    from skillc.compiler.api import compile_project
    from skillc.runtime import load_dist

    report = compile_project(project)
    if not report.ok or report.dist not in ("written", "up to date"):
        problems = "; ".join(f"{item.path}:{item.line}: {item.message}" for item in report.diagnostics[:5])
        raise BenchError(f"compile_project did not build dist/ ({report.dist}): {problems}")
    runtime = load_dist(project / "dist")
    ctx = ToolContext()
    candidates = []
    for kind in KINDS:

        def call(name: str = kind.tool) -> Awaitable[object]:
            return runtime.call(name, ARGUMENTS, CALL_ID, ctx)

        candidate = Candidate(f"skillc{kind.suffix}", "skillc Runtime.call", kind, call, _skillc_output)
        await candidate.check()  # the first call imports the bundle
        loaded = await runtime.load_tool(kind.tool, 10.0)
        if loaded.tool.input_schema.model_json_schema() != PlaceOrderInput.model_json_schema():
            raise BenchError(f"the compiled {kind.tool}'s input model differs from the benchmark's PlaceOrderInput")
        candidates.append(candidate)
    return candidates, runtime


def floor_candidates() -> list[Candidate]:
    """The least the same work can cost: validate the JSON, execute, dump the result."""
    from skillc import ToolContext

    ctx = ToolContext()

    async def call_async() -> str:
        return json.dumps(await execute(PlaceOrderInput.model_validate_json(ARGUMENTS), ctx))

    async def call_sync() -> str:
        return json.dumps(await asyncio.to_thread(execute_sync, PlaceOrderInput.model_validate_json(ARGUMENTS), ctx))

    async def call_typed() -> str:
        result = await execute_typed(PlaceOrderInput.model_validate_json(ARGUMENTS), ctx)
        return PlaceOrderOutput.model_validate(result).model_dump_json()

    calls = {"async": call_async, "sync": call_sync, "output": call_typed}
    labels = {
        "async": "floor (validate_json, execute, dumps)",
        "sync": "floor (validate_json, execute in a thread, dumps)",
        "output": "floor (validate_json, execute, model_dump_json)",
    }
    return [
        Candidate(f"floor{kind.suffix}", labels[kind.key], kind, calls[kind.key], lambda text: json.loads(str(text)))
        for kind in KINDS
    ]


def langchain_candidates() -> list[Candidate]:
    """``StructuredTool.ainvoke`` with the arguments as a dict (parsed beforehand, untimed)."""
    try:
        from langchain_core.tools import StructuredTool
    except ImportError as error:
        raise Unavailable(f"langchain-core is not installed here ({error})") from None

    async def place_order(
        order_id: str, quantity: int = 1, express: bool = False, tags: list[str] | None = None
    ) -> dict[str, object]:
        return {"order_id": order_id, "quantity": quantity, "express": express, "tags": tags or []}

    def place_order_sync(
        order_id: str, quantity: int = 1, express: bool = False, tags: list[str] | None = None
    ) -> dict[str, object]:
        return {"order_id": order_id, "quantity": quantity, "express": express, "tags": tags or []}

    async def place_order_typed(
        order_id: str, quantity: int = 1, express: bool = False, tags: list[str] | None = None
    ) -> PlaceOrderOutput:
        return PlaceOrderOutput(order_id=order_id, quantity=quantity, express=express, tags=tags or [])

    functions: dict[str, dict[str, Any]] = {
        "async": {"coroutine": place_order},
        "sync": {"func": place_order_sync},
        "output": {"coroutine": place_order_typed},
    }
    arguments = json.loads(ARGUMENTS)
    candidates = []
    for kind in KINDS:
        tool = StructuredTool.from_function(
            **functions[kind.key],
            name=kind.tool,
            description="Order again: the runtime benchmark's tool.",
            args_schema=PlaceOrderInput,
        )
        candidates.append(
            Candidate(
                f"langchain{kind.suffix}",
                "LangChain StructuredTool.ainvoke",
                kind,
                lambda tool=tool: tool.ainvoke(arguments),
                _plain,
            )
        )
    return candidates


def agents_candidates() -> list[Candidate]:
    """An ``@function_tool`` with the same four parameters, through ``on_invoke_tool``."""
    try:
        import agents
        from agents.tool_context import ToolContext as AgentsToolContext
    except ImportError as error:
        raise Unavailable(f"openai-agents is not installed here ({error})") from None
    agents.set_tracing_disabled(True)  # nothing is sent anywhere, even at exit

    async def place_order(
        order_id: OrderId,
        quantity: Quantity = 1,
        express: bool = False,
        tags: list[str] = Field(default_factory=list, description="Labels to add."),  # noqa: B008 (pydantic's own idiom)
    ) -> dict[str, object]:
        """Order again: the runtime benchmark's async tool."""
        return {"order_id": order_id, "quantity": quantity, "express": express, "tags": tags}

    def place_order_sync(
        order_id: OrderId,
        quantity: Quantity = 1,
        express: bool = False,
        tags: list[str] = Field(default_factory=list, description="Labels to add."),  # noqa: B008 (pydantic's own idiom)
    ) -> dict[str, object]:
        """Order again: the runtime benchmark's sync tool."""
        return {"order_id": order_id, "quantity": quantity, "express": express, "tags": tags}

    async def place_order_typed(
        order_id: OrderId,
        quantity: Quantity = 1,
        express: bool = False,
        tags: list[str] = Field(default_factory=list, description="Labels to add."),  # noqa: B008 (pydantic's own idiom)
    ) -> PlaceOrderOutput:
        """Order again: the runtime benchmark's tool with an output model."""
        return PlaceOrderOutput(order_id=order_id, quantity=quantity, express=express, tags=tags)

    functions: dict[str, Callable[..., Any]] = {
        "async": place_order,
        "sync": place_order_sync,
        "output": place_order_typed,
    }
    candidates = []
    for kind in KINDS:
        tool = agents.function_tool(functions[kind.key], name_override=kind.tool)
        # What the runner builds for each call (ToolContext.from_agent_context); built once here.
        context = AgentsToolContext(context=None, tool_name=tool.name, tool_call_id=CALL_ID, tool_arguments=ARGUMENTS)
        candidates.append(
            Candidate(
                f"openai_agents{kind.suffix}",
                "OpenAI Agents on_invoke_tool",
                kind,
                lambda tool=tool, context=context: tool.on_invoke_tool(context, ARGUMENTS),
                _plain,
            )
        )
    return candidates


FRAMEWORK_SETUPS: dict[str, Callable[[], list[Candidate]]] = {
    "langchain": langchain_candidates,
    "openai_agents": agents_candidates,
}
FRAMEWORK_PACKAGES = {"langchain": "langchain-core", "openai_agents": "openai-agents"}


# ------------------------------------------------------------------------- measuring


async def time_batch(call: Call, calls: int) -> float:
    """Seconds per call of ``calls`` calls in a row."""
    started = time.perf_counter()
    for _ in range(calls):
        await call()
    return (time.perf_counter() - started) / calls


async def measure_calls(candidates: list[Candidate], rounds: int, calls: int, say: Console) -> None:
    """Warm every candidate up, then time ``rounds`` batches of each, side by side.

    Each round runs one batch of every candidate, in an order rotated from round to
    round, so that whatever slows the machine down for a while slows all of them.
    """
    for candidate in candidates:
        await time_batch(candidate.call, max(calls // 4, 100))
    for round_ in range(rounds):
        say.print(f"  round {round_ + 1}/{rounds} ...")
        shift = round_ % len(candidates)
        for candidate in candidates[shift:] + candidates[:shift]:
            gc.collect()
            candidate.samples.append(await time_batch(candidate.call, calls))


async def run_burst(candidate: Candidate, size: int, *, check: bool = False) -> tuple[float, float]:
    """Start ``size`` calls of ``candidate`` together and wait for all of them.

    Returns the burst's wall time and the p99 of the calls' times to result (from the
    burst's start, when every call has been started, to the call's return).  With
    ``check``, every call's result must be ``EXPECTED``.
    """
    done: list[float] = []
    started = time.perf_counter()

    async def one() -> object:
        returned = await candidate.call()
        done.append(time.perf_counter() - started)
        return returned

    results = await asyncio.gather(*(one() for _ in range(size)))
    wall = time.perf_counter() - started
    if check:
        for returned in results:
            candidate.expect(returned)
    return wall, statistics.quantiles(done, n=100, method="inclusive")[98]


async def measure_bursts(candidates: list[Candidate], rounds: int, size: int, say: Console) -> None:
    """Check one burst of every candidate (which also warms it up), then time ``rounds`` bursts of each.

    The order is rotated from round to round, as in ``measure_calls``.
    """
    for candidate in candidates:
        await run_burst(candidate, size, check=True)
    for round_ in range(rounds):
        say.print(f"  burst round {round_ + 1}/{rounds} ...")
        shift = round_ % len(candidates)
        for candidate in candidates[shift:] + candidates[:shift]:
            gc.collect()
            wall, tail = await run_burst(candidate, size)
            candidate.burst.walls.append(wall)
            candidate.burst.p99s.append(tail)


async def profile_calls(candidate: Candidate, calls: int) -> str:
    """The top costs of ``calls`` calls of ``candidate`` under cProfile, as text."""
    profiler = cProfile.Profile()
    profiler.enable()
    await time_batch(candidate.call, calls)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(20)
    stats.sort_stats("cumulative").print_stats(25)
    return out.getvalue()


@dataclass
class CallFigures:
    """The per-call measurements: candidates measured, frameworks not, and a profile."""

    candidates: dict[str, Candidate]
    skipped: dict[str, str]
    profile: str | None = None


async def per_call(
    project: Path, args: argparse.Namespace, frameworks_skipped: str | None, say: Console
) -> CallFigures:
    """Set every candidate up, check it, and measure them all in one event loop: calls, then bursts."""
    say.print("compiling and loading the three-tool project ...")
    skillc, runtime = await skillc_candidates(project)
    try:
        floor = floor_candidates()
        for candidate in floor:
            await candidate.check()
        candidates = [*skillc, *floor]
        skipped: dict[str, str] = {}
        for key, setup in FRAMEWORK_SETUPS.items():
            if frameworks_skipped is not None:
                skipped[key] = frameworks_skipped
                continue
            try:
                made = setup()
            except Unavailable as error:
                skipped[key] = str(error)
                continue
            for candidate in made:
                await candidate.check()
            candidates.extend(made)
        say.print(f"timing {len(candidates)} candidates: {args.rounds} rounds x {args.calls} calls ...")
        await measure_calls(candidates, args.rounds, args.calls, say)
        bursting = [candidate for candidate in candidates if candidate.kind.burst]
        say.print(f"timing {len(bursting)} candidates: {args.rounds} rounds of {args.concurrent} calls at once ...")
        await measure_bursts(bursting, args.rounds, args.concurrent, say)
        profile = await profile_calls(skillc[0], args.calls) if args.profile else None
        return CallFigures({candidate.key: candidate for candidate in candidates}, skipped, profile)
    finally:
        runtime.close()


#: The start-up rows' bare script: the same call without skillc (asyncio, pydantic, the model, the tool).
BARE_SCRIPT = (
    """\
import asyncio, json, sys
from typing import Annotated

from pydantic import BaseModel, Field


"""
    + INPUT_MODEL
    + """

async def execute(input):
    return {"order_id": input.order_id, "quantity": input.quantity, "express": input.express, "tags": input.tags}


async def main():
    print(json.dumps(await execute(PlaceOrderInput.model_validate_json(sys.argv[1])), indent=2))


asyncio.run(main())
"""
)


@dataclass
class Startup:
    """Whole-process wall times (seconds) of ``skill test``, of importing pydantic, and of the bare script."""

    skill_test: list[float] = field(default_factory=list)
    import_pydantic: list[float] = field(default_factory=list)
    bare_script: list[float] = field(default_factory=list)


def measure_startup(project: Path, repeat: int, say: Console) -> Startup:
    """Compile once with ``skill compile``, then time both commands ``repeat`` times, interleaved."""
    skill = Path(sys.executable).with_name("skill.exe" if os.name == "nt" else "skill")
    if not skill.exists():
        raise BenchError(f"no `skill` command beside {Path(sys.executable).name}: skillc is not installed here")
    say.print("skill compile, once ...")
    require_success(
        run_bounded([skill, "compile", project], cwd=project, timeout=COMMAND_TIMEOUT, env=MEASURED_ENV),
        "skill compile",
    )

    def skill_test() -> float:
        finished = run_bounded(
            [skill, "test", "--name", TOOL_NAME, "--input", ARGUMENTS, project],
            cwd=project,
            timeout=COMMAND_TIMEOUT,
            env=MEASURED_ENV,
        )
        require_success(finished, "skill test")
        if "successful" not in finished.stdout:
            raise BenchError(f"skill test did not report a successful call:\n{finished.stdout.strip()}")
        return finished.seconds

    def import_pydantic() -> float:
        finished = run_bounded(
            [sys.executable, "-c", "import pydantic"], cwd=project, timeout=COMMAND_TIMEOUT, env=MEASURED_ENV
        )
        return require_success(finished, 'python -c "import pydantic"').seconds

    script = project.parent / "bare_call.py"
    script.write_text(BARE_SCRIPT, encoding="utf-8")

    def bare_script() -> float:
        finished = run_bounded(
            [sys.executable, script, ARGUMENTS], cwd=project, timeout=COMMAND_TIMEOUT, env=MEASURED_ENV
        )
        require_success(finished, "the bare script")
        if json.loads(finished.stdout) != EXPECTED:
            raise BenchError(f"the bare script printed {finished.stdout.strip()!r}")
        return finished.seconds

    figures = Startup()
    skill_test()  # untimed: bytecode caches written, files in the page cache
    import_pydantic()
    bare_script()
    for round_ in range(repeat):
        say.print(f"  start-up {round_ + 1}/{repeat} ...")
        figures.import_pydantic.append(import_pydantic())
        figures.bare_script.append(bare_script())
        figures.skill_test.append(skill_test())
    return figures


# ---------------------------------------------------------------------------- reporting


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def figures(calls: CallFigures | None, startup: Startup, args: argparse.Namespace) -> dict[str, object]:
    """Everything measured, as one JSON-ready document of rows.

    Per call and per burst, skillc's ratio is to the floor's figure for the same tool, and
    each framework's to skillc's; ``tool`` says which tool (or the start-up) a row is about.
    Without ``calls`` (``--startup-only``) there are only the start-up rows.
    """
    found = calls.candidates if calls is not None else {}
    rows: list[dict[str, object]] = []

    def row(key: str, label: str, value: float, unit: str, samples: list[float], **extra: object) -> None:
        rows.append({"key": key, "label": label, "value": value, "unit": unit, "samples": samples, **extra})

    def per_call_row(candidate: Candidate, **extra: object) -> None:
        samples = [round(sample * 1e6, 2) for sample in candidate.samples]
        value = round(candidate.median * 1e6, 2)
        row(candidate.key, candidate.label, value, "us/call", samples, tool=candidate.kind.label, **extra)

    def burst_row(candidate: Candidate, ratio: float, ratio_of: str) -> None:
        walls, p99s = candidate.burst.walls, candidate.burst.p99s
        row(
            f"{candidate.key}_burst",
            candidate.label,
            round(args.concurrent / statistics.median(walls)),
            "calls/s",
            [round(args.concurrent / wall) for wall in walls],
            tool=f"{candidate.kind.label}, {args.concurrent:,} at once",
            p99_ms=round(statistics.median(p99s) * 1e3, 2),
            p99_samples_ms=[round(tail * 1e3, 2) for tail in p99s],
            ratio=round(ratio, 2),
            ratio_of=ratio_of,
            target=None,
            passed=None,
        )

    for kind in KINDS if calls is not None else ():
        floor, skillc = found[f"floor{kind.suffix}"], found[f"skillc{kind.suffix}"]
        ratio = skillc.median / floor.median
        per_call_row(floor, ratio=1.0, ratio_of="floor", target=None, passed=None)
        per_call_row(
            skillc,
            ratio=round(ratio, 2),
            ratio_of="floor",
            target=f"<= {TARGET_SKILLC_OVER_FLOOR:g}x",
            passed=ratio <= TARGET_SKILLC_OVER_FLOOR,
        )
        for key, target in TARGET_FRAMEWORK_OVER_SKILLC.items():
            if f"{key}{kind.suffix}" in found:
                ratio = found[f"{key}{kind.suffix}"].median / skillc.median
                per_call_row(
                    found[f"{key}{kind.suffix}"],
                    ratio=round(ratio, 2),
                    ratio_of="skillc",
                    target=f">= {target:g}x",
                    passed=ratio >= target,
                )
    for kind in KINDS if calls is not None else ():
        if not kind.burst:
            continue
        floor, skillc = found[f"floor{kind.suffix}"], found[f"skillc{kind.suffix}"]
        skillc_wall = statistics.median(skillc.burst.walls)
        burst_row(floor, 1.0, "floor")
        burst_row(skillc, skillc_wall / statistics.median(floor.burst.walls), "floor")
        for key in FRAMEWORK_SETUPS:
            if f"{key}{kind.suffix}" in found:
                framework = found[f"{key}{kind.suffix}"]
                burst_row(framework, statistics.median(framework.burst.walls) / skillc_wall, "skillc")
    base = statistics.median(startup.import_pydantic)
    startup_rows = [
        ("import_pydantic", 'python -c "import pydantic"', startup.import_pydantic, None),
        ("bare_script", "the same call in a bare script (no skillc)", startup.bare_script, None),
        ("skill_test", "skill test (whole process)", startup.skill_test, TARGET_STARTUP),
    ]
    for key, label, samples, target in startup_rows:
        median = statistics.median(samples)
        row(
            key,
            label,
            round(median * 1e3, 1),
            "ms",
            [round(sample * 1e3, 1) for sample in samples],
            tool="start-up",
            ratio=round(median / base, 2),
            ratio_of="import pydantic",
            target=None if target is None else f"<= {target:g}x",
            passed=None if target is None else median / base <= target,
        )
    frameworks: dict[str, object] = {}
    for key, package in FRAMEWORK_PACKAGES.items():
        if calls is None:
            frameworks[key] = {"status": "skipped", "reason": "--startup-only"}
        elif key in calls.skipped:
            frameworks[key] = {"status": "skipped", "reason": calls.skipped[key]}
        else:
            frameworks[key] = {"status": "measured", "package": package, "version": _version(package)}
    return {
        "python": platform.python_version(),
        "pydantic": _version("pydantic"),
        "cpus": os.cpu_count(),
        "rounds": args.rounds,
        "calls_per_round": args.calls,
        "concurrent": args.concurrent,
        "startup_repeat": args.repeat,
        "startup_only": calls is None,
        "frameworks": frameworks,
        "rows": rows,
    }


def _shown_value(row: Mapping[str, Any]) -> str:
    if row["unit"] == "us/call":
        return f"{row['value']:.2f} us/call"
    if row["unit"] == "calls/s":
        return f"{row['value']:,} calls/s, p99 {row['p99_ms']:.1f} ms"
    return f"{row['value']:.1f} ms"


def print_table(console: Console, document: Mapping[str, Any]) -> None:
    """The figures for people: one row per measurement, a section per tool, then what was skipped."""
    calls = (
        ""
        if document["startup_only"]
        else f"{document['rounds']} rounds x {document['calls_per_round']} calls, bursts of {document['concurrent']:,}, "
    )
    table = Table(
        title=f"skillc runtime: {calls}start-up median of {document['startup_repeat']} "
        f"(Python {document['python']}, pydantic {document['pydantic']}, {document['cpus']} CPUs)",
        box=box.SIMPLE_HEAD,
    )
    for name, justify in (
        ("tool", "left"),
        ("measurement", "left"),
        ("value", "right"),
        ("ratio", "right"),
        ("target", "right"),
        ("result", "left"),
    ):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    section = None
    for row in document["rows"]:
        first = row["tool"] != section
        if first and section is not None:
            table.add_section()
        section = row["tool"]
        passed = row["passed"]
        table.add_row(
            row["tool"] if first else "",
            row["label"],
            _shown_value(row),
            f"{row['ratio']:.2f}x {row['ratio_of']}",
            row["target"] or "",
            "" if passed is None else ("PASS" if passed else "MISS"),
        )
    console.print(table)
    frameworks: dict[str, dict[str, Any]] = document["frameworks"]
    reasons = {item.get("reason") for item in frameworks.values()}
    if all(item["status"] == "skipped" for item in frameworks.values()) and len(reasons) == 1:
        console.print(f"frameworks: skipped ({reasons.pop()})")  # one reason for all: say it once
    else:
        for key, item in frameworks.items():
            if item["status"] == "skipped":
                console.print(f"{FRAMEWORK_PACKAGES[key]}: skipped ({item['reason']})")
            else:
                console.print(f"{item['package']} {item['version']}: measured")
    console.print(f"whole run: {document['elapsed_s']:.1f}s")


# ---------------------------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Time skillc's tool calls and `skill test` against baselines, in one run."
    )
    parser.add_argument("--quick", action="store_true", help="fewer rounds, calls and start-ups")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON document")
    parser.add_argument("--keep", action="store_true", help="keep the generated project's folder")
    parser.add_argument("--profile", action="store_true", help="also profile skillc's call path (stderr)")
    parser.add_argument("--rounds", type=int, help="rounds of calls, and of bursts (default 20, --quick 5)")
    parser.add_argument("--calls", type=int, help="calls per round (default 2000, --quick 500)")
    parser.add_argument(
        "--concurrent", type=int, default=CONCURRENT, help=f"calls started together in a burst (default {CONCURRENT})"
    )
    parser.add_argument("--repeat", type=int, help="start-up runs of each command (default 7, --quick 3)")
    parser.add_argument("--no-frameworks", action="store_true", help="measure skillc against the floor only")
    parser.add_argument("--startup-only", action="store_true", help="measure only the start-up of `skill test`")
    # Set by the outer run for the inner one.
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--started", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    defaults = {"rounds": (20, 5), "calls": (2000, 500), "repeat": (7, 3)}
    for name, (full, quick) in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if args.concurrent < 2:  # a p99 needs two calls at least
        parser.error("--concurrent must be at least 2")
    return args


def measure(args: argparse.Namespace, frameworks_skipped: str | None, started: float) -> int:
    """Generate the project, measure everything, report; return the exit code."""
    say = Console(stderr=True, highlight=False, markup=False, soft_wrap=True)
    try:
        # Only to fail early, with the reason, rather than halfway through.
        for module in ("skillc.compiler.api", "skillc.runtime.loader"):
            importlib.import_module(module)
    except ImportError as error:
        say.print(f"error: skillc is not importable by {Path(sys.executable).name} ({error}); install it first")
        return 1
    work = Path(tempfile.mkdtemp(prefix="skillc-bench-runtime-"))
    try:
        project = work / "project"
        write_project(project)
        calls = None if args.startup_only else asyncio.run(per_call(project, args, frameworks_skipped, say))
        startup = measure_startup(project, args.repeat, say)
    except BenchError as error:
        say.print(f"error: {error}")
        return 1
    finally:
        if args.keep:
            say.print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if calls is not None and calls.profile is not None:
        say.print("skillc's call path under cProfile:")
        say.print(calls.profile)
    document = figures(calls, startup, args)
    document["elapsed_s"] = round(time.time() - started, 1)
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        # Wide enough for one line per row, also when stdout is a file or a pipe.
        width = None if sys.stdout.isatty() else 160
        print_table(Console(highlight=False, markup=False, soft_wrap=True, width=width), document)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Prepare the frameworks' environment and run there, or measure without them."""
    raw = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(raw)
    started = time.time() if args.started is None else args.started
    if args.inner:
        # A tracing switch left on in the caller's environment would bill LangChain for it.
        for name in ("LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING", "LANGCHAIN_TRACING"):
            os.environ.pop(name, None)
        return measure(args, None, started)
    say = Console(stderr=True, highlight=False, markup=False, soft_wrap=True)
    if args.no_frameworks or args.startup_only:
        return measure(args, "--no-frameworks", started)
    try:
        python = prepare_venv(say)
    except Unavailable as error:
        say.print(f"frameworks: skipped ({error})")
        return measure(args, str(error), started)
    say.print(f"running again in {VENV.relative_to(REPO)} ...")
    try:
        inner = run_bounded(
            [python, Path(__file__).resolve(), *raw, "--inner", "--started", repr(started)],
            timeout=INNER_TIMEOUT,
            capture=False,
        )
    except BenchError as error:
        say.print(f"error: {error}")
        return 1
    return inner.code


if __name__ == "__main__":
    sys.exit(main())
