"""``ctx.data`` in real calls: ``skill test`` from the bundles, conditions, environments, configuration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import DEFAULT_PYPROJECT, RunSkill, write_project
from skillc.testing import load_project

AGENT = '''\
from pydantic import BaseModel

from skillc import Agent, Skill, Tool, ToolContext, tool


@tool
def visit(name: str, ctx: ToolContext) -> dict[str, object]:
    """Count a visit in ctx.data."""
    visits = ctx.data["visits"]
    if visits.get(name) is None:
        visits.create({"count": 0}, id=name)
    count = visits.get(name)["count"] + 1
    visits.patch(name, {"count": count})
    return {"name": name, "count": count, "environment": ctx.environment}


class RecallInput(BaseModel):
    name: str


class Recall(Tool):
    name = "recall"
    description = "Read a visit back, from an async tool."
    input_schema = RecallInput

    async def execute(self, input: RecallInput, ctx: ToolContext) -> object:
        return await ctx.data["visits"].aget(input.name)


def members_only() -> bool:
    return ToolContext.current().data["flags"].get("open") is not None


def enter(input: RecallInput, ctx: ToolContext) -> str:
    return "welcome"


door = Tool(name="door", description="Offered once flags/open exists.", input_schema=RecallInput, execute=enter, condition=members_only)

agent = Agent(name="a", skills=[Skill(name="s", tools=[visit, Recall(), door])])
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "p", {"agent.py": AGENT})


def visit(skill: RunSkill, project: Path, *extra: str, env: dict[str, str] | None = None) -> dict[str, object]:
    done = skill("test", "--name", "visit", "--input", '{"name": "ann"}', "--json", *extra, cwd=project, env=env)
    assert done.code == 0, done.stdout + done.stderr
    output: dict[str, object] = json.loads(json.loads(done.stdout)["output"])
    return output


def test_documents_last_from_call_to_call_in_the_environments_own_database(skill: RunSkill, project: Path) -> None:
    assert visit(skill, project)["count"] == 1
    assert visit(skill, project)["count"] == 2
    assert visit(skill, project, "-e", "production") == {"name": "ann", "count": 1, "environment": "production"}
    assert sorted(path.name for path in (project / ".skill/data").iterdir() if path.suffix == ".sqlite3") == [
        "production.sqlite3",
        "sandbox.sqlite3",
    ]
    recalled = skill("test", "--name", "recall", "--input", '{"name": "ann"}', "--json", cwd=project)
    assert json.loads(json.loads(recalled.stdout)["output"]) == {"_id": "ann", "count": 2}


def test_a_condition_reads_ctx_data_too(skill: RunSkill, project: Path) -> None:
    hidden = skill("test", "--name", "door", "--input", '{"name": "ann"}', cwd=project)
    assert hidden.code == 1 and "Not run: the tool is hidden this turn" in hidden.stdout
    assert skill("data", "put", "flags", "open", "{}", cwd=project).code == 0
    assert skill("test", "--name", "door", "--input", '{"name": "ann"}', cwd=project).code == 0


def test_the_sqlite_folder_can_be_configured(skill: RunSkill, project: Path) -> None:
    (project / "pyproject.toml").write_text(DEFAULT_PYPROJECT + '\n[tool.skill.data]\npath = "var/db"\n')
    visit(skill, project)
    assert (project / "var/db/sandbox.sqlite3").is_file() and not (project / ".skill/data").exists()


def test_a_project_whose_tools_never_use_data_gets_no_database(skill: RunSkill, project: Path) -> None:
    assert skill("test", "--name", "recall", "--input", '{"name": "x"}', "--skip-condition", cwd=project).code == 0
    assert (project / ".skill/data").exists()  # recall reads the store ...
    other = write_project(project.parent / "q", {"agent.py": AGENT.replace('ctx.data["visits"].aget', "str")})
    assert skill("test", "--name", "door", "--input", '{"name": "x"}', "--skip-condition", cwd=other).code == 0
    assert not (other / ".skill/data").exists()  # ... door, run without its condition, does not


def test_skill_data_url_in_the_env_file_puts_the_documents_in_postgresql(
    skill: RunSkill, project: Path, postgres_url: str
) -> None:
    (project / ".env").write_text(f"SKILL_DATA_URL={postgres_url}\n")
    assert skill("data", "clear", "--yes", cwd=project).code == 0
    assert visit(skill, project)["count"] == 1
    assert visit(skill, project)["count"] == 2
    assert not (project / ".skill/data").exists()
    shown = skill("data", "get", "visits", "ann", "--json", cwd=project)
    assert json.loads(shown.stdout) == {"_id": "ann", "count": 2}
    assert "postgresql://postgres@/postgres?host=" in shown.stderr  # where the data is, on stderr


def test_a_url_that_names_no_postgresql_database_is_refused_without_its_password(
    skill: RunSkill, project: Path
) -> None:
    done = skill(
        "test", "--name", "visit", "--input", "{}", cwd=project, env={"SKILL_DATA_URL": "mysql://shop:hunter2@db/shop"}
    )
    assert done.code == 2
    assert (
        "error: SKILL_DATA_URL must be a PostgreSQL URL (postgresql://...), not 'mysql://shop:***@db/shop'"
        in done.stderr
    )
    assert "hunter2" not in done.stdout + done.stderr


def test_an_unreachable_server_is_an_error_result_without_the_password(skill: RunSkill, project: Path) -> None:
    url = "postgresql://shop:hunter2@127.0.0.1:9/shop?connect_timeout=2"
    done = skill(
        "test", "--name", "visit", "--input", '{"name": "ann"}', "--json", cwd=project, env={"SKILL_DATA_URL": url}
    )
    assert done.code == 1
    output = json.loads(done.stdout)["output"]
    assert "cannot use the PostgreSQL data store postgresql://shop:***@127.0.0.1:9/shop?connect_timeout=2" in output
    assert "hunter2" not in done.stdout + done.stderr


def test_a_mistyped_data_key_is_a_configuration_error(skill: RunSkill, project: Path) -> None:
    (project / "pyproject.toml").write_text(DEFAULT_PYPROJECT + '\n[tool.skill.data]\nulr = "postgresql://x"\n')
    done = skill("data", "collections", cwd=project)
    assert done.code == 2 and "unknown key 'ulr' in [tool.skill.data]" in done.stderr


def test_skillc_testing_calls_run_against_a_temporary_store(project: Path) -> None:
    loaded = load_project(project)
    assert loaded.value("visit", {"name": "ann"})["count"] == 1
    assert loaded.value("visit", {"name": "ann"})["count"] == 2
    assert loaded.data()["visits"].get("ann") == {"_id": "ann", "count": 2}
    assert loaded.value("visit", {"name": "ann"}, environment="production")["count"] == 1
    assert loaded.call("door", {"name": "ann"}).error_type == "not_offered"
    loaded.data()["flags"].put("open", {})
    assert loaded.value("door", {"name": "ann"}) == "welcome"
    assert not (project / ".skill/data").exists()  # the project's own store is never touched
