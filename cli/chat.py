"""``skill chat``: talk to the agent through a model, its tool calls run as they come.

The project is compiled first when ``dist/`` is stale.  With ``-m``, one message is sent,
the answer printed on stdout (the tool calls and results on stderr), and the exit code
says how it went: 0 answered, 1 the model endpoint failed or the step bound ended the
turn (or the project does not compile), 2 usage.  Without ``-m``, an interactive session
(line editing and history through ``readline`` on a terminal) shows each tool call and
result as it happens and ends on ``/exit`` or end of input; a model failure there is
reported and the session goes on.

Approval of a ``needs_approval`` tool is asked at a ``[y/N]`` prompt in a session (``e``
approves it with arguments the person edits); with
``-m`` nobody is there to ask, so such calls are refused unless ``--approve`` is given
(which approves every one, in a session too).

Every call and condition of the conversation shares one ``ctx.state``; with ``--thread``
it is kept in the thread file after each turn and given back when the thread goes on.

A client-side tool's result comes from the user: a session shows the call with its
validated arguments and asks for it; ``--client-results FILE`` gives the results in
advance (``client_results``), in a session too; with ``-m`` and no file, such a call is an
error result the model reads, and the run says how to give one.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import Final, cast

from rich.console import Console
from rich.live import Live

from ..contracts.errors import UsageError
from ..contracts.settings import CLIENT, VOICE, SettingValues, ToolFlag
from ..project import approve_all
from ..runtime.agent import AgentLoop, chat_config
from ..runtime.call import Approver
from ..runtime.client import ClientHandler
from ..runtime.compaction import Compactor
from ..runtime.context import Environment
from ..runtime.loader import Runtime
from ..runtime.models import Message, Model, ModelError, Reply, ToolCall
from ..runtime.offline import OfflineModel
from ..runtime.providers import open_model
from ..runtime.results import ToolResult
from ..runtime.threads import Thread, check_thread_id, load_thread, save_thread, thread_path
from .client_results import read_client_results, results_handler
from .consoles import runtime_log, shown, stderr, stdout, visible
from .event_loop import CommandRunner
from .flags import json_object_flag
from .lifetime import terminated_by, watch_for_missed_signals
from .opening import open_for_command
from .prompts import SHOWN_ARGUMENTS, Prompter, approval_asker, client_asker, shorten

__all__ = ["ChatView", "run_chat_command"]

EXIT_FAILED: Final = 1
#: A tool result is shown up to this many characters and lines; the model gets all of it.
_SHOWN_CHARS: Final = 1500
_SHOWN_LINES: Final = 20
_EXIT_COMMANDS: Final = frozenset({"/exit", "/quit"})
_DISALLOW_INTERRUPTION: Final = str(ToolFlag.DISALLOW_INTERRUPTION.name).lower()


def _shown_output(text: str) -> str:
    lines = shorten(text, _SHOWN_CHARS).splitlines() or [""]
    if len(lines) > _SHOWN_LINES:
        lines = [*lines[:_SHOWN_LINES], f"... ({len(lines) - _SHOWN_LINES} more lines)"]
    return "\n   ".join(lines)


class ChatView:
    """Shows a turn as it happens: the answer on ``out``, tool calls and results on ``trace``.

    On a terminal the answer is rendered as Markdown while it streams; elsewhere it is
    written as the model sent it, so that ``skill chat -m ... > answer.txt`` keeps it intact.
    """

    def __init__(
        self,
        out: Console,
        trace: Console,
        *,
        one_shot: bool,
        uninterruptible: frozenset[str] = frozenset(),
        unanswered: frozenset[str] = frozenset(),
    ) -> None:
        self.out = out
        self.trace = trace
        self.one_shot = one_shot
        #: In a voice session: the tools the user cannot interrupt (``disallow_interruption``).
        self.uninterruptible = uninterruptible
        #: The client-side tools nobody gives results for (``-m`` without ``--client-results``).
        self.unanswered = unanswered
        self.markdown = out.is_terminal and not out.is_dumb_terminal
        self._pieces: list[str] = []
        self._live: Live | None = None

    # --- TurnEvents ----------------------------------------------------------------

    def text(self, delta: str) -> None:
        self._pieces.append(delta)
        if not self.markdown:
            self.out.file.write(visible(delta))
            self.out.file.flush()
            return
        # Deferred for start-up: rich's Markdown (markdown-it, 20 ms) is needed only on a terminal.
        from rich.markdown import Markdown

        if self._live is None:
            self._live = Live(
                console=self.out,
                auto_refresh=False,
                redirect_stdout=False,
                redirect_stderr=False,
                vertical_overflow="visible",
            )
            self._live.start()
        self._live.update(Markdown(visible("".join(self._pieces))), refresh=True)

    def reply(self, reply: Reply) -> None:
        self.end_text()

    def tool_started(self, call: ToolCall) -> None:
        arguments = shorten(call.arguments.strip() or "{}", SHOWN_ARGUMENTS)
        flag = " [yellow](voice: cannot be interrupted)[/]" if call.name in self.uninterruptible else ""
        self.trace.print(f"[bold cyan]->[/] [bold]{shown(call.name)}[/] {shown(arguments)}{flag}")

    def tool_finished(self, call: ToolCall, result: ToolResult) -> None:
        took = f"({result.duration_ms:.0f} ms)"
        output = shown(_shown_output(result.output))
        if not result.is_error:
            self.trace.print(f"[bold cyan]<-[/] [bold]{shown(call.name)}[/] [green]ok[/] {took}: {output}")
            return
        self.trace.print(
            f"[bold cyan]<-[/] [bold]{shown(call.name)}[/] [bold red]failed, {result.error_type}[/] {took}: {output}"
        )
        if result.error_type == "approval_denied" and self.one_shot:
            self.trace.print("   [dim]pass --approve to approve the tools that need approval[/]")
        if result.error_type == "execution" and call.name in self.unanswered:
            self.trace.print(
                f"   [dim]{shown(call.name)} is a client-side tool: with -m, pass --client-results FILE "
                "to give its results[/]"
            )

    # --- the rest of the session ------------------------------------------------------

    def end_text(self) -> None:
        """Finish the text streamed so far (before a prompt, a tool call or an error)."""
        if self._live is not None:
            self._live.stop()
            self._live = None
        elif self._pieces and not "".join(self._pieces).endswith("\n"):
            self.out.file.write("\n")
            self.out.file.flush()
        self._pieces.clear()

    def stopped(self, steps: int, reason: str = "") -> None:
        self.end_text()
        if reason and not reason.startswith("the model was asked"):
            self.trace.print(f"[bold yellow]Stopped:[/] {shown(reason)}. Ask again to go on.")
            return
        self.trace.print(
            f"[bold yellow]Stopped:[/] the model was asked {steps} times this turn and still called tools "
            "instead of answering. Ask again to go on, or allow more with --max-steps."
        )

    def failed(self, error: ModelError) -> None:
        self.end_text()
        stderr().print(f"[bold red]error:[/] {shown(error.message)}")
        if error.hint:
            stderr().print(f"[bold]hint:[/] {shown(error.hint)}")


def _entry_settings(runtime: Runtime, name: str) -> SettingValues:
    entry = runtime.tool_entry(name)
    assert entry is not None, name
    return entry.settings


def _offline_notice() -> str:
    return (
        "No model endpoint is configured, so the built-in offline model answers: "
        "/tools lists the tools, /call NAME {json} calls one. "
        "For a real model pass --model NAME (and --base-url URL), or set SKILL_MODEL / OPENAI_BASE_URL."
    )


def run_chat_command(
    project: Path,
    message: str | None,
    *,
    environment: str,
    model: str | None,
    base_url: str | None,
    thread_id: str | None,
    max_steps: int | None,
    approve: bool,
    user: str | None = None,
    session: str | None = None,
    voice: bool = False,
    client_results: Path | None = None,
    debug: bool = False,
) -> int:
    """Compile if needed, then chat: one message with ``message``, else a session; return the exit code.

    ``client_results`` is a JSON file of the results of client-side tools (``client_results``).

    ``user`` and ``session`` (JSON objects) become every tool call's ``ctx.user`` and ``ctx.session``.
    ``voice`` simulates a voice session (lua-cli's ``ToolFlag``): ``ignore_on_enter`` tools are
    not offered on the conversation's first turn, and a call of a ``disallow_interruption`` tool
    is shown as one the user cannot interrupt.
    """
    user_data, session_data = json_object_flag("--user", user), json_object_flag("--session", session)
    if message is not None and not message.strip():
        raise UsageError("-m needs a message", hint="""e.g. skill chat -m 'Where is order A1001?'""")
    if thread_id is not None:
        check_thread_id(thread_id)  # a usage error before anything is compiled
    results = read_client_results(client_results) if client_results is not None else None
    opened = open_for_command(project, cast(Environment, environment))
    # Once compiled (a compile may fork): it waits on a person, a model and tools, and a stop must not wait with them.
    watch_for_missed_signals()
    with opened:
        root = opened.root
        config = chat_config(
            opened.report.config.chat, model=model, base_url=base_url, max_steps=max_steps, environ=os.environ
        )
        for warning in config.warnings:
            stderr().print(f"[bold yellow]warning:[/] {shown(warning)}")
        agent = opened.runtime.manifest.agent.name
        thread: Thread | None = None
        if thread_id is not None:
            thread = load_thread(root, thread_id, agent) or Thread(thread_id, agent)
        state = thread.state if thread is not None else None
        context = opened.context(call_id="chat", user=user_data, session=session_data, state=state)
        chosen = open_model(config.model, os.environ)
        one_shot = message is not None
        uninterruptible = frozenset(
            name
            for name in opened.runtime.tool_names
            if voice and _DISALLOW_INTERRUPTION in _entry_settings(opened.runtime, name)[VOICE]
        )
        client_tools = frozenset(
            name for name in opened.runtime.tool_names if _entry_settings(opened.runtime, name)[CLIENT]
        )
        view = ChatView(
            stdout(),
            stderr() if one_shot else stdout(),
            one_shot=one_shot,
            uninterruptible=uninterruptible,
            unanswered=client_tools if one_shot and results is None else frozenset(),
        )
        if voice:
            view.trace.print(
                "[dim]Voice session (simulated): tools flagged ignore_on_enter wait for the second turn; "
                "calls of disallow_interruption tools cannot be interrupted.[/]"
            )
        prompter = None if one_shot else Prompter(root)
        approver: Approver | None = None
        if approve:
            approver = approve_all
        elif prompter is not None:
            approver = approval_asker(prompter, view)
        client: ClientHandler | None = None
        if results is not None and client_results is not None:
            client = results_handler(client_results, results, client_tools)
        elif prompter is not None:
            client = client_asker(prompter, view)
        compactor = Compactor(
            None if isinstance(chosen, OfflineModel) else chosen,
            lambda name: open_model(dataclasses.replace(config.model, model=name), os.environ),
        )
        loop = AgentLoop(
            opened.runtime,
            chosen,
            context,
            max_steps=config.max_steps,
            approver=approver,
            events=view,
            max_tool_calls_per_step=config.max_tool_calls_per_step,
            max_tool_calls_per_turn=config.max_tool_calls_per_turn,
            condition_budget=config.condition_budget,
            compactor=compactor,
            voice=voice,
            client=client,
        )
        messages: list[Message] = thread.messages if thread is not None else []

        def save() -> None:
            """Keep the thread, its tools' state with it, after each turn (a thread that never had a message is not created)."""
            if thread is not None and (thread.messages or thread_path(root, thread.id).exists()):
                thread.state = context.state.to_dict()
                save_thread(root, thread)

        with runtime_log(stderr(), debug=debug), CommandRunner() as runner:
            try:
                if message is not None:
                    return _one_message(runner, loop, view, messages, message, chosen, save)
                assert prompter is not None
                return _session(runner, loop, view, prompter, messages, chosen, thread, save)
            finally:
                runner.run(compactor.aclose())
                runner.run(chosen.aclose())


def _one_message(
    runner: CommandRunner,
    loop: AgentLoop,
    view: ChatView,
    messages: list[Message],
    message: str,
    model: Model,
    save: Callable[[], None],
) -> int:
    if isinstance(model, OfflineModel):
        view.trace.print(f"[dim]{shown(_offline_notice())}[/]")
    try:
        result = runner.run(loop.turn(messages, message))
    finally:
        view.end_text()
        save()
    if result.stopped:
        view.stopped(result.steps, result.reason)
        return EXIT_FAILED
    if not result.answer.strip():
        view.trace.print("[dim]The model answered with no text.[/]")
    return 0


def _session(
    runner: CommandRunner,
    loop: AgentLoop,
    view: ChatView,
    prompter: Prompter,
    messages: list[Message],
    model: Model,
    thread: Thread | None,
    save: Callable[[], None],
) -> int:
    out = view.out
    agent = loop.runtime.manifest.agent.name
    out.print(f"[bold]skill chat[/]: agent [bold]{shown(agent)}[/], answered by {shown(model.label)}.")
    if isinstance(model, OfflineModel):
        out.print(f"[dim]{shown(_offline_notice())}[/]")
    if thread is not None:
        told = f"{len(messages)} messages so far" if messages else "a new conversation"
        out.print(f"Thread [bold]{shown(thread.id)}[/]: {told}.")
    out.print("[dim]/exit or end of input (Ctrl-D) leaves.[/]\n")
    try:
        while True:
            try:
                line = prompter.line("> ")
            except EOFError:
                out.print()
                return 0
            text = line.strip()
            if not text:
                continue
            if text in _EXIT_COMMANDS:
                return 0
            try:
                result = runner.run(loop.turn(messages, text))
            except ModelError as error:
                view.failed(error)
            except KeyboardInterrupt:
                view.end_text()
                if terminated_by() is not None:  # asked to end, not to stop the turn: the turn so far is kept
                    save()
                    raise
                view.trace.print("[yellow]interrupted[/]")
            else:
                view.end_text()
                if result.stopped:
                    view.stopped(result.steps, result.reason)
            save()
            if terminated_by() is not None:  # asked to end while a tool's code or a client's prompt ran
                raise KeyboardInterrupt
            out.print()
    finally:
        prompter.save()
