"""How fast is ``skill compile``, as a user runs it, relative to reading the sources at all?

The benchmark generates a skillc project of N class-form tools (default 500) in a
temporary folder: one shared project base class, one module per tool with a four-field
pydantic input model, one skill that lists every tool, one agent.  It first checks that
``skill compile`` accepts the project (exit 0, N tools, no errors) and that its cache
behaves as the rows below assume, then times whole processes, wall clock, median of K
repetitions:

floor
    a process of the same interpreter that only reads every ``.py`` file of the project
    and parses it with ``ast.parse``: the least any Python compiler of these sources
    could cost, interpreter start-up included.
cold
    ``skill compile --format json`` with no cache (``<project>/.skill/`` and ``dist/``
    deleted first).
warm (no change)
    the same again with nothing changed since the last compile.
one changed
    the same after appending a comment to one tool module, so exactly one file has a new
    content hash.
one changed, text report
    the same with the report for people (``skill compile``, no ``--format``), printed to
    a pipe: its table of every tool, where the rows above print JSON.  No target of its own.

watch, one changed
    ``skill compile --watch`` started once on the project and left running: the time from
    appending a comment to one tool module until the watch has compiled again (it prints
    its "Watching for changes" line when the new dist/ is in place), finding the change
    included (inotify on Linux, a poll elsewhere).  The process is warm, so only the
    changed file's work remains: before the timed edits, the watch waits until the files
    the compiles before it wrote are older than a compile may trust by their status alone
    (``file_identity.RACY_NS``: younger ones are read back), and ``WATCH_WARMUP`` untimed
    edits let it learn how it leaves ``dist/`` and the folder it retires (its first
    compile reused the last result, and wrote neither).

Each of the first three is measured twice: with ``--check`` (the front end alone: index, link,
check; no dist/ written) and as the whole compile that writes dist/.  Each row is
reported as a ratio to the floor, against a target (front end: cold <= 12x, warm <= 2x,
one changed <= 3x; whole compile: cold <= 15x, no change <= 2.5x, one changed <= 3x;
the watch <= 0.5x), and with ``--lua``
also as a ratio of ``lua compile`` (cold <= 0.25x, no change <= 0.03x, one changed
<= 0.1x).  Ratios, not seconds, because machines are noisy and
differ: the floor is measured side by side with the compiles in the same run, the rows of
one repetition interleaved, so whatever slows the machine down slows both.

With ``--lua`` and ``npm`` on PATH it also installs lua-cli (the TypeScript tool the
design compares itself to) into the work folder, generates the equivalent TypeScript
project and times ``lua compile``; our rows are then also printed as ratios of it.  That
comparison is optional: whatever goes wrong with it is reported as skipped, never as a
failure of the benchmark.

Usage::

    .venv/bin/python bench/compile.py [--tools N] [--repeat K] [--json] [--keep]
                                      [--lua [--lua-repeat K]]

Exit codes: 0 measured (a MISS is a result, not a failure), 1 the project did not compile
or a command failed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import queue
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from skillc.compiler.file_identity import RACY_NS

#: The console script installed beside this interpreter, as a user would run it.
SKILL = Path(sys.executable).with_name("skill")
#: The longest any one compile or floor process may take before the benchmark gives up.
COMMAND_TIMEOUT = 600.0
#: The longest ``npm install`` and one ``lua compile`` may take.
NPM_TIMEOUT = 600.0
LUA_COMPILE_TIMEOUT = 600.0
LUA_CLI = "lua-cli@3.37"
ZOD = "zod@3"

#: What each row should cost at most, as a multiple of the floor: the front end alone
#: (``skill compile --check``, no dist/ written) and the whole compile.
TARGETS: dict[str, float] = {
    "check_cold": 12.0,
    "check_warm": 2.0,
    "check_changed": 3.0,
    "cold": 15.0,
    "warm": 2.5,
    "changed": 3.0,
    "watch": 0.5,
}
#: What the whole compile should cost at most, as a multiple of ``lua compile``.
LUA_TARGETS: dict[str, float] = {"cold": 0.25, "warm": 0.03, "changed": 0.1}
LABELS: dict[str, str] = {
    "floor": "floor (read + ast.parse)",
    "check_cold": "skill compile --check, cold",
    "check_warm": "skill compile --check, warm",
    "check_changed": "skill compile --check, one changed",
    "cold": "skill compile, cold",
    "warm": "skill compile, no change",
    "changed": "skill compile, one changed",
    "changed_text": "skill compile, one changed, text report",
    "watch": "skill compile --watch, one changed",
}
#: What ``skill compile --watch`` prints once a compile is over.
WATCH_READY = "Watching for changes"
#: Untimed edits before the timed ones: the watch then knows the dist/ it wrote and the one it retired.
WATCH_WARMUP = 2

#: Read and parse every ``.py`` file under the folder given as the first argument.
FLOOR_SCRIPT = """\
import ast, sys
from pathlib import Path
for path in sorted(Path(sys.argv[1]).rglob("*.py")):
    ast.parse(path.read_bytes(), filename=str(path))
"""


class BenchError(Exception):
    """A step the measurement depends on failed; the message says which and why."""


# --------------------------------------------------------------------------- running


@dataclass(frozen=True)
class Finished:
    """A finished command: its exit code, wall time, and captured streams."""

    code: int
    seconds: float
    stdout: str
    stderr: str


#: Commands run as on a user's machine, where Python caches the bytecode of the modules it
#: imports: an environment that forbids writing it (PYTHONDONTWRITEBYTECODE) would make
#: every run compile skillc's own sources again, which no installed copy does.
MEASURED_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def run_bounded(
    args: Sequence[str | Path],
    *,
    cwd: Path,
    timeout: float,
    env: Mapping[str, str] | None = None,
    capture_stdout: bool = False,
) -> Finished:
    """Run a command to completion and time it; kill its whole process group on timeout.

    The command gets its own session so that the grandchildren of ``npm`` or ``lua``
    (esbuild, workers) are killed with it, and no standard input so that it can never
    wait for a prompt.  Stdout goes to ``/dev/null`` unless it is wanted.
    """
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(arg) for arg in args],
        cwd=cwd,
        env=None if env is None else dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if capture_stdout else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise BenchError(f"{Path(args[0]).name} took longer than {timeout:.0f}s: killed") from None
    seconds = time.perf_counter() - started
    return Finished(process.returncode, seconds, stdout or "", stderr or "")


def require_success(finished: Finished, what: str) -> Finished:
    """Return ``finished`` if it exited 0; otherwise raise with the end of its stderr."""
    if finished.code != 0:
        tail = "\n".join(finished.stderr.strip().splitlines()[-15:])
        raise BenchError(f"{what} exited {finished.code}" + (f":\n{tail}" if tail else ""))
    return finished


# --------------------------------------------------------------------- the skillc project

PY_PYPROJECT = """\
[project]
name = "bench"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["skillc", "pydantic>=2"]

[tool.skill]
entry = "src/agent.py"
"""

PY_BASE = '''\
"""The shop's own tool base class: settings every shop tool shares."""

from skillc import Tool


class ShopTool(Tool):
    """A tool of the shop: it gives up sooner than the default."""

    timeout = 30
'''

PY_TOOL = Template('''\
"""tool_$i: a generated class-form tool of the compile benchmark."""

from __future__ import annotations

from typing import $typing_imports

from pydantic import BaseModel, Field

from skillc import ToolContext
from skills.tools.base import ShopTool


class Tool${i}Input(BaseModel):
    """What tool_$i needs."""

    order_id: str = Field(pattern=r"^A\\d{4}$$", description="The order id, like A1001.")
    quantity: Annotated[int, Field(ge=1, le=100)] = 1
    express: bool = False
    $fourth


class Tool$i(ShopTool):
    name = "tool_$i"
    description = "Generated tool number $i: look an order up and act on it."
    input_schema = Tool${i}Input

    async def execute(self, input: Tool${i}Input, ctx: ToolContext) -> dict[str, object]:
        return {"tool": self.name, "order_id": input.order_id, "quantity": input.quantity}
''')

PY_SKILL = Template('''\
"""The shop skill: every generated tool."""

from skillc import Skill

$imports

shop = Skill(
    name="shop",
    description="Everything the benchmark's shop can do.",
    context="Order ids look like A1001.",
    tools=[$tools],
)
''')

PY_AGENT = '''\
"""The benchmark's agent: one skill with every generated tool."""

from skillc import Agent

from skills.shop import shop

agent = Agent(
    name="bench",
    persona="You help the customers of an online shop with their orders.",
    skills=[shop],
)
'''


def tool_module(i: int) -> str:
    """The source of tool ``i``; even tools take a list of tags, odd ones a priority."""
    if i % 2 == 0:
        fourth = 'tags: list[str] = Field(default_factory=list, description="Labels to add.")'
        typing_imports = "Annotated"
    else:
        fourth = 'priority: Literal["low", "normal", "high"] = "normal"'
        typing_imports = "Annotated, Literal"
    return PY_TOOL.substitute(i=i, fourth=fourth, typing_imports=typing_imports)


def skillc_project(tools: int) -> dict[str, str]:
    """The files of a skillc project with ``tools`` class-form tools, by relative path."""
    files = {
        "pyproject.toml": PY_PYPROJECT,
        "src/agent.py": PY_AGENT,
        "src/skills/__init__.py": "",
        "src/skills/tools/__init__.py": "",
        "src/skills/tools/base.py": PY_BASE,
        "src/skills/shop.py": PY_SKILL.substitute(
            imports="\n".join(f"from skills.tools.tool_{i} import Tool{i}" for i in range(tools)),
            tools=", ".join(f"Tool{i}()" for i in range(tools)),
        ),
    }
    files.update({f"src/skills/tools/tool_{i}.py": tool_module(i) for i in range(tools)})
    return files


def write_tree(root: Path, files: Mapping[str, str]) -> None:
    """Write ``files`` (relative path -> text) under ``root``."""
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


# ------------------------------------------------------------------------- measuring


@dataclass
class Series:
    """The wall times of one measurement, in seconds."""

    samples: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)


class SkillcBench:
    """The generated project and the commands timed on it."""

    def __init__(self, project: Path, tools: int) -> None:
        self.project = project
        self.tools = tools
        self.notes: list[str] = []
        self._edits = 0
        self._edited = project / "src" / "skills" / "tools" / f"tool_{tools // 2}.py"

    def floor(self) -> Finished:
        """Read and parse every ``.py`` file of the project in a fresh interpreter."""
        finished = run_bounded(
            [sys.executable, "-c", FLOOR_SCRIPT, self.project / "src"],
            cwd=self.project,
            timeout=COMMAND_TIMEOUT,
            env=MEASURED_ENV,
        )
        return require_success(finished, "the floor process")

    def compile(self, *extra: str, as_json: bool = True) -> Finished:
        """Run ``skill compile --format json`` on the project as a whole process (not
        ``as_json``: ``skill compile``, its report for people); require exit 0."""
        return require_success(self._run_compile(*extra, capture=False, as_json=as_json), "skill compile")

    def _run_compile(self, *extra: str, capture: bool, as_json: bool = True) -> Finished:
        return run_bounded(
            [SKILL, "compile", *(("--format", "json") if as_json else ()), *extra, self.project],
            cwd=self.project,
            timeout=COMMAND_TIMEOUT,
            env=MEASURED_ENV,
            capture_stdout=capture,
        )

    def forget_cache(self) -> None:
        """Delete the compiler's cache and output, so that the next compile is cold."""
        shutil.rmtree(self.project / ".skill", ignore_errors=True)
        shutil.rmtree(self.project / "dist", ignore_errors=True)

    def change_one_tool(self) -> None:
        """Append a comment with a new number to one tool module: one new content hash."""
        self._edits += 1
        with self._edited.open("a", encoding="utf-8") as stream:
            stream.write(f"# benchmark edit {self._edits}\n")

    def check(self) -> None:
        """Compile once cold, warm and after one change, capturing the JSON report.

        The project must compile with every tool and no error, or nothing after this
        means anything.  The cache statistics only become notes: a compiler whose cache
        misbehaves is still measured, but the table should not hide it.  These runs also
        warm the machine's file cache for the timed rounds.
        """
        self.forget_cache()
        first = self._run_compile(capture=True)
        report = self._report(first) if first.stdout.strip() else {}
        summary = report.get("summary", {})
        if first.code != 0 or summary.get("errors") != 0 or summary.get("tools") != self.tools:
            found = [
                f"  {item['path']}:{item['line']}: {item['severity']}[{item['code']}] {item['message']}"
                for item in report.get("diagnostics", [])[:10]
            ]
            raise BenchError(
                "\n".join(
                    [
                        f"skill compile did not accept the generated project "
                        f"(exit {first.code}, expected {self.tools} tools and no error): {summary}",
                        *found,
                        *first.stderr.strip().splitlines()[-10:],
                    ]
                )
            )
        if summary.get("warnings"):
            self.notes.append(f"the generated project compiles with {summary['warnings']} warnings")
        expected = {"warm": 0, "changed": 1}
        for kind in ("warm", "changed"):
            if kind == "changed":
                self.change_one_tool()
            finished = require_success(self._run_compile(capture=True), "skill compile")
            parsed = self._report(finished).get("stats", {}).get("parsed")
            if parsed != expected[kind]:
                self.notes.append(f"a {kind} compile parsed {parsed} files, expected {expected[kind]}")

    @staticmethod
    def _report(finished: Finished) -> dict[str, Any]:
        try:
            document = json.loads(finished.stdout)
        except json.JSONDecodeError as error:
            raise BenchError(f"skill compile --format json printed no JSON: {error}") from None
        if not isinstance(document, dict):
            raise BenchError("skill compile --format json printed JSON that is not an object")
        return document

    def measure(self, repeat: int) -> dict[str, Series]:
        """Time every row ``repeat`` times, the rows of one repetition side by side."""
        series = {name: Series() for name in LABELS}
        self.floor()  # untimed: the interpreter's own files into the page cache
        for _ in range(repeat):
            series["floor"].samples.append(self.floor().seconds)
            for prefix, extra in (("check_", ("--check",)), ("", ())):
                self.forget_cache()
                series[f"{prefix}cold"].samples.append(self.compile(*extra).seconds)
                series[f"{prefix}warm"].samples.append(self.compile(*extra).seconds)
                self.change_one_tool()
                series[f"{prefix}changed"].samples.append(self.compile(*extra).seconds)
            self.change_one_tool()
            series["changed_text"].samples.append(self.compile(as_json=False).seconds)
        series["watch"].samples.extend(self.watch(repeat))
        return series

    def watch(self, repeat: int) -> list[float]:
        """Start ``skill compile --watch`` once; time ``repeat`` recompiles, each after one change."""
        process = subprocess.Popen(
            [str(SKILL), "compile", "--watch", "--format", "json", str(self.project)],
            cwd=self.project,
            env=MEASURED_ENV,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        ready: queue.Queue[float | None] = queue.Queue()

        def read() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                if WATCH_READY in line:
                    ready.put(time.perf_counter())
            ready.put(None)

        threading.Thread(target=read, daemon=True).start()

        def compiled() -> float:
            try:
                finished = ready.get(timeout=COMMAND_TIMEOUT)
            except queue.Empty:
                raise BenchError(f"skill compile --watch did not compile within {COMMAND_TIMEOUT:.0f}s") from None
            if finished is None:
                raise BenchError(f"skill compile --watch ended (exit {process.wait()})")
            return finished

        try:
            compiled()  # the first compile, of what the rows before left
            time.sleep(RACY_NS / 1e9)  # what they wrote can now be trusted by its status
            for _ in range(WATCH_WARMUP):
                self.change_one_tool()
                compiled()
            samples = []
            for _ in range(repeat):
                time.sleep(0.5)  # a pause between edits, as a person makes them
                self.change_one_tool()
                changed = time.perf_counter()
                samples.append(compiled() - changed)
            return samples
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


# ------------------------------------------------------------------------------ lua-cli

TS_TOOL = Template("""\
import { LuaTool } from 'lua-cli';
import { z } from 'zod';

export default class Tool$i implements LuaTool {
  name = 'tool_$i';
  description = 'Generated tool number $i: look an order up and act on it.';
  inputSchema = z.object({
    order_id: z.string().regex(/^A\\d{4}$$/).describe('The order id, like A1001.'),
    quantity: z.number().int().min(1).max(100).default(1),
    express: z.boolean().default(false),
    $fourth
  });

  async execute(input: z.infer<typeof this.inputSchema>) {
    return { tool: this.name, order_id: input.order_id, quantity: input.quantity };
  }
}
""")

TS_SKILL = Template("""\
import { LuaSkill } from 'lua-cli';
$imports

const shop = new LuaSkill({
  name: 'shop',
  description: "Everything the benchmark's shop can do.",
  context: 'Order ids look like A1001.',
  tools: [$tools],
});

export default shop;
""")

TS_INDEX = """\
import { LuaAgent } from 'lua-cli';
import shop from './skills/shop.skill';

export const agent = new LuaAgent({
  name: 'bench',
  persona: 'You help the customers of an online shop with their orders.',
  skills: [shop],
});
"""

TS_CONFIG = {
    "compilerOptions": {
        "module": "ESNext",
        "moduleResolution": "bundler",
        "target": "ES2020",
        "esModuleInterop": True,
        "strict": True,
        "skipLibCheck": True,
        "outDir": "./dist",
    },
    "exclude": ["dist", "dist-v2", "node_modules"],
}

LUA_YAML = """\
agent:
  agentId: 'bench-agent'
  orgId: 'bench-org'
skills: []
"""


def ts_tool_module(i: int) -> str:
    """The TypeScript twin of ``tool_module(i)``."""
    if i % 2 == 0:
        fourth = "tags: z.array(z.string()).default([]).describe('Labels to add.'),"
    else:
        fourth = "priority: z.enum(['low', 'normal', 'high']).default('normal'),"
    return TS_TOOL.substitute(i=i, fourth=fourth)


def lua_project(tools: int) -> dict[str, str]:
    """The files of the lua-cli project equivalent to ``skillc_project(tools)``."""
    files = {
        "lua.skill.yaml": LUA_YAML,
        "tsconfig.json": json.dumps(TS_CONFIG, indent=2) + "\n",
        "src/index.ts": TS_INDEX,
        "src/skills/shop.skill.ts": TS_SKILL.substitute(
            imports="\n".join(f"import Tool{i} from './tools/Tool{i}';" for i in range(tools)),
            tools=", ".join(f"new Tool{i}()" for i in range(tools)),
        ),
    }
    files.update({f"src/skills/tools/Tool{i}.ts": ts_tool_module(i) for i in range(tools)})
    return files


@dataclass(frozen=True)
class LuaOutcome:
    """What the lua-cli comparison gave: wall times, or the reason it was skipped."""

    series: Series | None = None
    skipped: str | None = None


def bench_lua(work: Path, tools: int, repeat: int, say: Console) -> LuaOutcome:
    """Install lua-cli into ``work``, generate the twin project there and time ``lua compile``.

    The comparison is optional, so nothing that goes wrong here may fail the benchmark:
    every failure, whatever it is, becomes the reason the comparison was skipped.
    """
    npm = shutil.which("npm")
    if npm is None:
        return LuaOutcome(skipped="npm is not on PATH")
    try:
        work.mkdir(parents=True)
        package = {"name": "skillc-bench-lua", "private": True, "type": "module"}
        (work / "package.json").write_text(json.dumps(package, indent=2) + "\n", encoding="utf-8")
        say.print(f"installing {LUA_CLI} and {ZOD} with npm ...")
        install = run_bounded(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", LUA_CLI, ZOD],
            cwd=work,
            timeout=NPM_TIMEOUT,
        )
        require_success(install, "npm install")
        lua = work / "node_modules" / ".bin" / "lua"
        if not lua.exists():
            return LuaOutcome(skipped=f"npm installed {LUA_CLI} without a `lua` command")
        write_tree(work, lua_project(tools))
        env = {**os.environ, "LUA_TELEMETRY": "false", "NO_COLOR": "1"}

        def lua_compile() -> Finished:
            finished = run_bounded([lua, "compile"], cwd=work, timeout=LUA_COMPILE_TIMEOUT, env=env)
            return require_success(finished, "lua compile")

        say.print(f"checking lua compile on {tools} TypeScript tools ...")
        lua_compile()
        compiled = _lua_tool_count(work)
        if compiled != tools:
            return LuaOutcome(skipped=f"lua compile built {compiled} tools, expected {tools}")
        series = Series()
        for round_ in range(repeat):
            say.print(f"lua compile, repetition {round_ + 1}/{repeat} ...")
            series.samples.append(lua_compile().seconds)
        return LuaOutcome(series=series)
    except Exception as error:  # optional part: any failure means "skipped", never a crash
        reason = str(error).strip().splitlines()
        return LuaOutcome(skipped=" ".join(reason[:3]) if reason else type(error).__name__)


def _lua_tool_count(project: Path) -> int | None:
    """How many tools the manifest of the last ``lua compile`` lists, if it can be read."""
    for candidate in (project / "dist-v2" / "manifest.json", project / ".lua" / "manifest.json"):
        if candidate.exists():
            primitives = json.loads(candidate.read_text(encoding="utf-8")).get("primitives", [])
            return sum(1 for item in primitives if item.get("kind") == "tool")
    return None


# ---------------------------------------------------------------------------- reporting


def figures(series: Mapping[str, Series], lua: LuaOutcome | None, args: argparse.Namespace) -> dict[str, object]:
    """Everything measured, as one JSON-ready document."""
    floor = series["floor"].median
    rows = []
    for name, measured in series.items():
        ratio = measured.median / floor
        target = TARGETS.get(name)
        rows.append(
            {
                "name": name,
                "label": LABELS[name],
                "median_s": round(measured.median, 4),
                "samples_s": [round(sample, 4) for sample in measured.samples],
                "ratio_to_floor": round(ratio, 2),
                "target_ratio": target,
                "pass": None if target is None else ratio <= target,
            }
        )
    document: dict[str, object] = {
        "tools": args.tools,
        "repeat": args.repeat,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "rows": rows,
    }
    if lua is not None:
        if lua.series is None:
            document["lua"] = {"status": "skipped", "reason": lua.skipped}
        else:
            median = lua.series.median
            document["lua"] = {
                "status": "measured",
                "package": LUA_CLI,
                "median_s": round(median, 4),
                "samples_s": [round(sample, 4) for sample in lua.series.samples],
                "ratio_to_lua": {
                    name: {
                        "ratio": round(series[name].median / median, 3),
                        "target": target,
                        "pass": series[name].median / median <= target,
                    }
                    for name, target in LUA_TARGETS.items()
                },
            }
    return document


def print_table(console: Console, document: Mapping[str, object]) -> None:
    """The figures for people: one row per measurement, then the lua-cli comparison."""
    table = Table(
        title=f"skill compile, {document['tools']} tools, median of {document['repeat']} "
        f"(Python {document['python']}, {document['cpus']} CPUs)",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("measurement")
    table.add_column("median s", justify="right")
    table.add_column("x floor", justify="right")
    table.add_column("target", justify="right")
    table.add_column("result")
    rows = document["rows"]
    assert isinstance(rows, list)
    for row in rows:
        target = row["target_ratio"]
        table.add_row(
            row["label"],
            f"{row['median_s']:.3f}",
            f"{row['ratio_to_floor']:.2f}",
            "" if target is None else f"<= {target:g}x",
            "" if row["pass"] is None else ("PASS" if row["pass"] else "MISS"),
        )
    console.print(table)
    lua = document.get("lua")
    if isinstance(lua, dict):
        if lua["status"] == "skipped":
            console.print(f"lua-cli: skipped ({lua['reason']})")
        else:
            ratios = ", ".join(
                f"{LABELS[name].removeprefix('skill compile, ')} {row['ratio']:.3f}x "
                f"(<= {row['target']:g}x {'PASS' if row['pass'] else 'MISS'})"
                for name, row in lua["ratio_to_lua"].items()
            )
            console.print(
                f"lua-cli: `lua compile` ({lua['package']}) median {lua['median_s']:.3f}s; "
                f"skill compile as a ratio of it: {ratios}"
            )
    notes = document.get("notes")
    for note in notes if isinstance(notes, list) else []:
        console.print(f"note: {note}")
    console.print(f"whole run: {document['elapsed_s']:.1f}s")


# ---------------------------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Time `skill compile` against a parse-only floor, in the same run.")
    parser.add_argument("--tools", type=int, default=500, help="tools to generate (default 500)")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions per row (default 5)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--lua", action="store_true", help="also time `lua compile` (needs npm and the network)")
    parser.add_argument("--lua-repeat", type=int, default=3, help="repetitions of `lua compile` (default 3)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    for name in ("tools", "repeat", "lua_repeat"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Generate, check, measure, clean up, report; return the exit code."""
    args = parse_args(argv)
    started = time.perf_counter()
    # Progress goes to stderr so that --json leaves stdout one JSON document.
    say = Console(stderr=True, highlight=False, markup=False, soft_wrap=True)
    if not SKILL.exists():
        say.print(f"error: no `skill` command beside {sys.executable}; install skillc first")
        return 1
    work = Path(tempfile.mkdtemp(prefix="skillc-bench-"))
    try:
        project = work / "project"
        say.print(f"generating a project of {args.tools} tools ...")
        write_tree(project, skillc_project(args.tools))
        bench = SkillcBench(project, args.tools)
        say.print("checking that skill compile accepts it ...")
        bench.check()
        say.print(f"timing {len(LABELS)} rows x {args.repeat} repetitions ...")
        series = bench.measure(args.repeat)
        lua = bench_lua(work / "lua", args.tools, args.lua_repeat, say) if args.lua else None
    except BenchError as error:
        say.print(f"error: {error}")
        return 1
    finally:
        if args.keep:
            say.print(f"kept {work}")
        else:
            say.print("removing the work folder ...")
            shutil.rmtree(work, ignore_errors=True)
    document = figures(series, lua, args)
    if bench.notes:
        document["notes"] = bench.notes
    # The whole run includes installing lua-cli and removing the work folder, if asked.
    document["elapsed_s"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        print_table(Console(highlight=False, markup=False, soft_wrap=True), document)
    return 0


if __name__ == "__main__":
    sys.exit(main())
