"""The SDK features of ``skill chat`` that need a person, in a session under a pseudo-terminal.

``--voice`` (lua-cli's ``ToolFlag``): a tool flagged ``ignore_on_enter`` is not offered on the
conversation's first turn, and a call of a ``disallow_interruption`` tool is shown as one that
cannot be interrupted.  Approval with edited arguments (TanStack AI's approval flow): the
arguments edited on the line or in ``$EDITOR`` run instead, validated again, and the
result, in the thread too, says what was approved.  The fixture project is ``tests/chat_projects/features``; the offline
model's ``/tools`` answer lists exactly the tools the model is sent.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pexpect  # type: ignore[import-untyped]  # types-pexpect is not among the test extras
import pytest
from chat_support import compiled_project
from test_chat_session import PROMPT, shown, spawn


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled_project("features", tmp_path_factory.mktemp("features-session"))


def test_voice_hides_ignore_on_enter_tools_on_the_first_turn_and_marks_uninterruptible_calls(shop: Path) -> None:
    child = spawn(shop, "--voice")
    try:
        child.expect(shown("Voice session (simulated)"))
        child.expect(PROMPT)
        child.sendline("/tools")
        child.expect(shown("tools are offered this turn"))
        child.expect(PROMPT)
        assert "transfer_call" in child.before and "greet_caller" not in child.before
        child.sendline("/tools")
        child.expect(shown("greet_caller"))
        child.expect(PROMPT)
        child.sendline('/call transfer_call {"department": "sales"}')
        child.expect(shown('-> transfer_call {"department": "sales"} (voice: cannot be interrupted)'))
        child.expect(shown("transferred to sales"))
        child.expect(PROMPT)
        child.sendline("/call greet_caller")
        child.expect(shown("-> greet_caller {}\r\n"))
        child.expect(shown("Welcome back!"))
        child.expect(PROMPT)
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def test_without_voice_every_tool_is_offered_from_the_start(shop: Path) -> None:
    child = spawn(shop)
    try:
        child.expect(PROMPT)
        child.sendline("/tools")
        child.expect(shown("greet_caller"))
        child.expect(PROMPT)
        child.sendline('/call transfer_call {"department": "sales"}')
        child.expect(shown('-> transfer_call {"department": "sales"}'))
        child.expect(shown("transferred to sales"))
        child.expect(PROMPT)
        assert "cannot be interrupted" not in child.before
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def _approve_with_edits(child: pexpect.spawn, arguments: str) -> None:
    child.sendline(f"/call cancel_order {arguments}")
    child.expect(shown("y runs it, e edits its arguments first, anything else declines"))
    child.expect(shown(f"Run cancel_order {arguments}? [y/N] "))
    child.sendline("e")


def test_approval_with_arguments_edited_on_the_line_runs_them_and_the_thread_says_so(shop: Path) -> None:
    child = spawn(shop, "--thread", "edits")
    try:
        child.expect(PROMPT)
        _approve_with_edits(child, '{"order_id": "A1002", "reason": "too slow"}')
        child.expect(shown('Arguments (JSON): {"order_id": "A1002", "reason": "too slow"}'))  # prefilled
        child.send("\x15")  # readline: erase the line
        child.sendline('{"order_id": "A1003", "reason": "edited"}')
        child.expect(shown('approved with edited arguments: {"order_id": "A1003", "reason": "edited"}'))
        child.expect(shown("<- cancel_order ok ("))
        child.expect(
            shown('The user approved this call with edited arguments: {"order_id": "A1003", "reason": "edited"}')
        )
        child.expect(shown('"order_id":"A1003","status":"cancelled","reason":"edited"'))
        child.expect(PROMPT)
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    thread = json.loads((shop / ".skill/threads/edits.json").read_text())
    (result,) = [message["content"] for message in thread["messages"] if message["role"] == "tool"]
    assert result == (
        'The user approved this call with edited arguments: {"order_id": "A1003", "reason": "edited"}\n'
        '{"order_id":"A1003","status":"cancelled","reason":"edited"}'
    )


def test_arguments_edited_in_the_editor_are_validated_again_before_the_tool_runs(shop: Path, tmp_path: Path) -> None:
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import pathlib, sys\n"
        "path = pathlib.Path(sys.argv[1])\n"
        "path.write_text(path.read_text().replace('A1002', 'A1009'))\n"
    )
    bad = tmp_path / "bad.py"
    bad.write_text('import pathlib, sys\npathlib.Path(sys.argv[1]).write_text(\'{"order_id": "B1"}\')\n')
    child = spawn(shop, EDITOR=f"{sys.executable} {editor}")
    try:
        child.expect(PROMPT)
        _approve_with_edits(child, '{"order_id": "A1002"}')
        child.expect(shown('approved with edited arguments: {"order_id": "A1009"}'))
        child.expect(shown('"order_id":"A1009","status":"cancelled"'))
        child.expect(PROMPT)
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    child = spawn(shop, EDITOR=f"{sys.executable} {bad}")
    try:
        child.expect(PROMPT)
        _approve_with_edits(child, '{"order_id": "A1002"}')
        child.expect(shown('approved with edited arguments: {"order_id": "B1"}'))
        child.expect(shown("<- cancel_order failed, validation"))
        child.expect(shown("The user approved this call with edited arguments"))
        child.expect(PROMPT)
        assert "cancelled" not in child.before
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
