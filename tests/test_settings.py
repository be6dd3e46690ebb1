"""The table of tool settings is the one source: the SDK, the compiler and the manifest all follow it.

For every row, a value is accepted by the compiler exactly when the SDK accepts it, and
a refused value gets the same words from both; the manifest carries every row and reads
back what the compiler wrote.
"""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest
from helpers import write_project
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skillc import Tool, ToolDefinitionError, ToolFlag
from skillc.compiler.api import compile_project
from skillc.contracts.manifest import Manifest
from skillc.contracts.settings import SETTINGS, TIMEOUT, InvalidSetting, SettingValues, ToolSettings
from skillc.contracts.spec import MANIFEST


def _run(input: object, ctx: object) -> str:
    return "ok"


def test_every_row_is_a_keyword_of_tool_and_a_class_attribute_with_its_default() -> None:
    hints = typing.get_type_hints(ToolSettings)
    assert list(hints) == [setting.name for setting in SETTINGS]
    for setting in SETTINGS:
        assert setting.plain(getattr(Tool, setting.name)) == setting.default
    assert Tool.voice is ToolFlag.NONE and dict(Tool.metadata) == {}


def test_an_unknown_keyword_is_refused_like_any_python_function() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'timeoutt'"):
        Tool(name="ok", execute=_run, timeoutt=3)  # type: ignore[call-arg]


def test_plain_values_round_trip_and_defaults_fill_in() -> None:
    values = SettingValues.read({"timeout": 5, "voice": ToolFlag.DISALLOW_INTERRUPTION | ToolFlag.IGNORE_ON_ENTER})
    assert values[TIMEOUT] == 5.0 and isinstance(values[TIMEOUT], float)
    assert values.to_json()["voice"] == ["disallow_interruption", "ignore_on_enter"]
    assert SettingValues.read(values.to_json()) == values
    assert [setting.name for setting, _ in values.changed()] == ["timeout", "voice"]
    with pytest.raises(InvalidSetting, match="^retries must be a whole number >= 0$"):
        SettingValues.read({"retries": -1})


#: Literal values as a tool's author might write them, right or wrong.
_LITERALS = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-3, max_value=10**6)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(alphabet="abc_", max_size=4),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(alphabet="ab", max_size=2), inner, max_size=2),
    max_leaves=4,
)


def _has_code(name: str, value: object) -> bool:
    """Whether the probe tool has an execute: a client-side one (``client=True``) must not, so only
    the literal's own verdict is compared."""
    return not (name == "client" and value is True)


def _sdk_verdict(name: str, value: object) -> str | None:
    code = {"execute": _run} if _has_code(name, value) else {}
    try:
        Tool(name="probe", description="d", **code, **{name: value})  # type: ignore[arg-type, misc]
    except ToolDefinitionError as error:
        return str(error).removeprefix("tool 'probe': ")
    return None


def _compiler_verdict(root: Path, name: str, value: object) -> str | None:
    source = (
        "from skillc import Agent, Skill, Tool\n"
        "\n"
        "def run(input, ctx):\n"
        "    return 'ok'\n"
        "\n"
        f'probe = Tool(name="probe", description="d", {"execute=run, " if _has_code(name, value) else ""}{name}={value!r})\n'
        'agent = Agent(name="a", skills=[Skill(name="s", tools=[probe])])\n'
    )
    write_project(root, {"agent.py": source})
    report = compile_project(root, emit=False, use_cache=False)
    found = [item for item in report.diagnostics if item.code == "skill/invalid-setting"]
    assert len(found) <= 1
    if not found:
        assert report.errors == 0, [item.message for item in report.diagnostics]
        return None
    assert (found[0].line, found[0].path) == (6, "src/agent.py")
    return found[0].message.rsplit(", not ", 1)[0]


@pytest.mark.parametrize("setting", [setting.name for setting in SETTINGS])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=_LITERALS)
def test_the_compiler_accepts_a_literal_exactly_when_the_sdk_does(tmp_path: Path, setting: str, value: Any) -> None:
    assert _compiler_verdict(tmp_path, setting, value) == _sdk_verdict(setting, value)


def test_flag_settings_are_read_from_members_combined_with_a_bar(tmp_path: Path) -> None:
    source = (
        "from skillc import Agent, Skill, Tool, ToolFlag\n"
        "\n"
        "def run(input, ctx):\n"
        "    return 'ok'\n"
        "\n"
        "probe = Tool(name='probe', description='d', execute=run,\n"
        "             voice=ToolFlag.IGNORE_ON_ENTER | ToolFlag.DISALLOW_INTERRUPTION, timeout=5)\n"
        "agent = Agent(name='a', skills=[Skill(name='s', tools=[probe])])\n"
    )
    write_project(tmp_path, {"agent.py": source})
    report = compile_project(tmp_path)
    assert report.errors == 0
    entry = json.loads((tmp_path / "dist" / MANIFEST).read_text())["tools"][0]
    assert entry["voice"] == ["disallow_interruption", "ignore_on_enter"] and entry["timeout"] == 5.0


def test_the_manifest_reads_back_every_key_the_compiler_writes(tmp_path: Path) -> None:
    source = (
        "from skillc import Agent, Skill, tool\n"
        "\n"
        "@tool(needs_approval=True, retries=2, metadata={'team': 'ops'})\n"
        "def ping(text: str) -> str:\n"
        '    """Echo the text."""\n'
        "    return text\n"
        "\n"
        "def ready() -> bool:\n"
        "    return True\n"
        "\n"
        'agent = Agent(name="a", skills=[Skill(name="s", tools=[ping], condition=ready)])\n'
    )
    write_project(tmp_path, {"agent.py": source})
    assert compile_project(tmp_path).errors == 0
    document = json.loads((tmp_path / "dist" / MANIFEST).read_text())
    # extra keys are ignored when reading: a key written but not modelled would be lost here
    assert Manifest.model_validate(document).document() == document
    tool = document["tools"][0]
    assert {setting.name for setting in SETTINGS} <= set(tool)
    assert (tool["needs_approval"], tool["retries"], tool["metadata"]) == (True, 2, {"team": "ops"})


def _readme_table() -> str:
    rows = ["| setting | default | what it does |", "|---|---|---|"]
    for setting in SETTINGS:
        default = f"{setting.flags.__name__}.NONE" if setting.flags is not None else repr(setting.default)
        rows.append(f"| `{setting.name}` | `{default}` | {setting.doc.replace('|', chr(92) + '|')} |")
    return "\n".join(rows)


def test_the_readme_lists_every_setting_as_the_table_defines_it() -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    assert _readme_table() in readme, (
        "README.md's table of settings differs from contracts/settings.py:\n" + _readme_table()
    )
