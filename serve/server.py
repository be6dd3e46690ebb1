"""A project's MCP server: the SDK's low-level ``Server``, answering from ``dist/`` through the runtime.

``build_server(project)`` gives a ``mcp.server.Server`` whose handlers are

- ``tools/list``: the offer for this request (every ``condition()`` at once, under a
  budget, failing closed), then the definition of each offered tool as it was read from
  ``dist/`` when the server was built (``listing``);
- ``tools/call``: the project's one call path (``Project.call``: the tool's own condition
  and its skill's again, validation, timeout and retries, output validation).  A name the
  project does not have is a protocol error (``-32602``); every other failure is a result
  with ``isError: true`` and the text the model should read.  ``structuredContent`` is sent
  only with a successful result of a tool that has an output model.  A tool's
  ``max_output_chars`` caps the text (head and tail kept, with a notice); a cut result
  goes without ``structuredContent``.

The instructions (``initialize`` and ``server/discover``) are the agent's persona and the
contexts of the skills offered at that moment, as ``skill chat`` builds its system prompt.

A client-side tool (``client=True``) is neither listed nor callable (a call of one is the
unknown-tool error): its result must come from the caller, and ``tools/call`` has no way
to ask the host for it.

A ``needs_approval`` tool is listed as destructive, so the host asks its user before it
calls it.  On the server's side no person is present: such a call is refused with an
``approval_denied`` result unless the server was started with ``approve=True``
(``skill serve --approve``), which trusts the host to have asked.

The server keeps nothing between requests: each request builds its own ``ToolContext``,
so any number of replicas of it answer alike.  The SDK's server serves both protocol eras
it knows (the ``initialize`` handshake and the stateless 2026-07-28 envelope).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, Final

from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
)

from ..contracts.settings import CLIENT, MAX_OUTPUT_CHARS
from ..contracts.version import __version__
from ..project import Project, approve_all
from ..runtime.agent import DEFAULT_CONDITION_BUDGET, system_prompt
from ..runtime.compaction import cut_output
from ..runtime.ownjson import read_json
from .listing import ToolListing, read_listings

__all__ = ["LIST_BUDGET", "ProjectServer", "build_server"]

#: Seconds a listing (or the instructions) waits for all conditions together, as a chat turn does.
LIST_BUDGET: Final = DEFAULT_CONDITION_BUDGET
#: The methods whose answer carries the instructions.
_INSTRUCTED: Final = frozenset({"initialize", "server/discover"})


class ProjectServer:
    """The handlers of one project's MCP server; ``server`` is the SDK ``Server`` that calls them.

    ``approve`` trusts the host's own approval of ``needs_approval`` tools.  ``budget`` (seconds)
    bounds the conditions of one listing.  The project's variables are read once, here.
    """

    def __init__(self, project: Project, *, approve: bool = False, budget: float = LIST_BUDGET) -> None:
        self.project = project
        self.budget = budget
        self.approver = approve_all if approve else None
        runtime = project.runtime
        self.env = project.variables()
        # A client-side tool is not served: tools/call cannot ask the host for a result, and a
        # host that has the result itself needs no server to produce it.
        self.listings: dict[str, ToolListing] = read_listings(
            runtime.dist,
            {
                name: entry
                for name in runtime.tool_names
                if (entry := runtime.tool_entry(name)) and not entry.settings[CLIENT]
            },
        )
        agent = runtime.manifest.agent
        self.server: Server[Any] = Server(
            agent.name,
            version=__version__,
            instructions=agent.persona.strip() or None,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            get_tool_input_schema=self.input_schema,
        )
        self.server.middleware.append(self._instructions)

    def _context_id(self) -> str:
        return f"mcp-{uuid.uuid4().hex[:16]}"

    async def instructions(self) -> str:
        """The persona, then the context of each skill offered now."""
        context = self.project.context(call_id=self._context_id(), env=self.env)
        offer = await self.project.offer(context, budget=self.budget)
        return system_prompt(self.project.runtime.manifest.agent.persona, offer)

    async def _instructions(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Middleware: the answer to ``initialize`` and ``server/discover`` gets this moment's instructions."""
        result = await call_next(ctx)
        if ctx.method in _INSTRUCTED and isinstance(result, dict):
            text = await self.instructions()
            if text:
                result["instructions"] = text
            else:
                result.pop("instructions", None)
        return result

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        """The compiled input schema of ``name`` (the SDK checks ``Mcp-Param-*`` headers with it)."""
        listing = self.listings.get(name)
        return listing.tool.input_schema if listing is not None else None

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        """The tools offered to this request, each as compiled (one page: the list is never cut)."""
        context = self.project.context(call_id=self._context_id(), env=self.env)
        offer = await self.project.offer(context, budget=self.budget)
        return ListToolsResult(
            tools=[self.listings[tool.name].tool for tool in offer.tools if tool.name in self.listings]
        )

    async def call_tool(self, ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> CallToolResult:
        """One call through the runtime; an unknown name is the one protocol error."""
        listing = self.listings.get(params.name)
        if listing is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        context = self.project.context(call_id=self._context_id(), tool=params.name, env=self.env)
        called = await self.project.call(
            params.name,
            params.arguments or {},
            context,
            own_conditions_only=True,  # a slow condition of another tool does not delay this call
            approver=self.approver,
        )
        result = called.result
        entry = self.project.runtime.tool_entry(params.name)
        limit = entry.settings[MAX_OUTPUT_CHARS] if entry is not None else None
        # What the model sees is capped; a cut result is no JSON, so it goes without structuredContent.
        content = [TextContent(text=cut_output(result.output, limit) if limit is not None else result.output)]
        if result.is_error:
            return CallToolResult(content=content, is_error=True)
        if listing.structured:
            try:
                return CallToolResult(content=content, structured_content=read_json(content[0].text))
            except ValueError:  # not JSON (cut to a size limit): the text alone is what there is
                pass
        return CallToolResult(content=content)


def build_server(project: Project, *, approve: bool = False, budget: float = LIST_BUDGET) -> Server[Any]:
    """The SDK ``Server`` of ``project`` (see ``ProjectServer``), ready for any transport."""
    return ProjectServer(project, approve=approve, budget=budget).server
