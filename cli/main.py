"""The entry point of ``skill``: the one place that maps outcomes to exit codes.

Commands return their exit code.  A ``UserError`` is printed as a message (with its
hint) and exits with its own code; a usage error of the parser exits 2; anything else is a bug
in skillc, reported in one line unless ``--debug`` asks for the traceback.  A Ctrl-C that the
command does not handle itself says ``interrupted`` and exits 130, whenever it comes (see
``cli.entry`` for the time before this module is loaded).  SIGTERM and SIGHUP stop the command
as a Ctrl-C does, then end the process by the signal, without a word (``lifetime``).

A plain command line of ``skill compile``, ``skill test`` or ``skill serve`` runs without typer
(``commands.quick_call``); every other one, and any that is not plain, is typer's.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO, cast

from ..contracts.errors import EXIT_INTERRUPTED, INTERRUPTED, SkillError, UsageError, UserError
from ..runtime.last_resort import HOPELESS_AFTER, set_last_resort
from .commands import quick_call, settings
from .consoles import shown, stderr, take_stdout
from .lifetime import end_by_signal, end_despite_stuck_threads, own_process, stop_in_order, terminated_by

__all__ = ["EXIT_INTERNAL", "EXIT_INTERRUPTED", "main", "run"]

EXIT_INTERNAL = 70
#: Every command writes its results to standard output: started without one, none can run.
_STDOUT_CLOSED = UsageError(
    "standard output is closed: skill writes its results there",
    hint="to discard them, send them to /dev/null (>/dev/null) rather than closing it",
)


def escape(text: str) -> str:
    """``text`` with its control characters shown and its rich markup escaped (see ``consoles.shown``)."""
    return shown(text)


def _report(error: UserError | SkillError) -> None:
    stderr().print(f"[bold red]error:[/] {escape(str(error))}")
    hint = getattr(error, "hint", None)
    if hint:
        stderr().print(f"[bold]hint:[/] {escape(hint)}")


def _typer_main(args: list[str]) -> Any:
    """Parse ``args`` with typer and run the command; typer's own exits and usage errors become exit codes."""
    import typer  # for start-up: a command line that quick_call takes never imports typer

    from .app import app_for

    command = typer.main.get_command(app_for(args))
    try:
        code = command.main(args=args, prog_name="skill", standalone_mode=False)
    except typer.TyperException as error:  # click's usage errors, as typer re-exports them
        show = getattr(error, "show", None)
        if callable(show):
            show()
        else:
            stderr().print(f"error: {escape(error.format_message())}")
        return error.exit_code
    except typer.Exit as error:
        return error.exit_code
    except typer.Abort:
        return _interrupted()
    # typer answers a Ctrl-C in a command with Exit(130), which it returns without a word; no
    # command of skill's returns 130 itself.
    if code == EXIT_INTERRUPTED:
        return _interrupted()
    return code


def _interrupted() -> int:
    """The exit code of a command stopped by a Ctrl-C, said on stderr; or by a signal that asked it to end, silently."""
    signum = terminated_by()
    if signum is not None:
        return 128 + signum
    stderr().print(INTERRUPTED)
    return EXIT_INTERRUPTED


def _quick_main(call: Callable[[], int]) -> int:
    """Run a quick command as typer runs a command: end of input, an interruption or a closed pipe alike."""
    try:
        return call()
    except EOFError:  # typer: a new line on stderr, then Abort
        print(file=sys.stderr, flush=True)
        return _interrupted()
    except KeyboardInterrupt:  # as _typer_main reports typer's Exit(130)
        return _interrupted()
    except OSError as error:
        if error.errno != errno.EPIPE:
            raise
        # Only a closed pipe needs typer's wrappers: they keep the interpreter's last flush quiet.
        from typer._click.utils import PacifyFlushWrapper

        sys.stdout = cast(TextIO, PacifyFlushWrapper(sys.stdout))
        sys.stderr = cast(TextIO, PacifyFlushWrapper(sys.stderr))
        sys.exit(1)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` and return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    settings.debug = False
    if sys.stdout is None:  # the process was started with descriptor 1 closed
        _report(_STDOUT_CLOSED)
        return _STDOUT_CLOSED.exit_code
    take_stdout()
    try:
        call = quick_call(args)
        result = _quick_main(call) if call is not None else _typer_main(args)
    except KeyboardInterrupt:
        return _interrupted()
    except UserError as error:
        _report(error)
        return error.exit_code
    except SkillError as error:
        if settings.debug:
            stderr().print_exception()
        _report(error)
        return 1
    except Exception as error:  # the one catch-all: a bug must not look like a traceback dump
        signum = terminated_by()
        if signum is not None:  # failing on the way out (to write to a closed terminal, say): ending anyway
            return 128 + signum
        if settings.debug:
            stderr().print_exception()
        stderr().print(
            f"[bold red]internal error:[/] {escape(type(error).__name__)}: {escape(str(error))}\n"
            "This is a bug in skillc. Run it again as `skill --debug ...` for the traceback."
        )
        return EXIT_INTERNAL
    return result if isinstance(result, int) else 0


def _give_up(label: str) -> None:
    """Tool code holds the command's thread and ignores every interruption: end the process.

    Called from the deadline watchdog's thread; the main thread is the tool's by then.
    """
    stderr().print(
        f"[bold red]error:[/] {escape(label)} ignores its deadline: it is still running "
        f"{HOPELESS_AFTER:g} s past it and catches every interruption, so skill stops here."
    )
    sys.stderr.flush()
    os._exit(1)


def _warn(text: str) -> None:
    """A warning on standard error, as the runtime's are shown (``consoles.runtime_log``)."""
    stderr().print(f"[dim]warning: {shown(text)}[/]")


def main() -> None:
    """Console-script entry point: the process is the command's own (``lifetime``).

    A command that a signal asked to end has stopped in order by the time ``run`` returns: the
    process then ends by that signal, whatever the command made of the interruption.
    """
    own_process()
    stop_in_order()
    set_last_resort(_give_up)
    code = run()
    signum = terminated_by()
    if signum is not None:
        end_by_signal(signum)
    end_despite_stuck_threads(code, _warn)
    sys.exit(code)
