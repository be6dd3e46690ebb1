"""Lazy tools (TanStack AI's ``lazy``): kept out of the request until the model finds them.

A tool with ``lazy = True`` is not sent to the model.  While any offered lazy tool is
still unfound, the request carries one more tool, ``find_tools``, built in: the model
gives it a few words, and it answers with the definitions (name, description, parameters)
of the lazy tools whose names and descriptions match them best.  From then on those tools
are sent like the others, for the rest of the conversation: what was found is read back
from the conversation itself (``found_names``), so a thread continued later still has them.

An agent with hundreds of tools then pays for the few it uses, not for every definition
on every request (``bench/lazy_tools.py`` measures it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .models import Message, ToolCall
from .offer import OfferedTool
from .ownjson import read_json, write_json
from .results import ToolResult

__all__ = ["FIND_TOOLS", "MAX_FOUND", "Discovery", "found_names", "visible"]

#: The built-in discovery tool's name.
FIND_TOOLS: Final = "find_tools"
#: At most this many tools are returned by one search.
MAX_FOUND: Final = 5
_WORD: Final = re.compile(r"[a-z0-9]+")
#: Words too common to tell tools apart.
_STOP_WORDS: Final = frozenset(
    "a an and any are as at be by can do for from how i in is it its me my of on or so some that the this "
    "to tool tools use want what when which with you your".split()
)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " "))) - _STOP_WORDS


def found_names(messages: Sequence[Message]) -> set[str]:
    """The names of the tools earlier ``find_tools`` results of the conversation returned."""
    searches = {
        item.get("id")
        for message in messages
        if message.get("role") == "assistant"
        for item in message.get("tool_calls") or ()
        if isinstance(item, Mapping) and (item.get("function") or {}).get("name") == FIND_TOOLS
    }
    names: set[str] = set()
    for message in messages:
        if message.get("role") != "tool" or message.get("tool_call_id") not in searches:
            continue
        try:
            answer = read_json(str(message.get("content", "")))
        except (ValueError, RecursionError):
            continue
        tools = answer.get("tools") if isinstance(answer, dict) else None
        names.update(
            tool["name"] for tool in tools or () if isinstance(tool, dict) and isinstance(tool.get("name"), str)
        )
    return names


@dataclass(frozen=True)
class Discovery:
    """One step's ``find_tools``: the lazy tools not found yet, and how to search them."""

    #: Offered lazy tools the model has not found yet, in manifest order.
    unfound: tuple[OfferedTool, ...]
    #: The ``strict`` value the definition is sent with (the same as every other tool's, when they agree).
    strict: bool = False

    @property
    def names(self) -> frozenset[str]:
        return frozenset(tool.name for tool in self.unfound)

    def definition(self) -> dict[str, Any]:
        """``find_tools`` as a ``tool.json`` definition (a strict-compatible schema, so any ``strict`` works)."""
        return {
            "type": "function",
            "name": FIND_TOOLS,
            "description": (
                f"Find more tools: {len(self.unfound)} tools are not listed here. Describe what you need in a few "
                "words; the tools whose names and descriptions match are returned, and can be called from then on."
            ),
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string", "description": "Words saying what the tool should do."}},
                "required": ["query"],
                "additionalProperties": False,
            },
            "strict": self.strict,
        }

    def search(self, query: str) -> list[OfferedTool]:
        """The unfound tools matching ``query`` best: a word in the name counts twice, in the description once."""
        wanted = _words(query)
        scored: list[tuple[int, int, OfferedTool]] = []
        for index, tool in enumerate(self.unfound):
            name = _words(tool.name)
            description = _words(str(tool.definition.get("description") or ""))
            score = sum(2 * (word in name) + (word in description) for word in wanted)
            if score:
                scored.append((-score, index, tool))
        return [tool for _, _, tool in sorted(scored, key=lambda item: item[:2])[:MAX_FOUND]]

    def answer(self, call: ToolCall) -> ToolResult:
        """The result of one ``find_tools`` call: the matching tools' definitions, as JSON."""
        try:
            arguments = read_json(call.arguments or "{}")
        except (ValueError, RecursionError):
            arguments = None
        query = arguments.get("query") if isinstance(arguments, dict) else None
        if not isinstance(query, str) or not query.strip():
            message = 'find_tools takes {"query": "a few words"}: say what the tool should do.'
            return ToolResult(call.id, FIND_TOOLS, is_error=True, output=message, error_type="validation")
        found = self.search(query)
        document: dict[str, Any] = {"tools": [_brief(tool) for tool in found]}
        if not found:
            document["note"] = "No tool matches these words; try others."
        return ToolResult(call.id, FIND_TOOLS, is_error=False, output=write_json(document))


def _brief(tool: OfferedTool) -> dict[str, Any]:
    return {key: tool.definition[key] for key in ("name", "description", "parameters") if key in tool.definition}


def visible(tools: Iterable[OfferedTool], lazy: frozenset[str], found: set[str]) -> list[OfferedTool]:
    """The tools sent this step: the eager ones, and the lazy ones already found."""
    return [tool for tool in tools if tool.name not in lazy or tool.name in found]
