"""How much does skillc's runtime cost per tool call, and ``skill test`` per start, relative
to the least the same work could cost?

Two measurements, each reported as a ratio to a baseline measured side by side in the
same run (machines are noisy and differ; a ratio of two figures taken together is what
stays comparable from one machine or one run to the next):

Cost per call
    One small tool: a pydantic input model of four fields (``order_id: str`` with a
    pattern, ``quantity: int`` with bounds and a default, ``express: bool = False``,
    ``tags: list[str] = []``) and an async ``execute`` that returns a small dict.  The
    median cost of one call, over R rounds of N calls each (default 20 x 2,000), of:

    skillc
        the tool compiled into a generated project (``compile_project``), loaded with
        ``load_dist`` and called with ``await runtime.call(name, arguments_json, call_id,
        ctx)``: parse, validate, execute under a timeout, serialize, ``ToolResult``.
    floor
        the same work by hand: ``Model.model_validate_json(text)``, ``await execute(...)``,
        ``json.dumps(result)``.  No runtime can do less.
    LangChain
        ``StructuredTool.from_function(coroutine=..., args_schema=Model)`` and
        ``await tool.ainvoke(arguments_dict)``.
    OpenAI Agents SDK
        an ``@function_tool`` async function with the same four parameters and
        ``await tool.on_invoke_tool(tool_context, arguments_json)``.

    The frameworks are given every benefit of the doubt: LangChain gets the arguments
    already parsed into a dict and its result is not serialized; the Agents SDK reuses one
    ``ToolContext`` instead of building one per call, and is called below the runner (no
    tracing span, no guardrails).  The targets: skillc within 2x of the floor, and each
    framework at least 5x slower than skillc.

Start-up of ``skill test``
    The wall time of a whole ``skill test --name TOOL --input JSON PROJECT`` process on an
    up-to-date ``dist/``, against ``python -c "import pydantic"`` with the same
    interpreter (median of K runs, interleaved; target 2.5x).  Both run as on a user's
    machine: ``PYTHONDONTWRITEBYTECODE`` removed, so that bytecode is cached.

The frameworks are never installed into the project's environment: the benchmark creates
``bench/.venv-runtime`` (git-ignored), installs langchain-core, openai-agents and this
repository (editable) into it, and runs itself again there with ``--inner``.  When that
installation fails (no network, say) it says "frameworks: skipped (reason)" and measures
skillc against the floor in the interpreter it was started with.

Usage::

    .venv/bin/python bench/runtime.py [--quick] [--json] [--keep] [--profile]

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
#: Each framework per call as a multiple of skillc, at least.
TARGET_FRAMEWORK_OVER_SKILLC = 5.0
#: ``skill test`` as a multiple of ``python -c "import pydantic"``, at most.
TARGET_STARTUP = 2.5

#: Commands run as on a user's machine, where Python caches the bytecode it compiles.
MEASURED_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


class BenchError(Exception):
    """A step the measurement depends on failed; the message says which and why."""


class Unavailable(Exception):
    """A framework cannot be measured here; the message says why."""


# ------------------------------------------------------------------------ the one tool

PYPROJECT = """\
[project]
name = "runtime-bench"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["skillc", "pydantic>=2"]

[tool.skill]
entry = "src/agent.py"
"""

TOOL_MODULE = '''\
"""place_order: the one tool of the runtime benchmark."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from skillc import Tool, ToolContext


class PlaceOrderInput(BaseModel):
    """What place_order needs."""

    order_id: str = Field(pattern=r"^A\\d{4}$", description="The order id, like A1001.")
    quantity: Annotated[int, Field(ge=1, le=100)] = 1
    express: bool = False
    tags: list[str] = Field(default_factory=list, description="Labels to add.")


class PlaceOrder(Tool):
    name = "place_order"
    description = "Order again: the runtime benchmark's one tool."
    input_schema = PlaceOrderInput

    async def execute(self, input: PlaceOrderInput, ctx: ToolContext) -> dict[str, object]:
        return {"order_id": input.order_id, "quantity": input.quantity, "express": input.express, "tags": input.tags}
'''

AGENT_MODULE = '''\
"""The runtime benchmark's agent: one skill with one tool."""

from skillc import Agent, Skill

from orders import PlaceOrder

agent = Agent(
    name="bench",
    persona="You help the customers of an online shop with their orders.",
    skills=[Skill(name="orders", description="Orders.", context="Ids look like A1001.", tools=[PlaceOrder()])],
)
'''

PROJECT_FILES = {
    "pyproject.toml": PYPROJECT,
    "src/orders.py": TOOL_MODULE,
    "src/agent.py": AGENT_MODULE,
}


# The same model as the generated project's (``skillc_candidate`` checks that the JSON
# schemas are equal, so the docstring must be the same too).
class PlaceOrderInput(BaseModel):
    """What place_order needs."""

    order_id: str = Field(pattern=r"^A\d{4}$", description="The order id, like A1001.")
    quantity: Annotated[int, Field(ge=1, le=100)] = 1
    express: bool = False
    tags: list[str] = Field(default_factory=list, description="Labels to add.")


async def execute(input: PlaceOrderInput, ctx: object) -> dict[str, object]:
    """The tool's ``execute``, as the floor calls it."""
    return {"order_id": input.order_id, "quantity": input.quantity, "express": input.express, "tags": input.tags}


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
class Candidate:
    """One way of calling the tool, and the per-call times measured for it (seconds)."""

    key: str
    label: str
    call: Call
    #: Turns what ``call`` returns into the tool's result, for the check against ``EXPECTED``.
    decode: Callable[[object], object]
    samples: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    async def check(self) -> None:
        """Call once (this is also the warm-up's first call); the result must be ``EXPECTED``."""
        value = self.decode(await self.call())
        if value != EXPECTED:
            raise BenchError(f"{self.label} returned {value!r}, expected {EXPECTED!r}")


def _skillc_output(result: object) -> object:
    if getattr(result, "is_error", True):
        raise BenchError(f"skillc returned an error result: {result!r}")
    return json.loads(result.output)


async def skillc_candidate(project: Path) -> tuple[Candidate, Any]:
    """Compile the project in-process, load its dist/ and return the call; and the runtime."""
    from skillc import ToolContext
    from skillc.compiler.api import compile_project
    from skillc.runtime import load_dist

    report = compile_project(project)
    if not report.ok or report.dist not in ("written", "up to date"):
        problems = "; ".join(f"{item.path}:{item.line}: {item.message}" for item in report.diagnostics[:5])
        raise BenchError(f"compile_project did not build dist/ ({report.dist}): {problems}")
    runtime = load_dist(project / "dist")
    ctx = ToolContext()
    candidate = Candidate(
        "skillc",
        "skillc Runtime.call",
        lambda: runtime.call(TOOL_NAME, ARGUMENTS, CALL_ID, ctx),
        _skillc_output,
    )
    await candidate.check()  # the first call imports the bundle
    loaded = await runtime.load_tool(TOOL_NAME, 10.0)
    compiled = loaded.tool.input_schema.model_json_schema()
    if compiled != PlaceOrderInput.model_json_schema():
        raise BenchError("the compiled tool's input model differs from the benchmark's PlaceOrderInput")
    return candidate, runtime


def floor_candidate() -> Candidate:
    """The least the same work can cost: validate the JSON, execute, dump the result."""
    from skillc import ToolContext

    ctx = ToolContext()

    async def call() -> str:
        return json.dumps(await execute(PlaceOrderInput.model_validate_json(ARGUMENTS), ctx))

    return Candidate("floor", "floor (validate_json, execute, dumps)", call, lambda text: json.loads(str(text)))


def langchain_candidate() -> Candidate:
    """``StructuredTool.ainvoke`` with the arguments as a dict (parsed beforehand, untimed)."""
    try:
        from langchain_core.tools import StructuredTool
    except ImportError as error:
        raise Unavailable(f"langchain-core is not installed here ({error})") from None

    async def place_order(
        order_id: str, quantity: int = 1, express: bool = False, tags: list[str] | None = None
    ) -> dict[str, object]:
        return {"order_id": order_id, "quantity": quantity, "express": express, "tags": tags or []}

    tool = StructuredTool.from_function(
        coroutine=place_order,
        name=TOOL_NAME,
        description="Order again: the runtime benchmark's one tool.",
        args_schema=PlaceOrderInput,
    )
    arguments = json.loads(ARGUMENTS)
    return Candidate(
        "langchain", "LangChain StructuredTool.ainvoke", lambda: tool.ainvoke(arguments), lambda value: value
    )


def agents_candidate() -> Candidate:
    """An ``@function_tool`` with the same four parameters, through ``on_invoke_tool``."""
    try:
        import agents
        from agents.tool_context import ToolContext as AgentsToolContext
    except ImportError as error:
        raise Unavailable(f"openai-agents is not installed here ({error})") from None
    agents.set_tracing_disabled(True)  # nothing is sent anywhere, even at exit

    async def place_order(
        order_id: Annotated[str, Field(pattern=r"^A\d{4}$", description="The order id, like A1001.")],
        quantity: Annotated[int, Field(ge=1, le=100)] = 1,
        express: bool = False,
        tags: list[str] = Field(default_factory=list, description="Labels to add."),  # noqa: B008 (pydantic's own idiom)
    ) -> dict[str, object]:
        """Order again: the runtime benchmark's one tool."""
        return {"order_id": order_id, "quantity": quantity, "express": express, "tags": tags}

    tool = agents.function_tool(place_order)
    # What the runner builds for each call (ToolContext.from_agent_context); built once here.
    context = AgentsToolContext(context=None, tool_name=tool.name, tool_call_id=CALL_ID, tool_arguments=ARGUMENTS)
    return Candidate(
        "openai_agents",
        "OpenAI Agents on_invoke_tool",
        lambda: tool.on_invoke_tool(context, ARGUMENTS),
        lambda value: value,
    )


FRAMEWORK_SETUPS: dict[str, Callable[[], Candidate]] = {
    "langchain": langchain_candidate,
    "openai_agents": agents_candidate,
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
    """Set every candidate up, check it, and measure them all in one event loop."""
    say.print("compiling and loading the one-tool project ...")
    skillc, runtime = await skillc_candidate(project)
    try:
        candidates = [skillc, floor_candidate()]
        await candidates[1].check()
        skipped: dict[str, str] = {}
        for key, setup in FRAMEWORK_SETUPS.items():
            if frameworks_skipped is not None:
                skipped[key] = frameworks_skipped
                continue
            try:
                candidate = setup()
            except Unavailable as error:
                skipped[key] = str(error)
                continue
            await candidate.check()
            candidates.append(candidate)
        say.print(f"timing {len(candidates)} candidates: {args.rounds} rounds x {args.calls} calls ...")
        await measure_calls(candidates, args.rounds, args.calls, say)
        profile = await profile_calls(skillc, args.calls) if args.profile else None
        return CallFigures({candidate.key: candidate for candidate in candidates}, skipped, profile)
    finally:
        runtime.close()


@dataclass
class Startup:
    """Whole-process wall times (seconds) of ``skill test`` and of importing pydantic."""

    skill_test: list[float] = field(default_factory=list)
    import_pydantic: list[float] = field(default_factory=list)


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

    figures = Startup()
    skill_test()  # untimed: bytecode caches written, files in the page cache
    import_pydantic()
    for round_ in range(repeat):
        say.print(f"  start-up {round_ + 1}/{repeat} ...")
        figures.import_pydantic.append(import_pydantic())
        figures.skill_test.append(skill_test())
    return figures


# ---------------------------------------------------------------------------- reporting


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def figures(calls: CallFigures, startup: Startup, args: argparse.Namespace) -> dict[str, object]:
    """Everything measured, as one JSON-ready document of rows."""
    found = calls.candidates
    skillc, floor = found["skillc"].median, found["floor"].median
    rows: list[dict[str, object]] = []

    def row(key: str, label: str, value: float, unit: str, samples: list[float], **extra: object) -> None:
        rows.append({"key": key, "label": label, "value": value, "unit": unit, "samples": samples, **extra})

    def per_call_row(candidate: Candidate, **extra: object) -> None:
        samples = [round(sample * 1e6, 2) for sample in candidate.samples]
        row(candidate.key, candidate.label, round(candidate.median * 1e6, 2), "us/call", samples, **extra)

    ratio = skillc / floor
    per_call_row(found["floor"], ratio=1.0, ratio_of="floor", target=None, passed=None)
    per_call_row(
        found["skillc"],
        ratio=round(ratio, 2),
        ratio_of="floor",
        target=f"<= {TARGET_SKILLC_OVER_FLOOR:g}x",
        passed=ratio <= TARGET_SKILLC_OVER_FLOOR,
    )
    for key in FRAMEWORK_SETUPS:
        if key in found:
            ratio = found[key].median / skillc
            per_call_row(
                found[key],
                ratio=round(ratio, 2),
                ratio_of="skillc",
                target=f">= {TARGET_FRAMEWORK_OVER_SKILLC:g}x",
                passed=ratio >= TARGET_FRAMEWORK_OVER_SKILLC,
            )
    base = statistics.median(startup.import_pydantic)
    test = statistics.median(startup.skill_test)
    ms = [round(sample * 1e3, 1) for sample in startup.import_pydantic]
    row(
        "import_pydantic",
        'python -c "import pydantic"',
        round(base * 1e3, 1),
        "ms",
        ms,
        ratio=1.0,
        ratio_of="import pydantic",
        target=None,
        passed=None,
    )
    ms = [round(sample * 1e3, 1) for sample in startup.skill_test]
    row(
        "skill_test",
        "skill test (whole process)",
        round(test * 1e3, 1),
        "ms",
        ms,
        ratio=round(test / base, 2),
        ratio_of="import pydantic",
        target=f"<= {TARGET_STARTUP:g}x",
        passed=test / base <= TARGET_STARTUP,
    )
    frameworks: dict[str, object] = {}
    for key, package in FRAMEWORK_PACKAGES.items():
        if key in calls.skipped:
            frameworks[key] = {"status": "skipped", "reason": calls.skipped[key]}
        else:
            frameworks[key] = {"status": "measured", "package": package, "version": _version(package)}
    return {
        "python": platform.python_version(),
        "pydantic": _version("pydantic"),
        "cpus": os.cpu_count(),
        "rounds": args.rounds,
        "calls_per_round": args.calls,
        "startup_repeat": args.repeat,
        "frameworks": frameworks,
        "rows": rows,
    }


def print_table(console: Console, document: Mapping[str, Any]) -> None:
    """The figures for people: one row per measurement, then what was skipped."""
    table = Table(
        title=f"skillc runtime: {document['rounds']} rounds x {document['calls_per_round']} calls, "
        f"start-up median of {document['startup_repeat']} "
        f"(Python {document['python']}, pydantic {document['pydantic']}, {document['cpus']} CPUs)",
        box=box.SIMPLE_HEAD,
    )
    for name, justify in (
        ("measurement", "left"),
        ("value", "right"),
        ("ratio", "right"),
        ("target", "right"),
        ("result", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for row in document["rows"]:
        value = f"{row['value']:.2f} us/call" if row["unit"] == "us/call" else f"{row['value']:.1f} ms"
        passed = row["passed"]
        table.add_row(
            row["label"],
            value,
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
    parser.add_argument("--rounds", type=int, help="rounds of calls (default 20, --quick 5)")
    parser.add_argument("--calls", type=int, help="calls per round (default 2000, --quick 500)")
    parser.add_argument("--repeat", type=int, help="start-up runs of each command (default 7, --quick 3)")
    parser.add_argument("--no-frameworks", action="store_true", help="measure skillc against the floor only")
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
        calls = asyncio.run(per_call(project, args, frameworks_skipped, say))
        startup = measure_startup(project, args.repeat, say)
    except BenchError as error:
        say.print(f"error: {error}")
        return 1
    finally:
        if args.keep:
            say.print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if calls.profile is not None:
        say.print("skillc's call path under cProfile:")
        say.print(calls.profile)
    document = figures(calls, startup, args)
    document["elapsed_s"] = round(time.time() - started, 1)
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        # Wide enough for one line per row, also when stdout is a file or a pipe.
        width = None if sys.stdout.isatty() else 120
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
    if args.no_frameworks:
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
