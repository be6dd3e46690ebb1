"""``skill compile --verify`` names the real reason a bundle does not import, and the hint fits it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import RunSkill, write_project

AGENT = (
    "from skillc import Agent, Skill\n"
    "from tools import Search\n"
    'agent = Agent(name="a", skills=[Skill(name="s", tools=[Search()])])\n'
)
TOOL = (
    "import os\n"
    "from pydantic import BaseModel\n"
    "from skillc import Tool\n"
    "{prelude}"
    "\n"
    "class Query(BaseModel):\n"
    "    text: str\n"
    "\n"
    "class Search(Tool):\n"
    '    name = "search"\n'
    '    description = "Search the web."\n'
    "    input_schema = Query\n"
    "\n"
    "    def __init__(self) -> None:\n"
    "{init}"
    "\n"
    "    def execute(self, input, ctx):\n"
    "        return input.text\n"
)


@pytest.mark.parametrize(
    ("prelude", "init", "error", "hint"),
    [
        ("", '        self.key = os.environ["SEARCH_API_KEY"]\n', "KeyError: 'SEARCH_API_KEY'", ".env"),
        (
            'raise ValueError("no region configured")\n',
            "        pass\n",
            "ValueError: no region configured",
            "import the module in a test",
        ),
    ],
)
def test_verify_reports_the_cause_with_a_hint_that_fits(
    tmp_path: Path, skill: RunSkill, prelude: str, init: str, error: str, hint: str
) -> None:
    project = write_project(tmp_path / "p", {"agent.py": AGENT, "tools.py": TOOL.format(prelude=prelude, init=init)})
    done = skill("compile", str(project), "--verify", "--format", "json")
    assert done.code == 1, done.stdout + done.stderr
    found = [
        item for item in json.loads(done.stdout)["diagnostics"] if item["code"] == "skill/bundle-not-self-contained"
    ]
    assert len(found) == 1, done.stdout
    assert error in found[0]["message"] and (found[0]["path"], found[0]["line"]) == (
        "src/tools.py",
        8 + prelude.count("\n"),
    )
    assert hint in found[0]["hint"] and "dynamically" not in found[0]["hint"]
    assert not (project / "dist").exists()
