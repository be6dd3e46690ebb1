"""``skill test`` through real subprocesses: output, exit codes, conditions, approval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import RunSkill
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skillc.cli import main as cli_main
from skillc.templates import scaffold_project


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    scaffold_project(Path("demo"), cwd=tmp_path)
    return tmp_path / "demo"


def test_success_prints_the_tool_input_type_fields_and_output(skill: RunSkill, demo: Path) -> None:
    result = skill("test", "--name", "lookup_order", "--input", '{"order_id": "A1001"}', cwd=demo)
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Tool: lookup_order (skill orders)"
    assert lines[1] == 'Input: {"order_id": "A1001"}'
    assert lines[2].startswith("Tool execution successful (") and lines[2].endswith("ms, 1 attempt)")
    assert lines[3] == "Result: object with 4 fields: order_id, status, total_eur, delivery_date"
    assert json.loads("\n".join(lines[4:])) == {
        "order_id": "A1001",
        "status": "shipped",
        "total_eur": 42.5,
        "delivery_date": "2026-12-03",
    }
    assert (demo / "dist/manifest.json").is_file()  # compiled first, since dist/ was missing


def test_a_validation_error_exits_1_with_the_message_the_model_gets(skill: RunSkill, demo: Path) -> None:
    result = skill("test", "--name", "lookup_order", "--input", '{"order_id": "secret-value"}', cwd=demo)
    assert result.code == 1
    assert "Tool execution failed: validation" in result.stdout
    assert "- order_id: String should match pattern '^A\\d{4}$'" in result.stdout
    assert "secret-value" not in result.stdout.split("Input:")[1].split("\n", 1)[1]


def test_a_tool_that_raises_never_exits_0(skill: RunSkill, demo: Path) -> None:
    result = skill("test", "--name", "lookup_order", "--input", '{"order_id": "A9999"}', "--json", cwd=demo)
    assert result.code == 1
    document = json.loads(result.stdout)
    assert (document["is_error"], document["error_type"], document["attempts"]) == (True, "execution", 1)
    assert "There is no order A9999." in document["output"]
    assert set(document) == {"call_id", "name", "is_error", "output", "error_type", "duration_ms", "attempts"}


def test_approval_is_refused_unless_given(skill: RunSkill, demo: Path) -> None:
    refused = skill("test", "--name", "cancel_order", "--input", '{"order_id": "A1002"}', cwd=demo)
    assert refused.code == 1 and "approval_denied" in refused.stdout
    assert "pass --approve to approve it" in refused.stdout
    approved = skill(
        "test", "--name", "cancel_order", "--input", '{"order_id": "A1002"}', "--approve", "--json", cwd=demo
    )
    assert approved.code == 0
    assert json.loads(json.loads(approved.stdout)["output"])["status"] == "cancelled"


def test_a_condition_that_hides_the_tool_is_reported_and_can_be_skipped(skill: RunSkill, demo: Path) -> None:
    (demo / ".env.production").write_text("SHIPPING_QUOTES=off\n")
    arguments = '{"destination": "eu", "weight_kg": 2}'
    hidden = skill("test", "--name", "shipping_quote", "--input", arguments, "-e", "production", cwd=demo)
    assert hidden.code == 1
    assert "Not run: the tool is hidden this turn: its condition() returned False" in hidden.stdout
    sandbox = skill("test", "--name", "shipping_quote", "--input", arguments, cwd=demo)
    assert sandbox.code == 0  # .env.production does not apply to the sandbox
    skipped = skill(
        "test", "--name", "shipping_quote", "--input", arguments, "-e", "production", "--skip-condition", cwd=demo
    )
    assert skipped.code == 0 and "Tool execution successful" in skipped.stdout


def test_no_such_tool_exits_3_listing_the_tools(skill: RunSkill, demo: Path) -> None:
    result = skill("test", "--name", "lookup", "--input", "{}", cwd=demo)
    assert result.code == 3
    assert result.stderr == "error: no tool 'lookup'; the tools are: lookup_order, cancel_order, shipping_quote\n"


def test_input_that_is_not_json_is_a_usage_error(skill: RunSkill, demo: Path) -> None:
    result = skill("test", "--name", "lookup_order", "--input", "{order_id: A1001}", cwd=demo)
    assert result.code == 2
    assert result.stderr.startswith("error: --input is not JSON: Expecting property name enclosed in double quotes")
    assert not (demo / "dist").exists()  # refused before compiling anything


def test_without_a_name_it_lists_the_tools(skill: RunSkill, demo: Path) -> None:
    result = skill("test", cwd=demo)
    assert result.code == 0
    rows = [line.rstrip().split(None, 2) for line in result.stdout.splitlines()[1:4]]
    assert rows == [
        ["lookup_order", "orders", "Look up an order's status, total and delivery date by its id."],
        ["cancel_order", "orders", "Cancel an order that has not shipped yet."],
        ["shipping_quote", "orders", "Quote the price of shipping a parcel."],
    ]


def test_a_project_that_does_not_compile_exits_1(skill: RunSkill, demo: Path) -> None:
    (demo / "src/agent.py").write_text("from skillc import Agent\nagent = Agent(name='x', skills=[missing])\n")
    result = skill("test", "--name", "lookup_order", "--input", "{}", cwd=demo)
    assert result.code == 1
    assert "error: the project does not compile; fix the errors above first" in result.stderr


def test_the_report_of_a_failed_compile_is_not_cut_to_80_columns_on_a_pipe(skill: RunSkill, demo: Path) -> None:
    """Piped, standard error gets each tool's row on one line, as standard output does (no terminal, no width)."""
    (demo / "src/broken.py").write_text("def f(:\n    pass\n")
    # No COLUMNS (the tests' own default is 200): rich would take 80 for a stream that is no terminal.
    result = skill("test", "--name", "lookup_order", "--input", "{}", cwd=demo, env={"COLUMNS": ""})
    assert result.code == 1
    rows = {
        line.split()[0]: line.rstrip() for line in result.stderr.splitlines() if line.startswith(("cancel", "lookup"))
    }
    assert rows["cancel_order"].endswith("src/skills/tools/cancel_order.py:14    timeout 60s, needs approval")
    assert rows["lookup_order"].endswith("src/skills/tools/lookup_order.py:18    timeout 10s, async")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    scaffold_project(Path("demo"), cwd=root)
    assert cli_main.run(["compile", str(root / "demo")]) == 0
    return root / "demo"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=json_values.map(json.dumps) | st.text(max_size=40))
def test_any_input_gives_an_exit_code_never_a_traceback(
    compiled: Path, capsys: pytest.CaptureFixture[str], document: str
) -> None:
    code = cli_main.run(["test", "--name", "lookup_order", "--input", document, "--json", str(compiled)])
    captured = capsys.readouterr()
    assert code in (0, 1, 2)
    assert "Traceback" not in captured.out + captured.err
    if code != 2:
        assert json.loads(captured.out)["name"] == "lookup_order"


def test_the_warnings_of_the_compile_it_runs_come_first_on_stderr(skill: RunSkill, demo: Path) -> None:
    """A stale ``dist/`` is compiled first: its warnings (here, a variable the module reads by key
    at import) are shown before the call they predict fails; an up-to-date one shows none."""
    lookup = demo / "src" / "skills" / "tools" / "lookup_order.py"
    source = lookup.read_text() + '\nimport os\n\nREGION = os.environ["SKILLC_TEST_REGION"]\n'
    lookup.write_text(source)
    line = source.count("\n")
    first = skill("test", "--name", "lookup_order", "--input", '{"order_id": "A1001"}', "--json", cwd=demo)
    assert first.code == 1, first.stdout + first.stderr
    assert first.stderr.splitlines()[:3] == [
        f"src/skills/tools/lookup_order.py:{line}:10: warning[skill/environment-at-import] "
        "os.environ['SKILLC_TEST_REGION'] is read when the module is imported: where the variable is not set, the "
        "import raises KeyError, and every tool whose bundle holds the module fails to load, whatever it is called "
        "with",
        '    REGION = os.environ["SKILLC_TEST_REGION"]',
        "             ^",
    ]
    assert "KeyError: 'SKILLC_TEST_REGION'" in json.loads(first.stdout)["output"]
    again = skill("test", "--name", "lookup_order", "--input", '{"order_id": "A1001"}', "--json", cwd=demo)
    assert again.code == 1
    assert "warning[" not in again.stderr
