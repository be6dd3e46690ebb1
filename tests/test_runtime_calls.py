"""The call path, end to end: a real compiled project, every kind of result.

``tests/runtime_projects/calls`` is compiled once per module; each test loads its
``dist/`` into a fresh ``Runtime`` (cheap: loading reads the manifest only).
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from runtime_support import compile_case, run
from skillc.runtime import call as call_module
from skillc.runtime.context import ToolContext
from skillc.runtime.loader import Runtime, load_dist
from skillc.runtime.results import ERROR_TYPES, ToolResult


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_case("calls", tmp_path_factory.mktemp("calls"))


@pytest.fixture
def runtime(dist: Path) -> Iterator[Runtime]:
    with load_dist(dist) as loaded:
        yield loaded


def call(runtime: Runtime, name: str, arguments: Any, call_id: str = "c1", **options: Any) -> ToolResult:
    return run(runtime.call(name, arguments, call_id, ToolContext(), **options))


def assert_error(result: ToolResult, error_type: str, *fragments: str) -> None:
    assert result.is_error, result
    assert result.error_type == error_type, result
    for fragment in fragments:
        assert fragment in result.output, result.output


# --- success --------------------------------------------------------------------------


def test_an_async_class_tool_gets_its_validated_input(runtime: Runtime) -> None:
    result = call(runtime, "echo", '{"text": "ab", "times": 2, "items": [{"name": "kettle"}]}')
    assert not result.is_error and result.error_type is None
    assert json.loads(result.output) == {"text": "abab", "items": ["kettle"]}
    assert result.attempts == 1 and result.call_id == "c1" and result.name == "echo"
    assert result.duration_ms >= 0
    assert result.to_dict() == {
        "call_id": "c1",
        "name": "echo",
        "is_error": False,
        "output": result.output,
        "error_type": None,
        "duration_ms": result.duration_ms,
        "attempts": 1,
    }


def test_a_sync_function_tool_takes_a_dict_and_json_bytes(runtime: Runtime) -> None:
    assert call(runtime, "add", {"a": 2, "b": 3}).output == "5"
    assert call(runtime, "add", b'{"a": 1, "b": 1}').output == "2"


def test_a_tool_without_input_schema_gets_the_raw_dict(runtime: Runtime) -> None:
    result = call(runtime, "raw", {"z": 1, "a": [None]})
    assert json.loads(result.output) == {"type": "dict", "keys": ["a", "z"]}
    assert json.loads(call(runtime, "raw", "").output) == {"type": "dict", "keys": []}


def test_the_context_is_the_calls_own(runtime: Runtime) -> None:
    context = ToolContext(environment="production", env={"GREETING": "hello"})
    result = run(runtime.call("ctx_echo", {}, "call-7", context))
    assert json.loads(result.output) == {
        "call_id": "call-7",
        "tool": "ctx_echo",
        "skill": "calls",
        "environment": "production",
        "greeting": "hello",
        "current": True,
    }


def test_results_of_every_common_type_are_serialized(runtime: Runtime) -> None:
    assert json.loads(call(runtime, "rich_types", {}).output) == {
        "when": "2026-12-03",
        "at": "2026-12-03T10:30:00Z",
        "color": "red",
        "tags": ["fragile"],
        "ident": "12345678-1234-5678-1234-567812345678",
        "price": "42.50",
        "receipt": {"order_id": "A1001", "status": "received"},
    }


def test_a_result_is_validated_against_the_output_schema(runtime: Runtime) -> None:
    assert json.loads(call(runtime, "good_output", {"order_id": "A1"}).output) == {
        "order_id": "A1",
        "status": "received",
    }


# --- refusals before anything runs ----------------------------------------------------


def test_an_unknown_tool(runtime: Runtime) -> None:
    assert_error(call(runtime, "nope", {}), "unknown_tool", "'nope'", "echo")
    assert_error(call(runtime, "nope", {}, offered={"add"}), "unknown_tool", "The tools are: add.")


def test_a_tool_not_offered_this_turn(runtime: Runtime) -> None:
    assert_error(call(runtime, "add", {"a": 1, "b": 2}, offered={"echo"}), "not_offered", "'add'")
    assert call(runtime, "add", {"a": 1, "b": 2}, offered={"add"}).output == "3"


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ("{bad", "line 1 column 2"),
        ('{"a": NaN}', "NaN is not valid JSON"),
        ("[" * 100_000, "nested too deeply"),
        (b"\xff\xfe{", "JSON"),
    ],
)
def test_arguments_that_are_not_json(runtime: Runtime, arguments: str | bytes, fragment: str) -> None:
    result = call(runtime, "add", arguments)
    assert_error(result, "invalid_json", fragment)
    assert result.attempts == 0


def test_schema_violations_name_every_field_without_echoing_values(runtime: Runtime) -> None:
    secret = "hunter2-" * 200
    result = call(runtime, "echo", {"text": secret, "times": 9, "items": [{"name": "a", "quantity": 0}, {}]})
    assert_error(
        result,
        "validation",
        "- text: String should have at most 1000 characters",
        "- times: Input should be less than or equal to 5",
        "- items[0].quantity: Input should be greater than or equal to 1",
        "- items[1].name: Field required",
    )
    assert "hunter2" not in result.output
    assert_error(call(runtime, "add", "[1, 2]"), "validation", "must be a JSON object, not an array")
    assert_error(
        call(runtime, "add", {"a": "x"}), "validation", "- a: Input should be a valid integer", "- b: Field required"
    )


def test_validation_errors_are_not_retried(runtime: Runtime) -> None:
    result = call(runtime, "flaky", {})
    assert_error(result, "validation", "key: Field required")
    assert result.attempts == 0


# --- strict tools ---------------------------------------------------------------------


def test_strict_tools_lose_the_nulls_strict_mode_added(runtime: Runtime) -> None:
    arguments = {
        "name": "Ada",
        "middle": None,
        "nickname": None,
        "count": None,
        "address": {"city": "Paris", "zip_code": None, "floor": None},
        "history": [{"city": "Rome", "zip_code": None, "floor": None}],
    }
    result = call(runtime, "strict_tool", json.dumps(arguments))
    assert json.loads(result.output) == {
        "name": "Ada",
        "middle": None,
        "nickname": None,
        "count": 3,
        "address": {"city": "Paris", "zip_code": None, "floor": 0},
        "history": [{"city": "Rome", "zip_code": None, "floor": 0}],
    }
    # A required field keeps its null, and a null optional field still means "default".
    assert (
        json.loads(call(runtime, "strict_tool", {"name": "A", "middle": None, "address": None}).output)["address"]
        is None
    )
    assert_error(call(runtime, "strict_tool", {"name": "A"}), "validation", "middle: Field required")


def test_non_strict_tools_keep_their_nulls(runtime: Runtime) -> None:
    assert_error(
        call(runtime, "echo", {"text": "a", "times": None}), "validation", "times: Input should be a valid integer"
    )


# --- execution ------------------------------------------------------------------------


def test_a_tool_that_raises_is_an_execution_error_after_its_retries(runtime: Runtime) -> None:
    result = call(runtime, "always_fails", {"reason": "disk full"})
    assert_error(result, "execution", "after 2 attempts", "ValueError: it failed: disk full")
    assert result.attempts == 2


def test_the_log_says_where_in_the_tools_code_it_raised(runtime: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    call(runtime, "always_fails", {"reason": "disk full"}, call_id="fails-1")
    assert [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING][-1] == (
        "tool 'always_fails' (call fails-1) raised ValueError: it failed: disk full "
        "(in always_fails, tools.failures, line 12)"
    )


def test_retries_turn_a_flaky_tool_into_a_success(runtime: Runtime) -> None:
    result = call(runtime, "flaky", {"key": "k"}, call_id="flaky-1")
    assert not result.is_error
    assert json.loads(result.output) == {"attempts": 3}
    assert result.attempts == 3


def test_an_idempotent_async_tool_times_out_on_each_attempt(runtime: Runtime) -> None:
    started = time.perf_counter()
    result = call(runtime, "slow_async", {"seconds": 30})
    assert_error(result, "timeout", "within 0.3 s", "after 2 attempts")
    assert result.attempts == 2
    assert time.perf_counter() - started < 3
    assert call(runtime, "slow_async", {"seconds": 0}).output == "awake"


def test_a_sync_tool_times_out_and_its_stuck_thread_does_not_starve_others(dist: Path) -> None:
    async def scenario(runtime: Runtime) -> tuple[list[ToolResult], ToolResult, float]:
        stuck = await asyncio.gather(*(runtime.call("slow_sync", {"seconds": 1.5}, f"s{i}") for i in range(4)))
        started = time.perf_counter()
        quick = await runtime.call("add", {"a": 1, "b": 1}, "after")
        return stuck, quick, time.perf_counter() - started

    with load_dist(dist, workers=2) as runtime:
        stuck, quick, elapsed = run(scenario(runtime))
    for result in stuck:
        assert_error(result, "timeout", "within 0.3 s")
        assert result.attempts == 1
    assert quick.output == "2" and elapsed < 1.0
    assert runtime.pool.written_off >= 4


def test_sys_exit_in_a_tool_is_an_error_result_and_the_process_lives_on(runtime: Runtime) -> None:
    assert_error(call(runtime, "quitter", {"code": 3}), "execution", "sys.exit(3)")
    assert_error(call(runtime, "async_quitter", {"code": 4}), "execution", "sys.exit(4)")
    assert call(runtime, "add", {"a": 1, "b": 2}).output == "3"


def test_what_a_tool_prints_never_reaches_the_callers_streams(
    runtime: Runtime, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="skillc.runtime")

    async def scenario() -> list[ToolResult]:
        print("caller before")
        results = await asyncio.gather(
            *(runtime.call("noisy" if i % 2 else "async_noisy", {"label": f"L{i}"}, f"n{i}") for i in range(20))
        )
        print("caller after")
        return results

    results = run(scenario())
    assert [result.output for result in results] == [f"L{i}" for i in range(20)]
    captured = capfd.readouterr()
    assert "NOISY" not in captured.out + captured.err
    assert captured.out == "caller before\ncaller after\n"
    printed = [record.getMessage() for record in caplog.records if "printed" in record.getMessage()]
    assert any("NOISY-OUT L1" in message and "NOISY-ERR L1" in message for message in printed)
    assert any("NOISY-ASYNC L0" in message and "L1" not in message for message in printed)


def test_the_projects_source_folder_is_never_importable(runtime: Runtime, dist: Path) -> None:
    src = dist.parent / "src"
    assert (src / "secret_helper.py").is_file()
    result = call(runtime, "sneaky", {"module": "secret_helper"})
    assert_error(result, "execution", "ModuleNotFoundError")
    assert not any(Path(entry).resolve() == src.resolve() for entry in sys.path if entry)
    # Nor are the bundle's own modules left in sys.modules for anyone to pick up.
    assert call(runtime, "add", {"a": 0, "b": 0}).output == "0"
    assert not {"tools", "tools.basic", "store", "calls", "secret_helper"} & set(sys.modules)
    assert_error(call(runtime, "sneaky", {"module": "store"}), "execution", "ModuleNotFoundError")


# --- outputs --------------------------------------------------------------------------


def test_a_result_that_does_not_fit_the_output_schema(runtime: Runtime) -> None:
    result = call(runtime, "bad_output", {"order_id": "A1"})
    assert_error(result, "output_validation", "- order_id: Field required")
    assert "do-not-echo" not in result.output
    assert result.attempts == 1


def test_a_result_that_cannot_be_serialized(runtime: Runtime) -> None:
    assert_error(call(runtime, "unserializable", {}), "serialization", "Unable to serialize unknown type")


def test_a_result_larger_than_the_limit(runtime: Runtime, dist: Path) -> None:
    assert_error(call(runtime, "huge", {"size": 1024 * 1024 + 1}), "serialization", "more than the limit of 1 MiB")
    assert len(call(runtime, "huge", {"size": 1024 * 1024}).output) == 1024 * 1024
    with load_dist(dist, max_output_bytes=100) as small:
        assert_error(call(small, "huge", {"size": 101}), "serialization", "101 bytes", "100 bytes")
        assert call(small, "huge", {"size": 100}).output == "x" * 100


# --- approval -------------------------------------------------------------------------


def test_a_tool_that_needs_approval(runtime: Runtime) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    def yes(name: str, arguments: dict[str, Any]) -> bool:
        asked.append((name, arguments))
        return True

    async def async_yes(name: str, arguments: dict[str, Any]) -> bool:
        return True

    def broken(name: str, arguments: dict[str, Any]) -> bool:
        raise RuntimeError("no terminal")

    arguments = {"order_id": "A1"}
    assert_error(call(runtime, "approve_me", arguments), "approval_denied", "approval")
    assert_error(
        call(runtime, "approve_me", arguments, approver=lambda name, args: False), "approval_denied", "declined"
    )
    assert_error(call(runtime, "approve_me", arguments, approver=lambda name, args: "yes"), "approval_denied")
    assert_error(call(runtime, "approve_me", arguments, approver=broken), "approval_denied")
    assert call(runtime, "approve_me", arguments, approver=yes).output == "done A1"
    assert call(runtime, "approve_me", arguments, approver=async_yes).output == "done A1"
    assert asked == [("approve_me", {"order_id": "A1"})]
    # Invalid arguments are refused before anybody is asked.
    assert_error(call(runtime, "approve_me", {}, approver=yes), "validation")
    assert len(asked) == 1


# --- bundles --------------------------------------------------------------------------


def test_a_tampered_or_missing_bundle_refuses_only_that_tool(dist: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(dist, tmp_path / "dist")
    bundle = copy / "tools" / "add" / "bundle.zip"
    bundle.write_bytes(bundle.read_bytes() + b"\0")
    (copy / "tools" / "echo" / "bundle.zip").unlink()
    with load_dist(copy) as runtime:
        tampered = call(runtime, "add", {"a": 1, "b": 2})
        missing = call(runtime, "echo", {"text": "a"})
        assert call(runtime, "raw", {}).is_error is False
        assert runtime.loaded == {"raw"}
    assert_error(tampered, "execution", "does not match the sha256", "skill compile")
    assert_error(missing, "execution", "missing", "tools/echo/bundle.zip")


def test_a_bundle_that_fails_to_import_refuses_only_its_tool(
    runtime: Runtime, capfd: pytest.CaptureFixture[str]
) -> None:
    for _ in range(2):  # a failed import is tried again on the next call
        assert_error(
            call(runtime, "import_fails", {}),
            "execution",
            "importing the bundle of tool 'import_fails' raised RuntimeError: the configuration service is unreachable",
        )
    assert "BROKEN-IMPORT" not in capfd.readouterr().out
    assert call(runtime, "add", {"a": 1, "b": 1}).output == "2"
    assert runtime.loaded == {"add"}


# --- many calls at once, and whatever the model sends ----------------------------------


def test_a_thousand_concurrent_calls_each_get_their_own_result(runtime: Runtime) -> None:
    async def scenario() -> list[ToolResult]:
        calls = []
        for index in range(1000):
            if index % 2:
                calls.append(runtime.call("add", {"a": index, "b": 0}, f"id-{index}"))
            else:
                calls.append(runtime.call("echo", {"text": f"<{index}>"}, f"id-{index}"))
        return await asyncio.gather(*calls)

    started = time.perf_counter()
    results = run(scenario())
    assert time.perf_counter() - started < 20
    for index, result in enumerate(results):
        assert result.call_id == f"id-{index}" and not result.is_error, result
        expected = str(index) if index % 2 else json.dumps({"text": f"<{index}>", "items": []}, separators=(",", ":"))
        assert result.output == expected


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
_FIELDS = st.sampled_from(["text", "times", "items", "name", "middle", "count", "address", "history", "a", "b"])
_ARGUMENTS = st.one_of(
    st.text(max_size=60),
    _JSON.map(json.dumps),
    st.dictionaries(_FIELDS | st.text(max_size=10), _JSON, max_size=6),
    st.dictionaries(_FIELDS, _JSON, max_size=6).map(json.dumps),
    st.binary(max_size=40),
)


@pytest.fixture(scope="module")
def shared_runtime(dist: Path) -> Iterator[Runtime]:
    with load_dist(dist) as loaded:
        yield loaded


@settings(max_examples=150, deadline=None, database=None)
@given(name=st.sampled_from(["echo", "add", "raw", "strict_tool", "nope"]), arguments=_ARGUMENTS)
def test_any_argument_document_gives_a_result_never_an_exception(
    shared_runtime: Runtime, name: str, arguments: Any
) -> None:
    result = call(shared_runtime, name, arguments, call_id="h")
    assert isinstance(result, ToolResult) and result.call_id == "h"
    assert result.error_type in (None, *ERROR_TYPES)
    assert result.error_type in (None, "unknown_tool", "invalid_json", "validation"), result
    if name == "nope":
        assert result.error_type == "unknown_tool"


class _Text(str):
    """A str subclass: serialized by code that may be the tool's, so never plain."""


#: A budget small enough for the examples to reach it (the real one is thousands of items).
_BUDGET = 8


def _plain_by_definition(value: object) -> bool:
    """What ``call._plain`` answers, spelled out: exact JSON types, string keys, few items."""
    sizes: list[int] = []

    def walk(item: object) -> bool:
        if type(item) in (str, int, float, bool, type(None)):
            return True
        if type(item) is dict:
            sizes.append(len(item))
            return all(type(key) is str and walk(inner) for key, inner in item.items())
        if type(item) is list:
            sizes.append(len(item))
            return all(walk(inner) for inner in item)
        return False

    return walk(value) and sum(sizes) <= _BUDGET


_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=3), st.builds(_Text), st.just((1,))
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.text(max_size=2), st.integers(0, 3)), inner, max_size=4),
    ),
    max_leaves=16,
)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_a_sync_result_is_serialized_unguarded_only_when_it_is_plain_json_data(value: object) -> None:
    """Plain data cannot run code while it is serialized; anything else (a str subclass, a
    tuple, a key that is not a str, too many items) goes under the tool's timeout."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(call_module, "_PLAIN_BUDGET", _BUDGET)
        assert call_module._plain(value) is _plain_by_definition(value)


@settings(max_examples=200, deadline=None)
@given(
    call_id=st.text(max_size=8),
    name=st.text(max_size=8),
    output=st.text(max_size=20),
    error_type=st.none() | st.sampled_from(ERROR_TYPES),
    duration_ms=st.floats(min_value=0, allow_nan=False, allow_infinity=False),
    attempts=st.integers(0, 5),
)
def test_the_call_paths_result_is_the_one_the_constructor_makes(
    call_id: str, name: str, output: str, error_type: Any, duration_ms: float, attempts: int
) -> None:
    made = ToolResult.of_call(call_id, name, output, error_type, duration_ms, attempts)
    built = ToolResult(call_id, name, error_type is not None, output, error_type, duration_ms, attempts)
    assert made == built and hash(made) == hash(built) and repr(made) == repr(built)
    assert list(vars(made).items()) == list(vars(built).items())  # the same fields, in the same order
    with pytest.raises(AttributeError):
        made.output = "changed"  # type: ignore[misc] # frozen, as one from the constructor
