"""The interactive session under a pseudo-terminal: tool calls shown, approval asked, ``/exit``."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pexpect  # type: ignore[import-untyped]  # types-pexpect is not among the test extras
import pytest
from chat_support import MODEL, ScriptedServer, call, say
from helpers import SKILL
from skillc.templates import scaffold_project

#: No expectation waits longer than this.
EXPECT_TIMEOUT = 30
PROMPT = "\r\n> "
#: Styles (bold, dim) a terminal gets even with NO_COLOR.
_STYLE = r"(?:\x1b\[[0-9;]*m)*"


def shown(text: str) -> str:
    """A pattern for ``text`` as the terminal shows it: styles may start or end at any character."""
    return _STYLE.join(re.escape(character) for character in text)


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    scaffold_project(Path("demo"), cwd=tmp_path)
    return tmp_path / "demo"


def spawn(cwd: Path, *args: str, **env: str) -> pexpect.spawn:
    environment = {
        **os.environ,
        "NO_COLOR": "1",
        "TERM": "xterm",
        "OPENAI_API_KEY": "",
        "OPENAI_BASE_URL": "",
        "SKILL_MODEL": "",
        **env,
    }
    return pexpect.spawn(
        str(SKILL),
        ["chat", *args],
        cwd=str(cwd),
        env=environment,
        encoding="utf-8",
        timeout=EXPECT_TIMEOUT,
        dimensions=(40, 160),
    )


def test_a_session_shows_tool_calls_asks_for_approval_and_ends_on_exit(demo: Path) -> None:
    child = spawn(demo, "--thread", "pty")
    try:
        child.expect(shown("answered by the built-in offline model"))
        child.expect(shown("No model endpoint is configured"))
        child.expect(PROMPT)
        child.sendline('/call lookup_order {"order_id": "A1001"}')
        child.expect(shown('-> lookup_order {"order_id": "A1001"}'))
        child.expect(shown("<- lookup_order ok ("))
        child.expect(shown('"status":"shipped"'))
        child.expect(PROMPT)
        child.sendline('/call cancel_order {"order_id": "A1002", "reason": "too slow"}')
        child.expect(shown('Run cancel_order {"order_id": "A1002", "reason": "too slow"}? [y/N] '))
        child.sendline("y")
        child.expect(shown("approved"))
        child.expect(shown('"status":"cancelled"'))
        child.expect(PROMPT)
        child.sendline('/call cancel_order {"order_id": "A1001"}')
        child.expect(shown("[y/N] "))
        child.sendline("n")
        child.expect(shown("declined"))
        child.expect(shown("<- cancel_order failed, approval_denied"))
        child.expect(PROMPT)
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    history = (demo / ".skill/chat_history").read_text()
    assert "/call lookup_order" in history and "\ny\n" not in f"\n{history}"  # answers stay out of it
    assert (demo / ".skill/threads/pty.json").is_file()


def test_a_session_against_an_endpoint_ends_at_end_of_input(demo: Path) -> None:
    script = [call(("lookup_order", '{"order_id": "A1002"}'), text="Looking."), say("Order **A1002** is processing.")]
    with ScriptedServer(*script) as server:
        child = spawn(demo, "--model", MODEL, "--base-url", server.url, OPENAI_API_KEY="test")
        try:
            child.expect(shown(f"answered by {MODEL} at {server.url}"))
            child.expect(PROMPT)
            child.sendline("Where is A1002?")
            child.expect(shown("Looking."))
            child.expect(shown('-> lookup_order {"order_id": "A1002"}'))
            child.expect(shown('"status":"processing"'))
            child.expect(shown("Order A1002 is processing."))  # rendered: no asterisks
            child.expect(PROMPT)
            child.sendeof()
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
    assert child.exitstatus == 0
    assert [message["role"] for message in server.requests[1]["messages"]] == ["system", "user", "assistant", "tool"]
