"""``manifest.json`` is assembled from each tool's entry rendered once: byte for byte the whole model's JSON.

A tool's manifest entry is rendered (``manifest_text``, without pydantic) when its
artifacts are made, and cached with them; the manifest is the rest of the document with
those texts spliced in.  Whatever the entries hold (text that needs escaping, line breaks
inside strings, nesting, empty lists), the bytes must be the ones the writer gives the
whole document; every entry and every manifest written must be what the runtime's models
(``contracts.manifest``) read and render again.  Text an earlier compile rendered, reused
where only a digest changed (``manifest_reuse``), must be the text rendered for the new
digest, and no compile needs the models, nor pydantic, at all.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers import RunSkill, write_project
from hypothesis import given, settings
from hypothesis import strategies as st
from skillc.compiler.emit import json_bytes
from skillc.compiler.json_text import indented_json
from skillc.compiler.manifest_reuse import Skeleton, manifest_bytes, manifest_entry, retargeted, reused_skeleton
from skillc.compiler.manifest_text import manifest_skeleton, tool_entry_json
from skillc.compiler.types import AgentInfo, Diagnostic, Severity, SkillInfo, Source, ToolInfo
from skillc.contracts.manifest import Manifest, ToolEntry
from skillc.contracts.settings import CLIENT, SettingValues

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
    texts = [manifest_entry(indented_json(entry, sort_keys=True)) for entry in entries]
    assert manifest_bytes(skeleton, texts) == json_bytes({**skeleton, "tools": entries})


NAME = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
SOURCE = st.builds(Source, st.sampled_from(["src/tools.py", "src/a b/ü.py"]), st.integers(1, 999), st.integers(0, 80))
TOOL_INFO = st.builds(
    ToolInfo,
    name=NAME,
    skill=NAME,
    form=st.sampled_from(["class", "function", "object"]),
    description=TEXT,
    module=st.sampled_from(["tools", "pkg.tools"]),
    qualname=st.sampled_from(["Quote", "Outer.Inner"]),
    source=SOURCE,
    settings=st.fixed_dictionaries({}, optional={"client": st.booleans(), "timeout": st.integers(1, 600)}).map(
        SettingValues.read
    ),
    has_condition=st.booleans(),
    input_model=st.none(),
    output_model=st.none(),
    is_async=st.booleans(),
)
ARCHIVE = st.binary(min_size=1, max_size=64)
#: What a tool's manifest entry is rendered from.
ENTRY_INPUTS = {
    "info": TOOL_INFO,
    "archives": st.tuples(ARCHIVE, ARCHIVE),
    "requirements": st.lists(st.sampled_from(["httpx>=0.27", "pydantic>=2", 'a; extra == "b"']), max_size=2),
    "has_output": st.booleans(),
}


@settings(max_examples=200, deadline=None)
@given(**ENTRY_INPUTS)
def test_an_entry_written_is_what_the_models_read_and_render_again(
    info: ToolInfo, archives: tuple[bytes, bytes], requirements: list[str], has_output: bool
) -> None:
    archive = archives[0] if not info.settings[CLIENT] else b""
    text = tool_entry_json(info, archive, "entry_mod", tuple(requirements), has_output)
    entry = ToolEntry.model_validate(json.loads(text))
    assert (entry.name, entry.settings, entry.requirements) == (info.name, info.settings, tuple(requirements))
    assert indented_json(entry.model_dump(mode="json", by_alias=True), sort_keys=True) == text


@settings(max_examples=200, deadline=None)
@given(**ENTRY_INPUTS)
def test_an_entry_reused_for_another_archive_is_the_entry_rendered_for_it(
    info: ToolInfo, archives: tuple[bytes, bytes], requirements: list[str], has_output: bool
) -> None:
    old, new = archives if not info.settings[CLIENT] else (b"", b"")  # a client tool has no archive
    rendered = [tool_entry_json(info, archive, "entry_mod", tuple(requirements), has_output) for archive in (old, new)]
    assert retargeted(rendered[0], old, new) == rendered[1]


WARNING = st.builds(
    Diagnostic,
    code=st.sampled_from(["skill/tool-name", "skill/x"]),
    severity=st.just(Severity.WARNING),
    message=TEXT,
    path=st.sampled_from(["src/tools.py", "pyproject.toml"]),
    line=st.integers(1, 99),
    col=st.integers(0, 9),
)


@settings(max_examples=100, deadline=None)
@given(
    persona=TEXT,
    skills=st.lists(st.tuples(NAME, TEXT, st.none() | ARCHIVE), max_size=3),
    warnings=st.lists(WARNING, max_size=2),
    digests=st.tuples(TEXT, TEXT),
)
def test_a_skeleton_reused_for_other_sources_is_the_skeleton_made_for_them(
    persona: str, skills: list[tuple[str, str, bytes | None]], warnings: list[Diagnostic], digests: tuple[str, str]
) -> None:
    source = Source("src/agent.py", 3, 0)
    agent = AgentInfo("a", persona, tuple(name for name, _, _ in skills), "agent", "agent", source)
    conditions = [
        (SkillInfo(name, text, "", (), archive is not None, "s", "skill", source), archive, "cond" if archive else None)
        for name, text, archive in skills
    ]
    later = [(info, archive + b"'" if archive else None, entry) for info, archive, entry in conditions]
    made = [
        manifest_skeleton(agent, given, warnings, digest)
        for given, digest in ((conditions, digests[0]), (later, digests[1]))
    ]
    for document in made:  # what the runtime's models read, and render again
        assert Manifest.model_validate(document).document() == document
    archives = [archive for _, archive, _ in later]
    assert reused_skeleton(Skeleton("k", made[0]), "k", digests[1], archives) == made[1]
    assert reused_skeleton(Skeleton("other", made[0]), "k", digests[1], archives) is None


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


def test_no_compile_loads_the_manifest_models_nor_pydantic(skill: RunSkill, tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", {"tools.py": TOOLS, "agent.py": AGENT})
    profiled = {"PYTHONPROFILEIMPORTTIME": "1"}
    checked = skill("compile", "--check", cwd=project, env=profiled)
    assert checked.code == 0, checked.stdout + checked.stderr
    compiled = skill("compile", cwd=project, env=profiled)
    assert compiled.code == 0, compiled.stdout + compiled.stderr
    assert "skillc.compiler.manifest_text" in _imported(compiled.stderr)  # the report is read as it should be
    models = {"skillc.contracts.manifest", "pydantic"}
    assert not models & _imported(checked.stderr)
    assert not models & _imported(compiled.stderr)


def test_after_each_edit_the_manifest_is_a_fresh_compiles(skill: RunSkill, tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", {"tools.py": TOOLS, "agent.py": AGENT})
    fresh = write_project(tmp_path / "fresh", {"tools.py": TOOLS, "agent.py": AGENT})
    edits = [
        ("return QuoteOut(price=1.0)", "return QuoteOut(price=2.0)"),  # code: reused with the new digests
        ('name = "quote"', 'name = "quote_parcel"'),  # what the entry says: rendered again
        ("return text", "return text.strip()"),
    ]
    source = TOOLS
    assert skill("compile", cwd=project).code == 0
    for before, after in edits:
        source = source.replace(before, after)
        for folder in (project, fresh):
            (folder / "src/tools.py").write_text(source, encoding="utf-8")
        compiled = skill("compile", cwd=project)
        assert compiled.code == 0, compiled.stdout + compiled.stderr
        shutil.rmtree(fresh / ".skill", ignore_errors=True)
        shutil.rmtree(fresh / "dist", ignore_errors=True)
        assert skill("compile", cwd=fresh).code == 0
        for path in sorted((fresh / "dist").rglob("*")):
            if path.is_file():
                relative = path.relative_to(fresh / "dist")
                assert (project / "dist" / relative).read_bytes() == path.read_bytes(), relative


def _imported(report: str) -> set[str]:
    """The modules an ``-X importtime`` report says were imported."""
    return {line.rsplit("|", 1)[-1].strip() for line in report.splitlines() if line.startswith("import time:")}
