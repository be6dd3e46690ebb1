"""``skill test`` under hostile tools and input: one tool's conditions only, JSON it cannot read, keys it must not echo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import RunSkill, write_project

AGENT = '''\
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from skillc import Agent, Skill, tool


class Order(BaseModel):
    model_config = ConfigDict(extra="forbid")

    order_id: str


def slow() -> bool:
    Path("slow-condition-ran").write_text("yes")
    time.sleep(20)
    return True


def ready() -> bool:
    return True


def closed() -> bool:
    return False


@tool
def ping(text: str) -> str:
    """Echo the text."""
    return text


@tool
def count(n: int, ratio: float = 1.0) -> float:
    """Multiply."""
    return n * ratio


@tool
def submit(order: Order) -> str:
    """Submit an order."""
    return order.order_id


@tool
def huge() -> int:
    """A number with five thousand digits."""
    return 10**4999


@tool(condition=slow)
def sluggish() -> str:
    """Offered after a long wait."""
    return "late"


@tool
def gated() -> str:
    """In a skill that is never offered."""
    return "never"


agent = Agent(
    name="a",
    skills=[
        Skill(name="fast", tools=[ping, count, submit, huge], condition=ready),
        Skill(name="slow", tools=[sluggish]),
        Skill(name="shut", tools=[gated], condition=closed),
    ],
)
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("hostile"), {"agent.py": AGENT})


def test_only_the_tools_own_conditions_are_evaluated(skill: RunSkill, project: Path) -> None:
    result = skill("test", "--name", "ping", "--input", '{"text": "hi"}', cwd=project)
    assert result.code == 0, result.stdout + result.stderr
    assert not (project / "slow-condition-ran").exists()  # another tool's condition never ran
    hidden = skill("test", "--name", "gated", cwd=project)
    assert hidden.code == 1  # the tool's own skill's condition still applies
    assert "hidden this turn: its condition() returned False" in hidden.stdout
    assert not (project / "slow-condition-ran").exists()


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"text": ' + "[" * 1000 + "]" * 1000 + "}", "nested too deeply"),
        ('{"n": ' + "7" * 4301 + "}", "an integer has more than 4,300 digits"),
        ('{"n": 1, "ratio": 1e999}', "JSON has no NaN or infinity"),
        ('{"n": 1, "ratio": Infinity}', "JSON has no NaN or infinity"),
        ('{"n": 1, "ratio": -Infinity}', "JSON has no NaN or infinity"),
    ],
)
def test_input_json_cannot_read_is_a_usage_error(skill: RunSkill, project: Path, text: str, fragment: str) -> None:
    result = skill("test", "--name", "count", "--input", text, cwd=project)
    assert result.code == 2, result.stderr
    assert result.stderr.startswith("error: --input is not JSON: ")
    assert fragment in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("number", ["1e999", "-1e999", "Infinity", "NaN"])
def test_a_model_sending_infinity_gets_invalid_json(project: Path, number: str) -> None:
    from skillc.testing import load_project

    result = load_project(project).call("count", '{"n": 1, "ratio": ' + number + "}")
    assert (result.is_error, result.error_type) == (True, "invalid_json")
    assert "is not valid JSON: JSON numbers are finite, JSON has no NaN or infinity" in result.output
    assert result.attempts == 0
    assert not (project / "slow-condition-ran").exists()  # skillc.testing evaluates the tool's conditions only


@pytest.mark.parametrize("as_json", [False, True])
def test_a_result_with_a_huge_integer_is_an_error_result(skill: RunSkill, project: Path, as_json: bool) -> None:
    result = skill("test", "--name", "huge", *(["--json"] if as_json else []), cwd=project)
    assert result.code == 1, result.stderr
    assert "Traceback" not in result.stderr
    output = json.loads(result.stdout)["output"] if as_json else result.stdout
    assert "serialization" in (json.loads(result.stdout)["error_type"] if as_json else result.stdout)
    assert "more than 4,300 digits" in output


def test_undeclared_keys_are_not_repeated(skill: RunSkill, project: Path) -> None:
    order = {"order_id": "A1", "alice@example.com": 1, "sk-live-0123456789abcdef": 2, "colour": 3}
    arguments = {"order": order}
    result = skill("test", "--name", "submit", "--input", json.dumps(arguments), "--json", cwd=project)
    assert result.code == 1, result.stderr
    document = json.loads(result.stdout)
    assert document["error_type"] == "validation"
    assert "order: 3 unexpected properties, not in the schema: 'colour' and 2 not shown" in document["output"]
    assert "alice" not in document["output"] and "sk-live" not in document["output"]
    assert "alice" not in result.stdout + result.stderr and "0123456789" not in result.stdout


def test_dict_keys_in_a_path_are_elided() -> None:
    from pydantic import BaseModel, ValidationError
    from skillc.runtime.serialize import describe_validation_error

    class Scores(BaseModel):
        scores: dict[str, int]

    with pytest.raises(ValidationError) as raised:
        Scores.model_validate({"scores": {"alice@example.com": "x", "bob": "y"}})
    lines = describe_validation_error(raised.value)
    assert [line.split(":")[0] for line in lines] == ["scores.<key>", "scores.bob"]
