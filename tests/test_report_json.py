"""``skill compile --format json``: the report's text, made again for each compile of a watch.

``ReportText`` writes a report as ``json.dumps(report_to_dict(report), indent=2,
ensure_ascii=True)`` would, and keeps the text of each tool for the next report, where it
is used again only for the very same tool object.  Whatever tools the reports hold (text
that needs escaping, line breaks, non-ASCII), whichever of them stay, change, move, come
or go from one report to the next, every text must be that of the whole document.  (That a
watch prints what a compile of its own would is ``test_watch``'s.)
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from helpers import write_project
from hypothesis import given, settings
from hypothesis import strategies as st
from skillc.compiler.api import CompileReport, compile_project
from skillc.compiler.report_json import ReportText, report_to_dict
from skillc.compiler.types import ToolInfo
from test_emit_manifest import TEXT, TOOL_INFO

#: Tools of distinct names.
TOOLS = st.lists(TOOL_INFO, max_size=6, unique_by=lambda tool: tool.name)


def _whole(report: CompileReport) -> str:
    return json.dumps(report_to_dict(report), indent=2, ensure_ascii=True)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> CompileReport:
    """A real report (its configuration, agent, skills, diagnostics and timings), whose tools the tests replace."""
    project = tmp_path_factory.mktemp("report") / "p"
    write_project(
        project,
        {
            "agent.py": '''
from skillc import Agent, Skill, tool

@tool
def echo(text: str) -> str:
    """Say "text" back, as ünïcode."""
    return text

skill = Skill(name="talk", description="Talking.", tools=[echo])
agent = Agent(name="demo", persona="Kind.", skills=[skill])
''',
        },
    )
    report = compile_project(project)
    assert report.ok and [tool.name for tool in report.tools] == ["echo"], report.diagnostics
    return report


@settings(max_examples=150, deadline=None)
@given(first=TOOLS, data=st.data())
def test_each_report_is_the_text_of_the_whole_document(
    compiled: CompileReport, first: list[ToolInfo], data: st.DataObject
) -> None:
    writer = ReportText()
    report = dataclasses.replace(compiled, tools=(*compiled.tools, *first))
    assert writer(report) == _whole(report)
    for _ in range(3):  # the next compiles of a watch: tools kept (the same objects), changed, moved, added, gone
        kept = data.draw(st.lists(st.sampled_from(report.tools), unique_by=id)) if report.tools else []
        changed = [
            dataclasses.replace(tool, description=data.draw(TEXT))
            for tool in data.draw(st.lists(st.sampled_from(kept), unique_by=id) if kept else st.just([]))
        ]
        added = data.draw(TOOLS)
        tools = {tool.name: tool for tool in [*kept, *added]}
        tools.update((tool.name, tool) for tool in changed)
        report = dataclasses.replace(report, tools=tuple(tools.values()))
        assert writer(report) == _whole(report)
