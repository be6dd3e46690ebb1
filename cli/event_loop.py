"""The event loop of a command that runs tools (``skill test``, ``skill chat``): ``CommandRunner``.

``asyncio.Runner`` answers a Ctrl-C by cancelling the task it runs, then raising
``KeyboardInterrupt`` once that task has ended: a tool's code is never interrupted in the
middle of a step, it is cancelled at its next ``await``, and its ``finally`` runs.  A
terminating signal (``lifetime.stop_in_order``) does what the Ctrl-C's handler does, and so
gets the same; but when the process was started with SIGINT ignored (a background job),
``asyncio.Runner`` installs no handler, and the signal raised ``KeyboardInterrupt`` in whatever
code the main thread ran.  Inside an async tool's blocking stretch, that was the tool's
result ("The tool failed: KeyboardInterrupt"), and a chat's turn went on with it.
``CommandRunner`` has the signal cancel its task in that case too (``lifetime.stopped_by``).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Coroutine
from typing import Any, TypeVar

from .lifetime import stopped_by

__all__ = ["CommandRunner"]

_T = TypeVar("_T")


class CommandRunner:
    """An ``asyncio.Runner`` whose task a terminating signal cancels even when SIGINT is ignored (see the module).

    ``run`` then raises ``KeyboardInterrupt`` once the task has ended, as for a Ctrl-C; if the
    task kept running to its end instead, its result is returned, and the command sees
    ``lifetime.terminated_by`` after it.  Closed on leaving its ``with``, as the runner.
    """

    def __init__(self) -> None:
        self._runner = asyncio.Runner()

    def __enter__(self) -> CommandRunner:
        self._runner.__enter__()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._runner.close()

    def run(self, coro: Coroutine[Any, Any, _T], *, context: contextvars.Context | None = None) -> _T:
        """Run ``coro`` in a task, as ``asyncio.Runner.run``, cancelled by a terminating signal."""
        cancelled: list[bool] = []

        async def stoppable() -> _T:
            task = asyncio.current_task()
            loop = asyncio.get_running_loop()
            assert task is not None

            def cancel() -> None:
                cancelled.append(True)
                task.cancel()
                loop.call_soon_threadsafe(lambda: None)  # a loop waiting for events wakes up to see it

            with stopped_by(cancel):
                return await coro

        try:
            return self._runner.run(stoppable(), context=context)
        except asyncio.CancelledError:
            if cancelled:
                raise KeyboardInterrupt from None
            raise
