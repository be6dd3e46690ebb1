"""``manifest.json`` is assembled from each tool's entry rendered once: byte for byte the whole model's JSON.

A tool's manifest entry is rendered by the manifest's models when its artifacts are made,
and cached with them; the manifest is the rest of the document (made by the same
models) with those texts spliced in.  Whatever the entries hold (text that needs
escaping, line breaks inside strings, nesting, empty lists), the bytes must be the ones
the writer gives the whole document; and the manifest a compile writes must be what the
runtime's models read from it and write again.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import RunSkill, write_project
from hypothesis import given, settings
from hypothesis import strategies as st
from skillc.compiler.emit import json_bytes
from skillc.compiler.json_text import indented_json
from skillc.compiler.manifest_text import manifest_bytes
from skillc.contracts.manifest import Manifest

TEXT = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(["", "\n", '"}', "\\n", "  ,\n  ]"])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=20,
)
ENTRY = st.dictionaries(TEXT, JSON, max_size=6)
#: The manifest without its tools: the keys it always has, and any others.
SKELETON = st.fixed_dictionaries(
    {"format": st.integers(), "agent": JSON, "skills": st.lists(JSON, max_size=3), "tools": st.just([])},
    optional={"warnings": st.lists(JSON, max_size=3), "zz": JSON, "": JSON},
)


@settings(max_examples=300, deadline=None)
@given(skeleton=SKELETON, entries=st.lists(ENTRY, max_size=5))
def test_spliced_tool_entries_give_the_bytes_of_the_whole_document(
    skeleton: dict[str, object], entries: list[dict[str, object]]
) -> None:
    texts = [indented_json(entry, sort_keys=True) for entry in entries]
    assert manifest_bytes(skeleton, texts) == json_bytes({**skeleton, "tools": entries})


TOOLS = '''from pydantic import BaseModel, Field
from skillc import Tool, tool


class QuoteIn(BaseModel):
    """Where a parcel goes: ünïcode, "quotes" and a line\\nbreak."""

    weight_kg: float = Field(gt=0, description="Weight.")


class QuoteOut(BaseModel):
    price: float


class Quote(Tool):
    name = "quote"
    description = 'Quote shipping: {braces}, [brackets], "quotes",\\n two lines.'
    input_schema = QuoteIn
    output_schema = QuoteOut
    strict = True
    timeout = 5

    def execute(self, input, ctx):
        return QuoteOut(price=1.0)


class Ask(Tool):
    name = "ask_user"
    description = "Answered by the client."
    input_schema = QuoteIn
    client = True


@tool
def Ping(text: str) -> str:
    """Echo the text."""
    return text
'''
AGENT = """from skillc import Agent, Skill
from tools import Ask, Ping, Quote


def ready() -> bool:
    return True


agent = Agent(
    name="a",
    persona="Helpful,\\n and \\"exact\\".",
    skills=[
        Skill(name="shop", description="S.", context="Ctx.", tools=[Quote(), Ask()], condition=ready),
        Skill(name="misc", tools=[Ping]),
    ],
)
"""


def test_the_written_manifest_is_what_its_models_read_and_write_again(skill: RunSkill, tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", {"tools.py": TOOLS, "agent.py": AGENT})
    for change in ("", "# one tool changed\n"):
        (project / "src/tools.py").write_text(TOOLS + change, encoding="utf-8")
        result = skill("compile", cwd=project)
        assert result.code == 0, result.stdout + result.stderr
        written = (project / "dist/manifest.json").read_bytes()
        manifest = Manifest.model_validate_json(written)
        assert [tool.name for tool in manifest.tools] == ["quote", "ask_user", "Ping"]
        assert json_bytes(manifest.document()) == written
        assert json.loads(written)["warnings"]  # `Ping` is no conventional tool name: a warning, in the manifest


def test_a_check_renders_no_manifest_entry_and_never_loads_the_manifest_models(skill: RunSkill, tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", {"tools.py": TOOLS, "agent.py": AGENT})
    profiled = {"PYTHONPROFILEIMPORTTIME": "1"}
    checked = skill("compile", "--check", cwd=project, env=profiled)
    assert checked.code == 0, checked.stdout + checked.stderr
    compiled = skill("compile", cwd=project, env=profiled)
    assert compiled.code == 0, compiled.stdout + compiled.stderr
    models = {"skillc.compiler.manifest_text", "skillc.contracts.manifest"}
    assert models <= _imported(compiled.stderr)  # the report is read as it should be
    assert not models & _imported(checked.stderr)


def _imported(report: str) -> set[str]:
    """The modules an ``-X importtime`` report says were imported."""
    return {line.rsplit("|", 1)[-1].strip() for line in report.splitlines() if line.startswith("import time:")}
