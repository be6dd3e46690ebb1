"""The project layer (``skillc.project``): compile if stale, load, build contexts, offer then call.

``tests/chat_projects/desk`` has what the layer's guarantees need: a plain tool, a slow
one, one that needs approval, and a skill (``back_office``) behind a condition that
reads ``BACK_OFFICE`` from the environment.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_support import copy_project
from helpers import RunSkill, write_project
from runtime_support import run
from skillc.contracts.errors import UserError
from skillc.project import CompileFailed, Project, approve_all, decline_all, open_project
from skillc.testing import CompileFailed as AssertedCompileFailed
from skillc.testing import load_project

BROKEN_AGENT = "from skillc import Agent\n\nagent = Agent(name='desk', skills=[missing])\n"


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project("desk", tmp_path_factory.mktemp("project"))
    (project / ".env").write_text("BACK_OFFICE=off\nGREETING=hello\n")
    (project / ".env.production").write_text("BACK_OFFICE=on\n")
    return project


@pytest.fixture
def opened(desk: Path) -> Iterator[Project]:
    with open_project(desk) as project:
        yield project


def test_a_stale_project_is_compiled_then_loaded(tmp_path: Path) -> None:
    project = copy_project("desk", tmp_path)
    assert not (project / "dist").exists()
    with open_project(project / "src") as opened:  # any folder inside the project
        assert opened.report.ok and opened.root == project.resolve()
        assert (project / "dist/manifest.json").is_file()
        assert opened.runtime.dist == (project / "dist").resolve()
        assert "lookup_ticket" in opened.runtime.tool_names
        assert opened.runtime.loaded == frozenset()  # nothing is imported before it is needed
    with open_project(project) as again:
        assert again.report.dist == "up to date"


def test_compile_errors_raise_compile_failed_with_the_report_and_load_nothing(tmp_path: Path) -> None:
    project = copy_project("desk", tmp_path)
    (project / "src/agent.py").write_text(BROKEN_AGENT)
    with pytest.raises(CompileFailed) as caught:
        open_project(project)
    failed = caught.value
    assert isinstance(failed, UserError) and failed.exit_code == 1
    assert failed.message == "the project does not compile; fix the errors above first"
    assert not failed.report.ok and failed.report.errors >= 1
    assert not (project / "dist").exists()


def test_a_context_has_the_tool_skill_and_the_environment_files(desk: Path) -> None:
    with open_project(desk, environment="production") as project:
        assert project.environment == "production"
        files = ("BACK_OFFICE", "GREETING")
        assert {key: project.variables()[key] for key in files} == {"BACK_OFFICE": "on", "GREETING": "hello"}
        assert {key: project.variables("sandbox")[key] for key in files} == {"BACK_OFFICE": "off", "GREETING": "hello"}
        context = project.context(call_id="request-1", tool="refund")
        assert (context.call_id, context.tool, context.skill) == ("request-1", "refund", "back_office")
        assert context.environment == "production"
        assert {key: context.env[key] for key in files} == {"BACK_OFFICE": "on", "GREETING": "hello"}
        sandbox = project.context(environment="sandbox", user={"id": "u1"})
        assert (sandbox.environment, sandbox.env["BACK_OFFICE"]) == ("sandbox", "off")
        assert (sandbox.tool, sandbox.skill) == (None, None)
        assert sandbox.user == {"id": "u1"} and sandbox.call_id == "local"
        given = project.context(env={"ONLY": "this"})
        assert dict(given.env) == {"ONLY": "this"}


def test_the_offer_follows_the_conditions(opened: Project) -> None:
    hidden = run(opened.offer(opened.context()))
    assert "refund" not in hidden.names and "lookup_ticket" in hidden.names
    assert hidden.reason("back_office", "skill") == "its condition() returned False"
    shown = run(opened.offer(opened.context(env={"BACK_OFFICE": "on"})))
    assert "refund" in shown.names


def test_a_call_is_offered_first_and_a_hidden_tool_says_why(opened: Project) -> None:
    called = run(opened.call("refund", {"ticket": "T-1"}))
    assert called.result.error_type == "not_offered"
    assert called.offer is not None and "refund" not in called.offer.names
    assert called.hidden == "its condition() returned False"  # the skill's own reason, not "its skill is hidden"

    skipped = run(opened.call("refund", {"ticket": "T-1"}, check_condition=False))
    assert not skipped.result.is_error and skipped.offer is None and skipped.hidden is None

    offered = run(opened.call("refund", {"ticket": "T-1"}, opened.context(call_id="c-9", env={"BACK_OFFICE": "on"})))
    assert not offered.result.is_error and offered.hidden is None
    assert offered.result.call_id == "c-9"  # the call's id is the context's


def test_unknown_tools_and_failures_are_results(opened: Project) -> None:
    unknown = run(opened.call("nope", "{}"))
    assert unknown.result.error_type == "unknown_tool" and unknown.hidden is None
    invalid = run(opened.call("lookup_ticket", '{"ticket": "secret-1"}'))
    assert invalid.result.error_type == "validation" and "secret-1" not in invalid.result.output
    exploded = run(opened.call("explode", {}))
    assert exploded.result.error_type == "execution" and "the desk is on fire" in exploded.result.output


def test_approval_is_asked_of_the_approver(opened: Project) -> None:
    nobody = run(opened.call("close_ticket", {"ticket": "T-1"}))
    assert nobody.result.error_type == "approval_denied" and "nobody is here" in nobody.result.output
    declined = run(opened.call("close_ticket", {"ticket": "T-1"}, approver=decline_all))
    assert declined.result.output == "A person declined to run this tool."
    approved = run(opened.call("close_ticket", {"ticket": "T-1"}, approver=approve_all))
    assert (approved.result.is_error, approved.result.output) == (False, "closed T-1")


def test_concurrent_requests_each_get_their_own_offer_and_result(opened: Project) -> None:
    env = opened.variables()

    async def request(number: int) -> tuple[str, str]:
        context = opened.context(call_id=f"r{number}", env=env)
        if number % 2:
            called = await opened.call("wait", {"seconds": 0.2}, context)
        else:
            called = await opened.call("lookup_ticket", {"ticket": f"T-{100 + number}"}, context)
        assert called.offer is not None and "wait" in called.offer.names
        return called.result.call_id, called.result.output

    async def many() -> list[tuple[str, str]]:
        return await asyncio.gather(*(request(number) for number in range(20)))

    started = time.perf_counter()
    answers = run(many())
    assert time.perf_counter() - started < 1.9  # ten waits of 0.2 s ran at once
    for number, (call_id, output) in enumerate(answers):
        assert call_id == f"r{number}"
        if number % 2:
            assert output == "waited 0.2"
        else:
            assert json.loads(output) == {"ticket": f"T-{100 + number}", "status": "unknown"}


def test_closing_the_project_ends_its_runtime(desk: Path) -> None:
    with open_project(desk) as project:
        pool = project.runtime.pool
    with pytest.raises(RuntimeError, match="closed"):
        pool.submit(lambda: None)


def test_skillc_testing_calls_through_the_layer(desk: Path) -> None:
    project = load_project(desk)
    assert load_project(desk) is project  # compiled and loaded once per session
    assert project.value("lookup_ticket", {"ticket": "T-1"}) == {"ticket": "T-1", "status": "open"}
    assert project.call("refund", {"ticket": "T-1"}).error_type == "not_offered"
    assert project.call("refund", {"ticket": "T-1"}, environment="production").output == project.value(
        "refund", {"ticket": "T-1"}, env={"BACK_OFFICE": "on"}
    )
    assert project.call("close_ticket", {"ticket": "T-1"}).output == "A person declined to run this tool."
    assert project.value("close_ticket", {"ticket": "T-1"}, approve=True) == "closed T-1"
    assert project.context("refund").call_id != project.context("refund").call_id


def test_skillc_testing_fails_the_test_with_the_compile_errors(tmp_path: Path) -> None:
    project = copy_project("desk", tmp_path)
    (project / "src/agent.py").write_text(BROKEN_AGENT)
    with pytest.raises(AssertedCompileFailed) as caught:
        load_project(project)
    assert isinstance(caught.value, AssertionError)
    assert str(caught.value).startswith("the project does not compile:\nsrc/agent.py:3:")


ENV_AGENT = '''import os

from skillc import Agent, Skill, ToolContext, tool


@tool
def show(key: str, ctx: ToolContext) -> dict[str, str | None]:
    """Show what a tool sees of a variable."""
    return {"ctx": ctx.env.get(key), "os": os.getenv(key)}


agent = Agent(name="a", skills=[Skill(name="s", tools=[show])])
'''


@pytest.mark.parametrize(
    ("environment", "key", "shell", "seen"),
    [
        ("sandbox", "FILE_ONLY", None, "from-file"),
        ("production", "FILE_ONLY", None, "production-file"),
        ("sandbox", "BOTH", "from-shell", "from-shell"),
        ("sandbox", "SHELL_ONLY", "from-shell", "from-shell"),
        ("sandbox", "NOWHERE", None, None),
    ],
)
def test_ctx_env_and_os_environ_agree_and_the_shell_wins(
    tmp_path: Path, skill: RunSkill, environment: str, key: str, shell: str | None, seen: str | None
) -> None:
    project = write_project(tmp_path / "p", {"agent.py": ENV_AGENT})
    (project / ".env").write_text("FILE_ONLY=from-file\nBOTH=from-file\n")
    (project / ".env.production").write_text("FILE_ONLY=production-file\n")
    done = skill(
        "test",
        str(project),
        "--name",
        "show",
        "--input",
        json.dumps({"key": key}),
        "-e",
        environment,
        "--json",
        env={key: shell} if shell is not None else None,
    )
    assert done.code == 0, done.stderr
    assert json.loads(json.loads(done.stdout)["output"]) == {"ctx": seen, "os": seen}
    assert "from-file" not in done.stderr and "from-shell" not in done.stderr
