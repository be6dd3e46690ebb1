"""The tool features of the SDKs skillc learns from, end to end through ``skill chat -m`` subprocesses.

The scripted Chat Completions server on 127.0.0.1 records every request, so each test checks
what the model receives: the ``strict`` value of every tool (deepseek-kit's strict
consistency), results capped by ``max_output_chars`` and compacted by a model
(deepseek-kit's ``compact``), and the built-in ``find_tools`` tool with the lazy tools it
reveals (TanStack AI's ``lazy``).  The fixture project is ``tests/chat_projects/features``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chat_support import MODEL, ScriptedServer, call, compiled_project, copy_project, fail, say
from helpers import Completed, RunSkill, write_project
from runtime_support import run
from skillc.project import open_project
from skillc.runtime.compaction import COMPACT_PROMPT
from skillc.serve.server import build_server

CLEAN = {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": "", "SKILL_MODEL": ""}
#: What ``sales_report`` and ``server_log`` return, as the project's tools build it.
REPORT = "\n".join(f"sale {index:04d}: order A{1000 + index} paid 12.50 EUR" for index in range(100))
LOG = "\n".join(f"2025-01-01T00:00:{index:02d} INFO request /orders/A1001 served in 12 ms" for index in range(20))


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled_project("features", tmp_path_factory.mktemp("features"))


def chat(skill: RunSkill, project: Path, url: str, *args: str) -> Completed:
    return skill("chat", "--model", MODEL, "--base-url", url, *args, cwd=project, env=CLEAN)


def tools_sent(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {tool["function"]["name"]: tool["function"] for tool in request.get("tools", [])}


def tool_messages(request: dict[str, Any]) -> list[str]:
    return [message["content"] for message in request["messages"] if message["role"] == "tool"]


def with_strict(tmp_path: Path, mode: str) -> Path:
    project = copy_project("features", tmp_path)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace("[tool.skill.chat]\n", f'[tool.skill.chat]\nstrict = "{mode}"\n')
    )
    return project


# --- strict consistency ----------------------------------------------------------------


def test_per_tool_sends_each_tools_own_strict_and_the_compiler_warns_about_the_mix(
    skill: RunSkill, tmp_path: Path
) -> None:
    project = copy_project("features", tmp_path)
    compiled = skill("compile", cwd=project)
    assert compiled.code == 0, compiled.stdout
    assert "warning[skill/mixed-strict] skill 'orders' mixes strict and non-strict tools" in compiled.stdout
    assert "('lookup_order' is strict, 'add_note' is not)" in compiled.stdout
    assert 'hint: set strict = "all" (or "none") in [tool.skill.chat]' in compiled.stdout
    with ScriptedServer(say("Hello.")) as server:
        result = chat(skill, project, server.url, "-m", "Hi")
    assert result.code == 0, result.stderr
    sent = tools_sent(server.requests[0])
    assert sent["lookup_order"]["strict"] is True and sent["add_note"]["strict"] is False
    assert sent["lookup_order"]["parameters"]["additionalProperties"] is False
    assert sent["add_note"]["parameters"]["required"] == ["order_id"]


def test_all_makes_every_tool_strict_and_a_null_for_a_default_still_works(skill: RunSkill, tmp_path: Path) -> None:
    project = with_strict(tmp_path, "all")
    compiled = skill("compile", cwd=project)
    assert compiled.code == 0 and "mixed-strict" not in compiled.stdout, compiled.stdout
    script = [call(("add_note", '{"order_id": "A1001", "note": null}')), say("Noted.")]
    with ScriptedServer(*script) as server:
        result = chat(skill, project, server.url, "-m", "Note it")
    assert result.code == 0, result.stderr
    sent = tools_sent(server.requests[0])
    assert {tool["strict"] for tool in sent.values()} == {True}
    assert sent["add_note"]["parameters"] == {
        "type": "object",
        "properties": {
            "order_id": {"type": "string", "description": "The order id."},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "What to note."},
        },
        "required": ["order_id", "note"],
        "additionalProperties": False,
    }
    assert tool_messages(server.requests[1]) == ["noted on A1001: "]


def test_none_makes_no_tool_strict(skill: RunSkill, tmp_path: Path) -> None:
    project = with_strict(tmp_path, "none")
    with ScriptedServer(say("Hello.")) as server:
        result = chat(skill, project, server.url, "-m", "Hi")
    assert result.code == 0, result.stderr
    assert {tool["strict"] for tool in tools_sent(server.requests[0]).values()} == {False}


def test_all_refuses_a_tool_that_cannot_be_strict_by_name(skill: RunSkill, tmp_path: Path) -> None:
    source = (
        "from skillc import Agent, Skill, tool\n"
        "\n"
        "@tool\n"
        "def tag(labels: dict[str, str]) -> str:\n"
        '    """Tag things."""\n'
        "    return 'ok'\n"
        "\n"
        'agent = Agent(name="a", skills=[Skill(name="s", tools=[tag])])\n'
    )
    pyproject = '[project]\nname = "x"\nversion = "0"\n\n[tool.skill]\nentry = "src/agent.py"\n\n[tool.skill.chat]\nstrict = "all"\n'
    write_project(tmp_path, {"agent.py": source}, pyproject)
    result = skill("compile", cwd=tmp_path)
    assert result.code == 1
    assert "error[skill/strict-incompatible] tool 'tag' is strict, but labels is a dict with free-form keys" in (
        result.stdout
    )


def test_an_unknown_strict_mode_is_a_configuration_error(skill: RunSkill, tmp_path: Path) -> None:
    result = skill("compile", cwd=with_strict(tmp_path, "some"))
    assert result.code == 2
    assert '[tool.skill.chat] strict must be "per-tool", "all", "none"' in result.stderr


# --- max_output_chars and compact ------------------------------------------------------------


def test_a_capped_result_keeps_its_head_and_tail_with_a_notice(skill: RunSkill, shop: Path) -> None:
    with ScriptedServer(call(("sales_report", "{}")), say("Sold.")) as server:
        result = chat(skill, shop, server.url, "-m", "Sales?")
    assert result.code == 0, result.stderr
    (sent,) = tool_messages(server.requests[1])
    assert len(REPORT) == 3799
    assert sent == REPORT[:78] + "\n[... 3643 of 3799 characters left out ...]\n" + REPORT[-78:]
    assert "characters left out" in result.stderr  # the trace shows what the model got


def test_a_long_result_is_compacted_by_the_model_once_per_content(skill: RunSkill, shop: Path) -> None:
    script = [
        call(("server_log", "{}")),
        say("20 requests to /orders/A1001, 12 ms each, 00:00:00-00:00:19."),
        call(("server_log", "{}")),  # the same result again: the cache answers
        say("Quiet."),
    ]
    with ScriptedServer(*script) as server:
        result = chat(skill, shop, server.url, "-m", "Log?")
    assert result.code == 0, result.stderr
    assert result.stdout == "Quiet.\n"
    assert len(server.requests) == 4
    compaction = server.requests[1]
    assert "tools" not in compaction
    assert compaction["messages"] == [
        {"role": "system", "content": COMPACT_PROMPT},
        {"role": "user", "content": f"The result of the tool server_log:\n\n{LOG}"},
    ]
    compacted = "20 requests to /orders/A1001, 12 ms each, 00:00:00-00:00:19."
    assert tool_messages(server.requests[3]) == [compacted, compacted]


def test_a_failed_compaction_sends_the_original(skill: RunSkill, shop: Path) -> None:
    script = [call(("server_log", "{}")), fail(500, "overloaded"), say("Here.")]
    with ScriptedServer(*script) as server:
        result = chat(skill, shop, server.url, "-m", "Log?")
    assert result.code == 0, result.stderr
    assert tool_messages(server.requests[2]) == [LOG]


def test_without_a_real_model_a_huge_result_is_cut_instead_of_compacted(skill: RunSkill, shop: Path) -> None:
    result = skill("chat", "-m", '/call server_log {"lines": 400}', cwd=shop, env=CLEAN | {"OPENAI_API_KEY": ""})
    assert result.code == 0, result.stderr
    assert "characters left out ...]" in result.stdout
    small = skill("chat", "-m", "/call server_log {}", cwd=shop, env=CLEAN | {"OPENAI_API_KEY": ""})
    assert "served in 12 ms" in small.stdout and "left out" not in small.stdout


def test_skill_test_shows_the_whole_result_and_what_the_model_would_receive(skill: RunSkill, shop: Path) -> None:
    result = skill("test", "--name", "sales_report", "--input", "{}", cwd=shop)
    assert result.code == 0, result.stderr
    assert "sale 0050: order A1050" in result.stdout  # the middle, which the model does not see
    assert f"The model receives 200 of these {len(REPORT)} characters (max_output_chars), the head and tail:" in (
        result.stdout
    )
    as_json = json.loads(skill("test", "--name", "sales_report", "--input", "{}", "--json", cwd=shop).stdout)
    assert as_json["output"] == REPORT and len(as_json["model_output"]) == 200
    log = skill("test", "--name", "server_log", "--input", "{}", cwd=shop)
    assert f"In skill chat this result ({len(LOG)} characters, compact from 300) is compacted by the chat model" in (
        log.stdout
    )


def test_skill_serve_caps_the_result_too(shop: Path) -> None:
    from mcp import Client

    async def work() -> str:
        with open_project(shop) as project:
            async with Client(build_server(project)) as client:
                result = await client.call_tool("sales_report", {})
                assert not result.is_error
                text: str = result.content[0].text  # type: ignore[union-attr]
                return text

    text = run(work())
    assert len(text) == 200 and text.startswith("sale 0000") and "characters left out" in text


# --- lazy tools ---------------------------------------------------------------------------------


def test_lazy_tools_are_sent_once_find_tools_has_found_them(skill: RunSkill, shop: Path) -> None:
    script = [
        call(("gift_wrap", '{"order_id": "A1001"}')),  # not found yet: refused
        call(("find_tools", '{"query": "refund money to the card"}')),
        call(("refund_order", '{"order_id": "A1001", "amount_eur": 5}')),
        say("Refunded."),
    ]
    with ScriptedServer(*script) as server:
        result = chat(skill, shop, server.url, "-m", "Refund 5 EUR on A1001", "--thread", "lazy")
    assert result.code == 0, result.stderr
    first = tools_sent(server.requests[0])
    assert "refund_order" not in first and "gift_wrap" not in first and "lookup_order" in first
    assert first["find_tools"]["description"].startswith("Find more tools: 2 tools are not listed here.")
    assert first["find_tools"]["parameters"]["required"] == ["query"]
    assert tool_messages(server.requests[1]) == [
        "Not run: gift_wrap is not listed yet. Call find_tools to find it first."
    ]
    found = json.loads(tool_messages(server.requests[2])[-1])
    assert [tool["name"] for tool in found["tools"]] == ["refund_order"]
    assert found["tools"][0]["parameters"]["required"] == ["order_id", "amount_eur"]
    assert "refund_order" in tools_sent(server.requests[2]) and "find_tools" in tools_sent(server.requests[2])
    assert tool_messages(server.requests[3])[-1] == "refunded 5.00 EUR on A1001"
    # The thread goes on later: what was found is still sent.
    with ScriptedServer(say("Anything else?")) as server:
        again = chat(skill, shop, server.url, "-m", "Thanks", "--thread", "lazy")
    assert again.code == 0, again.stderr
    assert "refund_order" in tools_sent(server.requests[0]) and "gift_wrap" not in tools_sent(server.requests[0])


def test_find_tools_says_when_nothing_matches(skill: RunSkill, shop: Path) -> None:
    script = [call(("find_tools", '{"query": "weather forecast"}')), say("No such tool.")]
    with ScriptedServer(*script) as server:
        result = chat(skill, shop, server.url, "-m", "Weather?")
    assert result.code == 0, result.stderr
    assert json.loads(tool_messages(server.requests[1])[0]) == {
        "tools": [],
        "note": "No tool matches these words; try others.",
    }


# --- project defaults -------------------------------------------------------------------------


def test_project_defaults_apply_to_the_tools_that_do_not_set_the_setting(skill: RunSkill, tmp_path: Path) -> None:
    project = copy_project("features", tmp_path)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n[tool.skill.defaults]\nmax_output_chars = 60\n")
    with ScriptedServer(call(("add_note", '{"order_id": "A1001", "note": "' + "x" * 100 + '"}')), say("Ok.")) as server:
        result = chat(skill, project, server.url, "-m", "Note")
    assert result.code == 0, result.stderr
    (sent,) = tool_messages(server.requests[1])
    assert sent == "noted on A\n[... 97 of 116 characters left out ...]\n" + "x" * 9
    manifest = json.loads((project / "dist" / "manifest.json").read_text())
    caps = {tool["name"]: tool["max_output_chars"] for tool in manifest["tools"]}
    assert caps["add_note"] == 60 and caps["sales_report"] == 200  # a tool's own value wins
    pyproject.write_text(pyproject.read_text().replace("max_output_chars = 60", "max_output_chars = 0"))
    bad = skill("compile", cwd=project)
    assert bad.code == 2
    assert "[tool.skill.defaults] max_output_chars must be a whole number of 1 or more, or None, not 0" in bad.stderr
