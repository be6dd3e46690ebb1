"""``skill test``: run one tool from its compiled bundle, as a model's call would run it.

The project is compiled first when ``dist/`` is stale (the compile is a no-op when it
is current), then the tool runs through the runtime's one call path, condition
included unless ``--skip-condition``.  Exit codes: 0 success, 1 an error result (or a
project that does not compile), 2 usage, 3 no such tool.

A client-side tool's result comes from the caller: ``--result JSON`` gives it, and it is
checked against the tool's output schema as the model's call would check it.

``--state`` gives the call's ``ctx.state`` (a JSON object); what the state holds after
the call is shown (``"state"`` in the ``--json`` object) whenever it holds anything or
``--state`` was given.  The command's own JSON is written with skillc's own encoder, so a
tool that patches the ``json`` module does not change it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..contracts.errors import UsageError
from ..contracts.settings import CLIENT, NEEDS_APPROVAL
from ..project import approve_all
from ..runtime.arguments import decode_json
from ..runtime.compaction import ModelView, compacts, uncompacted_view
from ..runtime.context import Environment, StateError, ToolState
from ..runtime.loader import Runtime
from ..runtime.ownjson import read_json, write_json
from ..runtime.results import ToolResult
from .consoles import out_stream, runtime_log, shown, stderr, stdout
from .event_loop import CommandRunner
from .flags import json_object_flag
from .lifetime import keep_until_exit, watch_for_missed_signals
from .opening import open_for_command

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["EXIT_NO_SUCH_TOOL", "run_test_command"]

EXIT_NO_SUCH_TOOL = 3


def _write_line(text: str) -> None:
    """One line on the command's own standard output (which a tool closing ``sys.stdout`` leaves open)."""
    stream = out_stream()
    stream.write(text + "\n")
    stream.flush()


CALL_ID = "skill-test"


def _arguments(text: str | None) -> str:
    """The ``--input`` text, checked to be JSON (a usage error otherwise)."""
    if text is None:
        return "{}"
    try:
        decode_json(text)
    except ValueError as error:  # malformed, NaN or infinite, huge integers, nesting too deep
        raise UsageError(
            f"--input is not JSON: {error}",
            hint="""pass the tool's arguments as a JSON object, e.g. --input '{"order_id": "A1001"}'""",
        ) from None
    return text


def _result(text: str | None) -> Any:
    """The ``--result`` JSON value (a usage error when it is not JSON)."""
    if text is None:
        return None
    try:
        return decode_json(text)
    except ValueError as error:
        raise UsageError(
            f"--result is not JSON: {error}",
            hint="""give the client-side tool's result as JSON, e.g. --result '{"latitude": 48.86}' or --result '"red"'""",
        ) from None


def _state(text: str | None) -> ToolState:
    """The ``--state`` object as the call's ``ctx.state``; a usage error if a state cannot hold it."""
    try:
        return ToolState(json_object_flag("--state", text))
    except StateError as error:
        raise UsageError(f"--state cannot be a tool's state: {error}") from None


def _describe(value: Any) -> str:
    """The shape of a result, in words: its JSON type and, for an object, its fields."""
    if isinstance(value, dict):
        return f"object with {len(value)} field{'s' if len(value) != 1 else ''}" + (
            f": {', '.join(value)}" if value else ""
        )
    if isinstance(value, list):
        return f"array of {len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"


def run_test_command(
    project: Path,
    name: str | None,
    input_text: str | None,
    *,
    as_json: bool,
    environment: str,
    skip_condition: bool,
    approve: bool,
    user: str | None = None,
    session: str | None = None,
    state: str | None = None,
    result_text: str | None = None,
    debug: bool = False,
) -> int:
    """Compile if needed, then list the tools or run one; print it and return the exit code.

    A compile run now shows its warnings on stderr first (an up-to-date ``dist/`` shows none:
    ``skill compile`` shows them again).

    ``user``, ``session`` and ``state`` (JSON objects) become the call's ``ctx.user``,
    ``ctx.session`` and ``ctx.state``; ``result_text`` (JSON) is a client-side tool's result.
    """
    arguments = _arguments(input_text)
    given = _result(result_text)
    user_data, session_data = json_object_flag("--user", user), json_object_flag("--session", session)
    tool_state = _state(state)
    opened = open_for_command(project, cast(Environment, environment))
    keep_until_exit()  # loaded, and no tool code has run yet: collected as usual from here
    # Once compiled (a compile may fork): a tool may wait a minute, and a stop must not wait with it.
    watch_for_missed_signals()
    with opened:
        if name is None:
            return _list_tools(stdout(), opened.runtime)
        entry = opened.runtime.tool_entry(name)
        if entry is None:
            known = ", ".join(opened.runtime.tool_names) or "none"
            stderr().print(f"[bold red]error:[/] no tool {shown(repr(name))}; the tools are: {shown(known)}")
            return EXIT_NO_SUCH_TOOL
        if entry.settings[CLIENT] and result_text is None:
            raise UsageError(
                f"tool {name!r} is client-side: its result comes from the caller, so give it with --result JSON",
                hint=f"""e.g. skill test --name {name} --input '{{...}}' --result '{{...}}' (checked against its output schema)""",
            )
        if not entry.settings[CLIENT] and result_text is not None:
            raise UsageError(
                f"--result is for client-side tools; tool {name!r} runs its own execute", hint="leave out --result"
            )
        context = opened.context(call_id=CALL_ID, tool=name, user=user_data, session=session_data, state=tool_state)
        approver = approve_all if approve else None
        with runtime_log(debug=debug), CommandRunner() as runner:
            called = runner.run(
                opened.call(
                    name,
                    arguments,
                    context,
                    check_condition=not skip_condition,
                    own_conditions_only=True,  # a slow condition of another tool does not delay this one
                    approver=approver,
                    client=(lambda tool, arguments: given) if entry.settings[CLIENT] else None,
                )
            )
    if called.hidden is not None:
        if as_json:
            _write_line(write_json({"name": name, "offered": False, "reason": called.hidden}))
        else:
            out = stdout()
            out.print(f"Tool: {shown(name)} (skill {shown(entry.skill)})")
            out.print(
                f"[bold yellow]Not run:[/] the tool is hidden this turn: {shown(called.hidden)}\n"
                "Pass --skip-condition to run it anyway."
            )
        return 1
    result = called.result
    after = tool_state.to_dict() if tool_state or state is not None else None
    view = uncompacted_view(result.output, entry.settings, is_error=result.is_error)
    compact = compacts(result.output, entry.settings, is_error=result.is_error)
    if as_json:
        document = result.to_dict()
        if view.how:
            document["model_output"] = view.text
        if compact is not None:
            document["compacted_by"] = compact["model"] or "the chat model"
        if after is not None:
            document["state"] = after
        _write_line(write_json(document))
    else:
        out = stdout()
        _print_result(
            out, name, arguments, entry.skill, result, needs_approval=entry.settings[NEEDS_APPROVAL] is not False
        )
        if entry.settings[CLIENT] and not result.is_error:
            out.print("[dim]A client-side tool: the result is --result, as the model would receive it.[/]")
        _print_model_view(out, result, view, compact)
        if after is not None:
            out.print(f"State after the call: {shown(write_json(after, ensure_ascii=False))}")
    return 1 if result.is_error else 0


def _list_tools(out: Console, runtime: Runtime) -> int:
    from rich.table import Table  # only the listing draws a table

    table = Table(box=None, show_edge=False, pad_edge=False, header_style="bold")
    for column in ("tool", "skill", "description"):
        table.add_column(column, no_wrap=column != "description")
    for name in runtime.tool_names:
        entry = runtime.tool_entry(name)
        assert entry is not None
        summary = (entry.description.strip().splitlines() or [""])[0]
        table.add_row(shown(name), shown(entry.skill), shown(summary))
    out.print(table)
    out.print(f"\n{len(runtime.tool_names)} tools. Run one with: skill test --name TOOL --input JSON")
    return 0


def _print_model_view(out: Console, result: ToolResult, view: ModelView, compact: Mapping[str, Any] | None) -> None:
    """Say what the model would receive when it is not the whole result shown above."""
    total = len(result.output)
    if compact is not None:
        by = compact["model"] or "the chat model"
        out.print(
            f"[bold]In skill chat[/] this result ({total} characters, compact from {compact['threshold']}) is "
            f"compacted by {by} before the model sees it; without a model to compact it, the model receives "
            + ("it as it is." if not view.how else f"{len(view.text)} of its characters:")
        )
    elif view.how:
        out.print(
            f"[bold]The model receives[/] {len(view.text)} of these {total} characters (max_output_chars), "
            "the head and tail:"
        )
    if view.how:
        out.print(shown(view.text))


def _print_result(
    out: Console, name: str, arguments: str, skill: str, result: ToolResult, *, needs_approval: bool
) -> None:
    attempts = f"{result.attempts} attempt{'s' if result.attempts != 1 else ''}"
    out.print(f"Tool: {shown(name)} (skill {shown(skill)})")
    out.print(f"Input: {shown(arguments)}")
    if result.is_error:
        out.print(f"[bold red]Tool execution failed:[/] {result.error_type} ({result.duration_ms:.0f} ms, {attempts})")
        out.print("The model receives:")
        out.print(shown(result.output))
        if result.error_type == "approval_denied" and needs_approval:
            out.print("[dim]This tool needs approval: pass --approve to approve it.[/]")
        return
    out.print(f"[bold green]Tool execution successful[/] ({result.duration_ms:.0f} ms, {attempts})")
    try:  # skillc's own decoder and encoder: tool code may have patched the json module
        value = read_json(result.output)
        pretty = write_json(value, indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):  # not JSON (NaN and infinities neither), too deep, too large
        out.print("Result: text")
        out.print(shown(result.output))
        return
    out.print(f"Result: {_describe(value)}")
    out.print(shown(pretty))
