"""Open a tool project: compile it if stale, load its ``dist/``, offer its tools, then call one.

The one layer between what serves a project (``skill test``, ``skill chat``, an MCP
server, ``skillc.testing``) and the compiler and runtime below it::

    with open_project(path, environment="production", notify=print) as project:
        context = project.context(call_id="request-1")
        offer = await project.offer(context)        # what this turn (or tools/list) offers
        called = await project.call("lookup_order", '{"order_id": "A1001"}', context)
        called.result.output                        # the text the model reads

``open_project`` compiles as ``skill compile`` does (a no-op when ``dist/`` is current)
and raises ``CompileFailed``, which carries the report, when the project has errors.
The environment's variables (``.env``, then ``.env.<environment>``) are read when a
context is built, so a server that builds one per request reads them once with
``variables()`` and passes them as ``env=``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .compiler.api import CompileReport, compile_project
from .compiler.types import Config
from .contracts.errors import UserError
from .runtime.call import Approver
from .runtime.client import ClientHandler
from .runtime.context import Environment, ToolContext, ToolState
from .runtime.data import DataStore, open_store
from .runtime.envfile import export_missing, load_env, with_process_env
from .runtime.loader import Runtime, load_dist
from .runtime.offer import Offer
from .runtime.results import ToolResult

__all__ = ["CompileFailed", "OfferedCall", "Project", "approve_all", "decline_all", "open_project", "open_project_data"]


class CompileFailed(UserError):
    """The project has compile errors: ``report`` holds them, and nothing was loaded.

    Its message is what the command line says after printing the report.
    """

    def __init__(self, report: CompileReport) -> None:
        super().__init__("the project does not compile; fix the errors above first")
        self.report = report


async def approve_all(name: str, arguments: dict[str, Any]) -> bool:
    """An approver that approves every call (``--approve``)."""
    return True


async def decline_all(name: str, arguments: dict[str, Any]) -> bool:
    """An approver that declines every call, as a person saying no would."""
    return False


@dataclass(frozen=True)
class OfferedCall:
    """One call made through the offer: its result, and the offer it was checked against."""

    result: ToolResult
    #: The offer made for the call (its tool's alone with ``own_conditions_only``); ``None`` when skipped.
    offer: Offer | None
    #: Why the tool is hidden (its skill's reason first) when that refused the call; else ``None``.
    hidden: str | None = None


class Project:
    """A compiled project, loaded: its compile report, its runtime and its environment.

    Build it with ``open_project``.  ``offer`` and ``call`` are coroutines; any number
    may run at once on one event loop (an offer per request, as a server makes them).
    ``close`` lets the runtime's worker threads end.
    """

    def __init__(
        self,
        report: CompileReport,
        runtime: Runtime,
        environment: Environment = "sandbox",
        *,
        data_folder: Path | None = None,
    ) -> None:
        self.report = report
        self.runtime = runtime
        #: The environment a context is built for unless it names another.
        self.environment: Environment = environment
        export_missing(load_env(self.root, environment), os.environ)
        #: ``ctx.data`` of each environment, opened once (the environment's own when the project is).
        self._stores: dict[str, DataStore] = {}
        self._data_folder = data_folder
        self.data(environment)

    def __repr__(self) -> str:
        return f"<Project {self.root} ({self.environment}): {self.runtime!r}>"

    @property
    def root(self) -> Path:
        """The project's folder (where ``pyproject.toml`` is)."""
        return self.report.config.root

    def variables(self, environment: Environment | None = None) -> dict[str, str]:
        """The variables of ``environment`` (the project's by default): its ``.env`` files, read now,
        under the variables the shell set (which win, as with python-dotenv).

        Opening the project also put the files' keys the shell did not set into ``os.environ``,
        so that code reading ``os.getenv`` agrees with ``ctx.env``.
        """
        return with_process_env(load_env(self.root, environment or self.environment), os.environ)

    def context(
        self,
        *,
        call_id: str = "local",
        tool: str | None = None,
        environment: Environment | None = None,
        env: Mapping[str, str] | None = None,
        user: Mapping[str, Any] | None = None,
        session: Mapping[str, Any] | None = None,
        state: ToolState | Mapping[str, Any] | None = None,
    ) -> ToolContext:
        """The context a real call gets: the tool's skill, and the variables of the ``.env`` files unless ``env``.

        ``state`` is the conversation's ``ctx.state``: a ``ToolState`` is shared as it is (so
        the caller sees what the tools wrote), a mapping is copied into a new one (a
        ``StateError`` if it holds what a state cannot), nothing gives an empty one.
        """
        chosen = environment or self.environment
        entry = self.runtime.tool_entry(tool) if tool else None
        return ToolContext(
            call_id=call_id,
            tool=tool,
            skill=entry.skill if entry else None,
            environment=chosen,
            env=self.variables(chosen) if env is None else env,
            user=user or {},
            session=session or {},
            state=state if isinstance(state, ToolState) else ToolState(state),
            data=self.data(chosen),
        )

    async def offer(
        self, context: ToolContext, *, only: Collection[str] | None = None, budget: float | None = None
    ) -> Offer:
        """Evaluate every condition for one turn (or one listing), failing closed; never raises.

        ``only`` (tool names) evaluates just those tools' conditions and their skills'.
        ``budget`` (seconds) bounds the whole offer, as a chat turn's does.
        """
        return await self.runtime.offer(context, only=only, budget=budget)

    async def call(
        self,
        name: str,
        arguments: str | bytes | Mapping[str, Any],
        context: ToolContext | None = None,
        *,
        check_condition: bool = True,
        own_conditions_only: bool = False,
        approver: Approver | None = None,
        client: ClientHandler | None = None,
    ) -> OfferedCall:
        """Offer, then call ``name`` unless the offer hides it (``not_offered``); a result always.

        ``own_conditions_only=True`` evaluates only ``name``'s condition and its skill's
        (the offer then holds just that tool), so a slow condition elsewhere cannot delay
        the call; ``skill test`` and ``skillc.testing`` call so.  ``check_condition=False``
        skips the offer, so the tool runs whatever its conditions say.  The call's id is the context's; without a context, one is
        built for the tool.  ``client(name, arguments)`` gives the result of a client-side tool.
        """
        context = self.context(tool=name) if context is None else context
        only = (name,) if own_conditions_only else None
        offer = await self.runtime.offer(context, only=only) if check_condition else None
        result = await self.runtime.call(
            name,
            arguments,
            context.call_id,
            context,
            offered=offer.names if offer is not None else None,
            approver=approver,
            client=client,
        )
        hidden = None
        if offer is not None and result.error_type == "not_offered":
            entry = self.runtime.tool_entry(name)
            skill = offer.reason(entry.skill, "skill") if entry is not None else None
            hidden = skill or offer.reason(name) or "it is not offered"
        return OfferedCall(result, offer, hidden)

    def data(self, environment: Environment | None = None) -> DataStore:
        """The document store (``ctx.data``) of ``environment`` (the project's by default), shared by every call.

        Chosen as ``open_project_data`` says; the database is opened on first use.
        """
        chosen = environment or self.environment
        store = self._stores.get(chosen)
        if store is None:
            store = self._stores[chosen] = open_project_data(self.report.config, chosen, folder=self._data_folder)
        return store

    def close(self) -> None:
        """Close the runtime (``Runtime.close``: what its tools wrote is flushed), and the document stores."""
        self.runtime.close()
        stores, self._stores = list(self._stores.values()), {}
        for store in stores:
            store.close()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def open_project(
    path: Path | str = ".",
    *,
    environment: Environment = "sandbox",
    notify: Callable[[str], None] | None = None,
    allow_import: bool = False,
    data_folder: Path | None = None,
) -> Project:
    """Compile the project that contains ``path`` if it is stale, then load its ``dist/``.

    ``notify`` hears what the user should know while the compile happens, and
    ``allow_import`` is the user's consent to import project code for its schemas (both
    as ``compile_project`` takes them).  ``data_folder`` keeps ``ctx.data`` in SQLite files
    in that folder whatever the configuration says (``skillc.testing`` gives a temporary
    one).  Compile errors raise ``CompileFailed``; a bad configuration raises
    ``ConfigError`` or ``UsageError``.
    """
    report = compile_project(Path(path), notify=notify, allow_import=allow_import)
    if not report.ok:
        raise CompileFailed(report)
    return Project(report, load_dist(report.config.out), environment, data_folder=data_folder)


def open_project_data(config: Config, environment: Environment, *, folder: Path | None = None) -> DataStore:
    """The document store of ``environment`` for the project ``config`` describes (see ``skillc.runtime.data.open``).

    ``SKILL_DATA_URL`` among the environment's variables (``.env`` files under the shell's)
    wins over ``[tool.skill.data] url``; without either, a SQLite file per environment.
    ``folder`` forces SQLite files in that folder, whatever the configuration says.
    """
    if folder is not None:
        return open_store(config.root, environment, folder=folder)
    variables = with_process_env(load_env(config.root, environment), os.environ)
    return open_store(config.root, environment, url=config.data_url, folder=config.data_folder, variables=variables)
