"""Choosing the model, the settings of ``[tool.skill.chat]``, and thread files, as plain functions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from skillc.contracts.errors import ConfigError, UsageError, UserError
from skillc.runtime.agent import DEFAULT_MAX_STEPS, chat_config
from skillc.runtime.models import DEFAULT_BASE_URL, ModelError, ModelSettings, Reply, ToolCall
from skillc.runtime.offline import OfflineModel
from skillc.runtime.openai_chat import OpenAIChatModel, chat_tool
from skillc.runtime.providers import open_model
from skillc.runtime.threads import Thread, load_thread, save_thread, thread_path


def test_nothing_configured_is_the_offline_model() -> None:
    config = chat_config({}, environ={"OPENAI_API_KEY": "sk-x"})
    assert config.model.offline and config.max_steps == DEFAULT_MAX_STEPS and config.warnings == ()
    assert isinstance(open_model(config.model, {}), OfflineModel)


def test_flags_win_over_the_environment_which_wins_over_the_table() -> None:
    table = {"model": "from-table", "base_url": "http://table/v1", "max_steps": 5}
    environ = {"SKILL_MODEL": "from-env", "OPENAI_BASE_URL": "http://env/v1"}
    assert chat_config(table, environ={}).model == ModelSettings("from-table", "http://table/v1")
    assert chat_config(table, environ=environ).model == ModelSettings("from-env", "http://env/v1")
    flagged = chat_config(table, model="flag", base_url="http://flag/v1", max_steps=3, environ=environ)
    assert (flagged.model.model, flagged.model.base_url, flagged.max_steps) == ("flag", "http://flag/v1", 3)
    assert chat_config(table, environ={}).max_steps == 5


def test_openai_base_url_alone_does_not_leave_the_offline_model() -> None:
    assert chat_config({}, environ={"OPENAI_BASE_URL": "http://proxy/v1"}).model.offline
    named = chat_config({}, environ={"OPENAI_BASE_URL": "http://proxy/v1", "SKILL_MODEL": "m"}).model
    assert (named.model, named.base_url) == ("m", "http://proxy/v1")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"model": 3}, "[tool.skill.chat] model must be a non-empty string"),
        ({"base_url": " "}, "[tool.skill.chat] base_url must be a non-empty string"),
        ({"stream": "yes"}, "[tool.skill.chat] stream must be true or false"),
        ({"timeout": 0}, "[tool.skill.chat] timeout must be a positive number of seconds"),
        ({"max_retries": -1}, "[tool.skill.chat] max_retries must be a whole number of 0 or more"),
        ({"max_steps": True}, "[tool.skill.chat] max_steps must be a whole number of 1 or more"),
    ],
)
def test_malformed_settings_are_config_errors(table: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        chat_config(table, environ={})
    assert caught.value.message == message


def test_unknown_keys_are_warnings() -> None:
    config = chat_config({"modle": "x", "stream": False}, environ={})
    assert config.warnings == (
        "unknown key 'modle' in [tool.skill.chat] (known keys: base_url, condition_budget, deadline, max_answer_bytes, "
        "max_retries, max_steps, max_tool_calls_per_step, max_tool_calls_per_turn, model, stream, strict, timeout)",
    )
    assert config.model.stream is False


def test_opening_an_endpoint_needs_a_name_and_for_openai_a_key() -> None:
    with pytest.raises(UsageError, match="no model name"):
        open_model(ModelSettings(base_url="http://127.0.0.1:1/v1"), {})
    with pytest.raises(ModelError) as caught:
        open_model(ModelSettings(model="gpt"), {})
    assert caught.value.message == f"OPENAI_API_KEY is not set, and {DEFAULT_BASE_URL} needs an API key"
    local = open_model(ModelSettings(model="llama", base_url="http://127.0.0.1:1/v1"), {})
    assert isinstance(local, OpenAIChatModel) and local.label == "llama at http://127.0.0.1:1/v1"


def test_definitions_and_replies_take_the_chat_completions_shape() -> None:
    definition = {
        "type": "function",
        "name": "t",
        "description": "d",
        "parameters": {"type": "object"},
        "strict": False,
    }
    assert chat_tool(definition) == {
        "type": "function",
        "function": {"name": "t", "description": "d", "parameters": {"type": "object"}, "strict": False},
    }
    assert Reply("hi").to_message() == {"role": "assistant", "content": "hi"}
    assert Reply(tool_calls=(ToolCall("c1", "t", "{}"),)).to_message() == {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{}"}}],
    }


def test_a_thread_is_saved_whole_and_read_back(tmp_path: Path) -> None:
    assert load_thread(tmp_path, "t-1", "shop") is None
    thread = Thread("t-1", "shop", [{"role": "user", "content": "hi"}])
    path = save_thread(tmp_path, thread)
    assert path == thread_path(tmp_path, "t-1") == tmp_path / ".skill/threads/t-1.json"
    document = json.loads(path.read_text())
    assert set(document) == {"format", "id", "agent", "created", "updated", "messages"}
    loaded = load_thread(tmp_path, "t-1", "shop")
    assert loaded is not None and loaded.messages == thread.messages and loaded.created == thread.created
    assert [item.name for item in path.parent.iterdir()] == ["t-1.json"]  # no temporary file left


@pytest.mark.parametrize(
    "text", ['{"format": 2, "messages": []}', '{"format": 1, "messages": [{"role": "robot"}]}', "[]"]
)
def test_a_file_that_is_not_a_thread_is_an_error(tmp_path: Path, text: str) -> None:
    path = thread_path(tmp_path, "x")
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.raises(UserError, match="is not a thread file"):
        load_thread(tmp_path, "x", "shop")
