"""SIGTERM and SIGHUP stop a command as a Ctrl-C does, then end its process by the signal.

A supervisor or ``kill`` sends SIGTERM; a terminal that closes sends SIGHUP to what runs in it.
Left to their default action, either ended ``skill test`` or ``skill chat`` on the spot: the
line a tool had written to a file it keeps open, not flushed yet, was lost, and so was the
turn of a conversation in flight.  Now the command stops in order (the project is closed,
which flushes the tools' files; the conversation is saved), says nothing (a closed terminal
reads nothing), and the process ends by the signal, as the parent expects.  A Ctrl-C still
says ``interrupted`` and exits 130; a signal the process was started ignoring (``nohup``)
stays ignored.  With SIGINT ignored (a background job), asyncio installs no handler of its own,
and the signal cancels the command's task all the same (``cli.event_loop``): it is never a
tool's result.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import SKILL, write_project
from stop_support import STALLING_TOOLS, START_TIMEOUT, log_env, wait_for

TOOLS = (
    STALLING_TOOLS
    + '''

@tool(timeout=120)
def signals_itself(seconds: float = 60.0) -> str:
    """Write a line, send SIGTERM to the process from this worker thread, then sleep."""
    LOG.write("signals_itself began\\n")
    signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
    time.sleep(seconds)
    return "done"


@tool(timeout=120)
async def blocks_the_loop(seconds: float = 3.0) -> str:
    """Write a line, block the event loop's thread (as careless async code does), then wait on the loop."""
    LOG.write("blocks_the_loop began\\n")
    started("blocks_the_loop")
    try:
        time.sleep(seconds)
        LOG.write("blocking ended\\n")
        await asyncio.sleep(60)
    finally:
        LOG.write("finally ran\\n")
    return "done"


@tool(needs_approval=True)
def guarded() -> str:
    """Needs a person's approval."""
    return "ran"


@tool(client=True)
def pick_color(palette: str) -> str:
    """Pick a color (the client answers)."""


agent = Agent(name="a", skills=[Skill(name="s", tools=[stall, stall_async, signals_itself, blocks_the_loop, guarded, pick_color])])
'''
)

#: The longest a command may take to end after the signal (it ends in well under a second).
STOP_TIMEOUT = 15.0
#: What each signal ends a command with: the exit code, and the last line of its stderr.
ENDINGS = {"SIGINT": (130, "interrupted"), "SIGTERM": (-signal.SIGTERM, None), "SIGHUP": (-signal.SIGHUP, None)}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_project(tmp_path_factory.mktemp("terminate") / "p", {"agent.py": TOOLS})
    compiled = subprocess.run([str(SKILL), "compile", str(root)], capture_output=True, text=True, timeout=120)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    return root


@pytest.fixture
def tool_env(tmp_path: Path) -> dict[str, str]:
    return log_env(tmp_path)


@contextlib.contextmanager
def command(
    args: list[str], env: dict[str, str], cwd: Path, preexec_fn: Callable[[], None] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """``skill ARGS`` with its stdin a pipe kept open, killed at the end if it still runs."""
    process = subprocess.Popen(
        [str(SKILL), *args],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **env},
        preexec_fn=preexec_fn,  # noqa: PLW1509 - only a signal disposition, set before exec
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=STOP_TIMEOUT)


def read_until(process: subprocess.Popen[bytes], text: bytes) -> bytes:
    """What the command wrote to stdout, read until ``text`` appears (bounded)."""
    assert process.stdout is not None
    seen = b""
    deadline = time.monotonic() + START_TIMEOUT
    while text not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"{text!r} did not appear within {START_TIMEOUT:g} s: {seen!r}"
        if select.select([process.stdout], [], [], left)[0]:
            chunk = os.read(process.stdout.fileno(), 65536)
            assert chunk, f"stdout ended before {text!r}: {seen!r}"
            seen += chunk
    return seen


def stop(process: subprocess.Popen[bytes], signame: str) -> tuple[int, str]:
    """Send the signal; the exit code (checked against ``ENDINGS``) and stderr."""
    process.send_signal(getattr(signal, signame))
    process.wait(timeout=STOP_TIMEOUT)  # stdin still open: the command ends by the signal alone
    _, stderr_bytes = process.communicate(timeout=STOP_TIMEOUT)
    stderr = stderr_bytes.decode()
    code, last_line = ENDINGS[signame]
    assert process.returncode == code, stderr
    assert "Traceback" not in stderr
    assert "internal error" not in stderr
    if last_line is None:
        assert "interrupted" not in stderr
    else:
        assert stderr.splitlines()[-1] == last_line
    return process.returncode, stderr


def log_lines(env: dict[str, str]) -> list[str]:
    path = Path(env["TOOL_LOG"])
    return path.read_text().splitlines() if path.exists() else []


def thread_messages(project: Path, thread: str) -> list[dict[str, object]]:
    messages = json.loads((project / ".skill" / "threads" / f"{thread}.json").read_text())["messages"]
    assert isinstance(messages, list)
    return messages


@pytest.mark.parametrize("signame", ENDINGS)
@pytest.mark.parametrize("tool", ["stall", "stall_async"])
def test_a_signal_stops_skill_test_in_order_and_keeps_what_the_tool_wrote(
    project: Path, tool_env: dict[str, str], tool: str, signame: str
) -> None:
    with command(["test", "--name", tool, "--input", '{"seconds": 60}', str(project)], tool_env, project) as process:
        wait_for(Path(tool_env["TOOL_STARTED"], tool))
        stop(process, signame)
    # Before: SIGTERM and SIGHUP ended the process on the spot, and the unflushed line was lost.
    assert log_lines(tool_env) == [f"{tool} began"]


def test_a_signal_that_reaches_another_thread_stops_the_command_at_once(
    project: Path, tool_env: dict[str, str]
) -> None:
    # The signal's handler runs in the main thread, which is blocked in the event loop's wait
    # for the tool (up to its timeout, 120 s): without being woken, it would notice the
    # signal only then, as with a signal that lands just before a prompt's read.
    args = ["test", "--name", "signals_itself", "--input", '{"seconds": 60}', str(project)]
    with command(args, tool_env, project) as process:
        process.wait(timeout=STOP_TIMEOUT)
        _, stderr = process.communicate(timeout=STOP_TIMEOUT)
    assert process.returncode == -signal.SIGTERM, stderr.decode()
    assert log_lines(tool_env) == ["signals_itself began"]


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_signal_during_a_turn_of_skill_chat_keeps_the_turn_and_the_tools_lines(
    project: Path, tool_env: dict[str, str], signame: str
) -> None:
    thread = f"t-{signame.lower()}"
    with command(["chat", "--thread", thread, str(project)], tool_env, project) as process:
        assert process.stdin is not None
        process.stdin.write(b'/call stall_async {"seconds": 60}\n')
        process.stdin.flush()
        wait_for(Path(tool_env["TOOL_STARTED"], "stall_async"))
        stop(process, signame)
    assert log_lines(tool_env) == ["stall_async began"]
    # Before: the thread was saved after each turn only, and the turn in flight was lost with it.
    messages = thread_messages(project, thread)
    assert messages[0] == {"role": "user", "content": '/call stall_async {"seconds": 60}'}


def test_a_signal_ends_skill_chat_one_message_by_the_signal(project: Path, tool_env: dict[str, str]) -> None:
    args = ["chat", "--thread", "one", "-m", '/call stall {"seconds": 60}', str(project)]
    with command(args, tool_env, project) as process:
        wait_for(Path(tool_env["TOOL_STARTED"], "stall"))
        stop(process, "SIGTERM")
    assert log_lines(tool_env) == ["stall began"]
    assert thread_messages(project, "one")[0]["content"] == '/call stall {"seconds": 60}'


@contextlib.contextmanager
def chat_at_prompt(
    project: Path, env: dict[str, str], line: bytes, prompt: bytes, preexec_fn: Callable[[], None] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """A ``skill chat`` session that was sent ``line`` and shows ``prompt`` now, its stdin still open."""
    with command(["chat", str(project)], env, project, preexec_fn=preexec_fn) as process:
        assert process.stdin is not None
        process.stdin.write(line)
        process.stdin.flush()
        read_until(process, prompt)
        yield process


def ignore_sigint() -> None:
    """What a non-interactive shell does to a background job (``skill chat ... &`` in a script)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("sigint", ["handled", "ignored"])
@pytest.mark.parametrize(
    ("line", "prompt"),
    [(b"/call guarded {}\n", b"[y/N]"), (b'/call pick_color {"palette": "warm"}\n', b"Result of pick_color")],
    ids=["approval", "client-result"],
)
def test_a_signal_at_a_prompt_of_a_turn_ends_skill_chat(
    project: Path, tool_env: dict[str, str], line: bytes, prompt: bytes, sigint: str
) -> None:
    started_with = ignore_sigint if sigint == "ignored" else None
    with chat_at_prompt(project, tool_env, line, prompt, started_with) as process:
        # Without the care taken, the signal is taken for an empty answer: the call is declined
        # (no result given), the turn goes on, and the chat waits for the next line on the
        # open stdin, for ever.
        stop(process, "SIGTERM")


def test_a_signal_the_process_was_started_ignoring_stays_ignored(project: Path, tool_env: dict[str, str]) -> None:
    def ignore_sighup() -> None:  # what nohup does
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    args = ["test", "--name", "stall", "--input", '{"seconds": 1}', str(project)]
    with command(args, tool_env, project, preexec_fn=ignore_sighup) as process:
        wait_for(Path(tool_env["TOOL_STARTED"], "stall"))
        process.send_signal(signal.SIGHUP)
        stdout, stderr = process.communicate(timeout=START_TIMEOUT)
    assert process.returncode == 0, stderr.decode()
    assert stdout.decode().splitlines()[-1] == "done"  # the call ran to its end


def test_with_sigint_ignored_a_signal_cancels_an_async_tool_and_is_not_its_result(
    project: Path, tool_env: dict[str, str]
) -> None:
    # The signal lands while the tool blocks the loop's thread.  asyncio installs no handler when
    # SIGINT is ignored; before, the signal raised KeyboardInterrupt right there, in the tool's
    # code, and the call printed "The tool failed: KeyboardInterrupt" before the process ended.
    args = ["test", "--name", "blocks_the_loop", "--input", '{"seconds": 3}', str(project)]
    with command(args, tool_env, project, preexec_fn=ignore_sigint) as process:
        wait_for(Path(tool_env["TOOL_STARTED"], "blocks_the_loop"))
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=STOP_TIMEOUT)
    assert (process.returncode, stdout, stderr) == (-signal.SIGTERM, b"", b"")
    # Cancelled at its next await, as on a Ctrl-C: the blocking stretch ended, then its finally ran.
    assert log_lines(tool_env) == ["blocks_the_loop began", "blocking ended", "finally ran"]


def test_with_sigint_ignored_a_signal_ends_a_turn_of_skill_chat_without_a_made_up_tool_result(
    project: Path, tool_env: dict[str, str]
) -> None:
    thread = "background"
    args = ["chat", "--thread", thread, "-m", '/call blocks_the_loop {"seconds": 3}', str(project)]
    with command(args, tool_env, project, preexec_fn=ignore_sigint) as process:
        wait_for(Path(tool_env["TOOL_STARTED"], "blocks_the_loop"))
        stop(process, "SIGTERM")
    assert log_lines(tool_env) == ["blocks_the_loop began", "blocking ended", "finally ran"]
    # Before: the call's result was "The tool failed: KeyboardInterrupt", and the turn went on with it.
    saved = json.dumps(thread_messages(project, thread))
    assert "KeyboardInterrupt" not in saved
    assert thread_messages(project, thread)[0]["content"] == '/call blocks_the_loop {"seconds": 3}'


def test_with_sigint_ignored_a_ctrl_c_at_a_prompt_is_ignored_too(project: Path, tool_env: dict[str, str]) -> None:
    # Before: the prompt put Python's handler in place whatever was there, and the ignored
    # Ctrl-C became "no answer": the call was declined.
    with chat_at_prompt(project, tool_env, b"/call guarded {}\n", b"[y/N]", ignore_sigint) as process:
        process.send_signal(signal.SIGINT)
        time.sleep(0.2)  # what the handler would have done, it has done by now
        stdout, stderr = process.communicate(b"y\n", timeout=STOP_TIMEOUT)  # then the end of input
    assert process.returncode == 0, stderr.decode()
    lines = stdout.decode().splitlines()
    assert "   approved" in lines
    assert any(line.startswith("<- guarded ok (") and line.endswith("): ran") for line in lines), lines
