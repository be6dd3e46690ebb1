"""Test a project's tools through their compiled bundles, from the project's own pytest suite.

    from skillc.testing import load_project

    def test_lookup() -> None:
        result = load_project().call("lookup_order", {"order_id": "A1001"})
        assert not result.is_error

``load_project`` compiles the project once per test session (and again only if its
sources changed), exactly as ``skill compile`` does, and every ``call`` goes through
the runtime's one call path: conditions, validation, timeouts, retries, serialization.

A conversation's ``ctx.state`` is a ``ToolState``: give the same one to several calls,
as the calls of one thread share it, and read what the tools kept in it::

    state = ToolState({"seat": "12A"})
    project.call("change_seat", {"seat": "14C"}, state=state)
    assert state["seat"] == "14C"
"""

from __future__ import annotations

import asyncio
import atexit
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .compiler.api import CompileReport
from .project import CompileFailed as ProjectCompileFailed
from .project import Project, approve_all, decline_all, open_project
from .runtime.client import ClientHandler
from .runtime.context import Environment, ToolContext, ToolState
from .runtime.data import DataStore
from .runtime.loader import Runtime
from .runtime.offer import Offer
from .runtime.ownjson import read_json
from .runtime.results import ToolResult

__all__ = ["CompileFailed", "ProjectUnderTest", "ToolState", "load_project"]


class CompileFailed(AssertionError):
    """The project has compile errors; the message lists them."""


@dataclass
class ProjectUnderTest:
    """A compiled project and its runtime, ready to call tools."""

    project: Project
    _calls: int = field(default=0, repr=False)

    @property
    def report(self) -> CompileReport:
        """What the compile found."""
        return self.project.report

    @property
    def runtime(self) -> Runtime:
        """The runtime the calls go through."""
        return self.project.runtime

    @property
    def tools(self) -> tuple[str, ...]:
        """The names of the compiled tools."""
        return self.runtime.tool_names

    def context(
        self,
        tool: str | None = None,
        *,
        environment: Environment = "sandbox",
        env: Mapping[str, str] | None = None,
        user: Mapping[str, Any] | None = None,
        session: Mapping[str, Any] | None = None,
        state: ToolState | Mapping[str, Any] | None = None,
    ) -> ToolContext:
        """A context as a real call gets: variables from the project's .env files unless given.

        ``state`` is ``ctx.state``: a ``ToolState`` is shared (pass the same one to the calls of
        one conversation, and read it afterwards), a mapping is copied into a fresh one.
        """
        self._calls += 1
        return self.project.context(
            call_id=f"test-{self._calls}",
            tool=tool,
            environment=environment,
            env=env,
            user=user,
            session=session,
            state=state,
        )

    def offer(self, **context: Any) -> Offer:
        """Evaluate every condition, as at the start of a turn."""
        return asyncio.run(self.project.offer(self.context(**context)))

    def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        approve: bool = False,
        check_condition: bool = True,
        client: ClientHandler | None = None,
        **context: Any,
    ) -> ToolResult:
        """Call one tool; its own and its skill's conditions (no other) run first unless ``check_condition=False``.

        ``client(name, arguments)`` (sync or async) gives the result of a client-side tool, as the
        application would: ``client=lambda name, arguments: {"color": "red"}``.
        ``context`` takes what ``context()`` does: ``environment``, ``env``, ``user``, ``session``, ``state``.
        """
        called = self.project.call(
            name,
            arguments if arguments is not None else {},
            self.context(name, **context),
            check_condition=check_condition,
            own_conditions_only=True,
            approver=approve_all if approve else decline_all,
            client=client,
        )
        return asyncio.run(called).result

    def data(self, environment: Environment = "sandbox") -> DataStore:
        """The temporary ``ctx.data`` the calls of ``environment`` use: seed it, or look at what the tools wrote."""
        return self.project.data(environment)

    def value(self, name: str, arguments: Mapping[str, Any] | str | None = None, **options: Any) -> Any:
        """Call a tool and return its output decoded from JSON; an error result fails the test."""
        result = self.call(name, arguments, **options)
        if result.is_error:
            raise AssertionError(f"tool {name!r} failed ({result.error_type}): {result.output}")
        try:
            return read_json(result.output)
        except ValueError:
            return result.output


_LOADED: dict[Path, ProjectUnderTest] = {}


def _scratch_folder() -> Path:
    """A temporary folder for the session's ``ctx.data``, removed when the tests end."""
    folder = Path(tempfile.mkdtemp(prefix="skillc-test-data-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def load_project(path: str | Path = ".") -> ProjectUnderTest:
    """Compile the project containing ``path`` (once per session) and load its ``dist/``.

    Its ``ctx.data`` is a temporary SQLite store of the session's own (one database per
    environment, empty at the start, removed at the end), so tests never touch the
    project's own data; ``ProjectUnderTest.data()`` is that store.
    """
    key = Path(path).resolve()
    loaded = _LOADED.get(key)
    if loaded is None:
        try:
            opened = open_project(key, data_folder=_scratch_folder())
            atexit.register(opened.close)
        except ProjectCompileFailed as failed:
            problems = "\n".join(
                f"{item.path}:{item.line}:{item.col + 1}: {item.severity.value}[{item.code}] {item.message}"
                for item in failed.report.diagnostics
            )
            raise CompileFailed(f"the project does not compile:\n{problems}") from None
        loaded = ProjectUnderTest(opened)
        _LOADED[key] = loaded
    return loaded
