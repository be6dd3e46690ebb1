"""``skill chat -m`` against a real model: opt in with ``SKILLC_REAL_MODEL_BASE_URL``.

Point it at any OpenAI-compatible server that serves a small tool-calling model (the
tests were written against Qwen2.5-Coder 1.5B behind llama.cpp's server), e.g.
``SKILLC_REAL_MODEL_BASE_URL=http://127.0.0.1:8089/v1 SKILLC_REAL_MODEL_NAME=qwen2.5-coder-1.5b``.
A small model's wording varies, so these tests check shapes: that the tool ran with the
obvious arguments, and that a refused call is not retried until the step bound.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import RunSkill

BASE_URL = os.environ.get("SKILLC_REAL_MODEL_BASE_URL", "")
MODEL = os.environ.get("SKILLC_REAL_MODEL_NAME", "qwen2.5-coder-1.5b")

pytestmark = pytest.mark.skipif(not BASE_URL, reason="set SKILLC_REAL_MODEL_BASE_URL to run against a real model")


@pytest.fixture
def demo(tmp_path: Path, skill: RunSkill) -> Path:
    assert skill("init", "demo").code == 0
    return tmp_path / "demo"


def _chat(skill: RunSkill, project: Path, message: str) -> tuple[int, str]:
    done = skill(
        "chat",
        str(project),
        "--base-url",
        BASE_URL,
        "--model",
        MODEL,
        "-m",
        message,
        env={"OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", "sk-local")},
    )
    return done.code, done.stdout + done.stderr


def test_an_order_lookup_is_answered_with_the_tool_data(demo: Path, skill: RunSkill) -> None:
    code, output = _chat(skill, demo, "Look up order A1001 with the lookup_order tool.")
    assert code == 0, output
    assert "-> lookup_order" in output and '"A1001"' in output
    assert "<- lookup_order ok" in output and "shipped" in output


def test_a_denied_cancellation_ends_within_three_model_steps(demo: Path, skill: RunSkill) -> None:
    # The reason is given, so that the model calls the tool rather than asking for one first.
    code, output = _chat(skill, demo, "Please cancel order A1002; the reason: I ordered it twice.")
    assert code in (0, 1), output
    calls = output.count("-> cancel_order")
    assert 1 <= calls <= 2, output  # at most 3 model steps: two refused calls and the answer
    assert "approval_denied" in output
