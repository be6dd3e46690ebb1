"""Client-side tools (TanStack AI's ``toolDefinition(...).client()``), end to end.

A tool with ``client=True`` has no execute: it is compiled with its schemas and no bundle,
and its result comes from the caller.  ``skill chat -m --client-results FILE`` answers such
calls from a file (checked against the scripted OpenAI-protocol server on 127.0.0.1: what
the model receives), an interactive ``skill chat`` asks the person under a pseudo-terminal,
``skill test --result`` gives the result of one call, and the Python API takes a handler.
The fixture project is ``tests/chat_projects/device``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pexpect  # type: ignore[import-untyped]  # types-pexpect is not among the test extras
import pytest
from chat_support import MODEL, ScriptedServer, call, compiled_project, say
from helpers import Completed, RunSkill, write_project
from skillc import Tool, tool
from skillc.contracts.errors import ToolDefinitionError
from skillc.project import open_project
from skillc.runtime.client import ClientError
from skillc.serve.server import ProjectServer
from skillc.testing import load_project
from test_chat_session import PROMPT, shown, spawn

CLEAN = {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": "", "SKILL_MODEL": ""}
PARIS = {"latitude": 48.86, "longitude": 2.35}


@pytest.fixture(scope="module")
def device(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled_project("device", tmp_path_factory.mktemp("device"))


def chat(skill: RunSkill, project: Path, url: str, *args: str) -> Completed:
    return skill("chat", "--model", MODEL, "--base-url", url, *args, cwd=project, env=CLEAN)


def tool_messages(request: dict[str, Any]) -> list[str]:
    return [message["content"] for message in request["messages"] if message["role"] == "tool"]


def results_file(tmp_path: Path, results: object) -> Path:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results))
    return path


# --- what the compiler writes ---------------------------------------------------------------


def test_a_client_tool_is_compiled_with_its_schemas_and_no_bundle(device: Path) -> None:
    manifest = json.loads((device / "dist/manifest.json").read_text())
    tools = {entry["name"]: entry for entry in manifest["tools"]}
    location = tools["get_location"]
    assert (location["client"], location["bundle"], location["sha256"], location["entry"]) == (True, None, None, None)
    assert location["schema"]["output"] == "tools/get_location/output.schema.json"
    assert sorted(path.name for path in (device / "dist/tools/get_location").iterdir()) == [
        "input.schema.json",
        "output.schema.json",
        "tool.json",
    ]
    assert sorted(path.name for path in (device / "dist/tools/pick_color").iterdir()) == [
        "input.schema.json",
        "tool.json",
    ]
    assert tools["weather"]["client"] is False and tools["weather"]["bundle"] == "tools/weather/bundle.zip"
    definition = json.loads((device / "dist/tools/pick_color/tool.json").read_text())
    assert definition["parameters"]["properties"]["palette"] == {
        "enum": ["warm", "cold"],
        "title": "Palette",
        "type": "string",
    }


def test_client_is_no_project_default(skill: RunSkill, tmp_path: Path) -> None:
    pyproject = (
        '[project]\nname = "x"\nversion = "0"\n\n[tool.skill]\nentry = "src/agent.py"\n\n'
        "[tool.skill.defaults]\nclient = true\n"
    )
    write_project(tmp_path, {"agent.py": "from skillc import Agent\nagent = Agent(name='a')\n"}, pyproject)
    result = skill("compile", cwd=tmp_path)
    assert result.code == 2
    assert "[tool.skill.defaults] cannot set 'client': it is set on each tool that needs it" in result.stderr


def test_the_compiler_reports_each_piece_of_code_of_a_client_tool(skill: RunSkill, tmp_path: Path) -> None:
    source = (
        "from pydantic import BaseModel\n"
        "from skillc import Agent, Skill, Tool, tool\n"
        "\n"
        "class Place(BaseModel):\n"
        "    city: str\n"
        "\n"
        "class GetLocation(Tool):\n"
        '    name = "get_location"\n'
        '    description = "Ask the device."\n'
        "    input_schema = Place\n"
        "    client = True\n"
        "\n"
        "    def execute(self, input, ctx):\n"
        "        return {}\n"
        "\n"
        "@tool(client=True)\n"
        "def pick_color(palette: str) -> str:\n"
        '    """Pick a color."""\n'
        "    return 'red'\n"
        "\n"
        'agent = Agent(name="a", skills=[Skill(name="s", tools=[GetLocation(), pick_color])])\n'
    )
    write_project(tmp_path, {"agent.py": source})
    result = skill("compile", cwd=tmp_path)
    assert result.code == 1
    assert (
        "src/agent.py:13:5: error[skill/client-tool-execute] tool 'get_location' is client-side (client = True), "
        "so it must have no execute method: its result comes from the caller, and it ships no code" in result.stdout
    )
    assert (
        "src/agent.py:19:5: error[skill/client-tool-execute] tool 'pick_color' is client-side (client = True), "
        "so its function's body must be only a docstring and/or `...`: the body would never run" in result.stdout
    )
    assert not (tmp_path / "dist").exists()


# --- skill chat -m --client-results ----------------------------------------------------------


def test_client_results_answer_the_calls_in_order_and_the_model_receives_them(
    skill: RunSkill, device: Path, tmp_path: Path
) -> None:
    results = results_file(
        tmp_path, {"get_location": [PARIS, {"latitude": 59.91, "longitude": 10.75}], "pick_color": ["red"]}
    )
    script = [
        call(
            ("get_location", '{"city": "Paris"}'),
            ("get_location", '{"city": "Oslo"}'),
            ("pick_color", '{"palette": "warm"}'),
            ("weather", '{"city": "Paris"}'),
        ),
        call(("pick_color", '{"palette": "cold"}'), ("get_location", '{"city": "Rome"}')),
        say("Done."),
    ]
    with ScriptedServer(*script) as server:
        result = chat(skill, device, server.url, "-m", "Where am I?", "--client-results", str(results))
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == "Done."
    assert tool_messages(server.requests[1]) == [
        '{"latitude":48.86,"longitude":2.35}',
        '{"latitude":59.91,"longitude":10.75}',
        "red",
        "sunny in Paris",
    ]
    assert tool_messages(server.requests[2])[4:] == [
        "No result was given for this call of 'pick_color': the 1 in --client-results are used up.",
        "No result was given for this call of 'get_location': the 2 in --client-results are used up.",
    ]
    assert "<- get_location ok" in result.stderr


def test_a_result_or_arguments_that_break_the_schema_are_error_results_naming_fields(
    skill: RunSkill, device: Path, tmp_path: Path
) -> None:
    results = results_file(tmp_path, {"get_location": {"latitude": 148.86, "place": "secret-value"}})
    script = [
        call(("get_location", '{"city": "Paris"}'), ("get_location", '{"city": 75001, "country": ["secret-arg"]}')),
        say("Sorry."),
    ]
    with ScriptedServer(*script) as server:
        result = chat(skill, device, server.url, "-m", "Where am I?", "--client-results", str(results))
    assert result.code == 0, result.stderr
    received = tool_messages(server.requests[1])
    assert received == [
        "The client's result does not match the tool's output schema:\n"
        "- latitude: Input should be less than or equal to 90\n"
        "- longitude: Field required",
        "The arguments do not match the tool's input schema:\n"
        "- city: Input should be a valid string\n"
        "- country: Input should be a valid string",
    ]
    assert "secret" not in "".join(received)
    assert "failed, output_validation" in result.stderr and "failed, validation" in result.stderr


def test_without_client_results_a_client_call_is_an_error_the_model_reads_and_the_run_says_so(
    skill: RunSkill, device: Path
) -> None:
    with ScriptedServer(call(("get_location", '{"city": "Paris"}')), say("I could not tell.")) as server:
        result = chat(skill, device, server.url, "-m", "Where am I?")
    assert result.code == 0, result.stderr
    assert tool_messages(server.requests[1]) == [
        "The result of 'get_location' must come from the client (it is a client-side tool), "
        "and no client is here to give it."
    ]
    assert "<- get_location failed, execution" in result.stderr
    assert "get_location is a client-side tool: with -m, pass --client-results FILE to give its results" in (
        result.stderr
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        ("[1, 2]", "must hold a JSON object: tool name -> result (or list of results in order)"),
        ('{"weather": "rain"}', "names 'weather', which is not a client-side tool of the agent"),
    ],
)
def test_a_bad_client_results_file_is_a_usage_error(
    skill: RunSkill, device: Path, tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "results.json"
    path.write_text(content)
    result = skill("chat", "-m", "Hi", "--client-results", str(path), cwd=device, env=CLEAN)
    assert result.code == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


# --- skill chat, a person at the terminal ----------------------------------------------------


def test_the_user_types_the_result_shown_the_call_and_its_validated_arguments(device: Path) -> None:
    child = spawn(device, "--thread", "typed")
    try:
        child.expect(PROMPT)
        child.sendline('/call get_location {"city": "Paris"}')
        child.expect(shown("get_location is a client-side tool: its result comes from you."))
        child.expect(shown('Result of get_location {"city": "Paris", "country": null}: '))
        child.sendline('{"latitude": 48.86, "longitude": 2.35}')
        child.expect(shown("<- get_location ok ("))
        child.expect(shown('{"latitude":48.86,"longitude":2.35}'))
        child.expect(PROMPT)
        child.sendline('/call pick_color {"palette": "warm"}')
        child.expect(shown('Result of pick_color {"palette": "warm", "count": 1}: '))
        child.sendline("coral red")
        child.expect(shown("<- pick_color ok ("))
        child.expect(shown("coral red"))
        child.expect(PROMPT)
        child.sendline('/call get_location {"city": "Oslo"}')
        child.expect(shown("Result of get_location"))
        child.sendline('{"latitude": 100, "longitude": 0}')
        child.expect(shown("<- get_location failed, output_validation"))
        child.expect(shown("latitude: Input should be less than or equal to 90"))
        child.expect(PROMPT)
        child.sendline('/call confirm {"city": "Rome"}')
        child.expect(shown("Result of confirm"))
        child.sendline("")
        child.expect(shown("no result given"))
        child.expect(shown("<- confirm failed, execution"))
        child.expect(shown("The user gave no result for this call."))
        child.expect(PROMPT)
        child.sendline('/call get_location {"country": "FR"}')
        child.expect(shown("<- get_location failed, validation"))
        child.expect(shown("city: Field required"))
        child.expect(PROMPT)
        assert "Result of" not in child.before
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    thread = json.loads((device / ".skill/threads/typed.json").read_text())
    results = [message["content"] for message in thread["messages"] if message["role"] == "tool"]
    assert results[:2] == ['{"latitude":48.86,"longitude":2.35}', "coral red"]


def test_the_tools_timeout_bounds_the_question(device: Path) -> None:
    child = spawn(device)
    try:
        child.expect(PROMPT)
        child.sendline('/call pick_color {"palette": "cold"}')
        child.expect(shown("Result of pick_color"))
        child.expect(shown("<- pick_color failed, timeout"), timeout=15)
        child.expect(shown("No result came from the client within 3 s."))
        child.expect(PROMPT)
        child.sendline('/call weather {"city": "Oslo"}')
        child.expect(shown("sunny in Oslo"))
        child.expect(PROMPT)
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


# --- skill test --result -----------------------------------------------------------------------


def test_skill_test_takes_the_result_with_result_and_explains_when_it_is_missing(skill: RunSkill, device: Path) -> None:
    given = skill(
        "test", "--name", "get_location", "--input", '{"city": "Paris"}', "--result", json.dumps(PARIS), cwd=device
    )
    assert given.code == 0, given.stderr
    assert "Tool execution successful" in given.stdout and '"latitude": 48.86' in given.stdout
    assert "A client-side tool: the result is --result, as the model would receive it." in given.stdout
    bad = skill("test", "--name", "get_location", "--input", "{}", "--result", "{}", "--json", cwd=device)
    assert bad.code == 1
    assert json.loads(bad.stdout)["error_type"] == "validation"
    missing = skill("test", "--name", "get_location", "--input", '{"city": "Paris"}', cwd=device)
    assert missing.code == 2
    assert "tool 'get_location' is client-side: its result comes from the caller, so give it with --result JSON" in (
        missing.stderr
    )
    wrong = skill("test", "--name", "weather", "--input", '{"city": "Oslo"}', "--result", "1", cwd=device)
    assert wrong.code == 2 and "--result is for client-side tools; tool 'weather' runs its own execute" in wrong.stderr


# --- the Python API ---------------------------------------------------------------------------


def test_the_testing_api_takes_a_handler_sync_or_async(device: Path) -> None:
    project = load_project(device)
    seen: list[tuple[str, dict[str, Any]]] = []

    def locate(name: str, arguments: dict[str, Any]) -> dict[str, float]:
        seen.append((name, arguments))
        return PARIS

    assert project.value("get_location", {"city": "Paris"}, client=locate) == PARIS
    assert seen == [("get_location", {"city": "Paris", "country": None})]

    async def pick(name: str, arguments: dict[str, Any]) -> str:
        await asyncio.sleep(0)
        return "teal" * arguments["count"]

    assert project.call("pick_color", {"palette": "cold", "count": 2}, client=pick).output == "tealteal"

    def closed(name: str, arguments: dict[str, Any]) -> None:
        raise ClientError("The user closed the dialog.")

    refused = project.call("confirm", {"city": "Rome"}, client=closed)
    assert (refused.error_type, refused.output) == ("execution", "The user closed the dialog.")
    alone = project.call("confirm", {"city": "Rome"})
    assert alone.error_type == "execution" and "must come from the client" in alone.output


def test_skill_serve_does_not_list_client_tools(device: Path) -> None:
    with open_project(device) as project:
        assert sorted(ProjectServer(project).listings) == ["weather"]


def test_the_sdk_takes_client_tools_without_execute_and_refuses_code() -> None:
    @tool(client=True)
    def ask(question: str) -> str:
        """Ask the user."""

    assert ask.input_schema is not None and list(ask.input_schema.model_fields) == ["question"]
    with pytest.raises(ToolDefinitionError, match="so its function's body must be only a docstring"):

        @tool(client=True)
        def answer(question: str) -> str:
            """Answer."""
            return question

    with pytest.raises(ToolDefinitionError, match="so it must have no execute"):
        Tool(name="t", description="d", client=True, execute=lambda input, ctx: 1)
    with pytest.raises(ToolDefinitionError, match="so it cannot have a condition"):
        Tool(name="t", description="d", client=True, condition=lambda: True)
