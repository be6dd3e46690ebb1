"""The built-in offline model: the whole chat path without a network, driven by the user.

It understands two commands and explains itself otherwise:

- ``/call NAME {json}`` calls the tool ``NAME`` with those arguments (the text after the
  name is sent as it is, so bad JSON reaches the runtime and gets its error result);
  once the results are back it answers with them;
- ``/tools`` lists the tools offered this turn, with their parameters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from .models import Message, Reply, TextSink, ToolCall, ToolChoice
from .ownjson import read_json, write_json

__all__ = ["OfflineModel"]

_EXAMPLE_ARGUMENTS: Final = "{...}"


def _reply(text: str, on_text: TextSink | None) -> Reply:
    if on_text is not None:
        on_text(text)
    return Reply(text)


def _fenced(content: str) -> str:
    """Pretty JSON in a ``json`` fence, other text in a plain one."""
    try:
        value = read_json(content)
    except ValueError:
        return f"```\n{content}\n```"
    return f"```json\n{write_json(value, indent=2, ensure_ascii=False)}\n```"


def _schema_type(schema: Any) -> str:
    """A parameter's type in a few characters: ``string``, ``integer | null``, ``array of string``."""
    if not isinstance(schema, Mapping):
        return "any"
    if "enum" in schema and isinstance(schema["enum"], list):
        return " | ".join(write_json(item) for item in schema["enum"])
    if "const" in schema:
        return write_json(schema["const"])
    reference = schema.get("$ref")
    if isinstance(reference, str):
        return reference.rsplit("/", 1)[-1]
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(str(item) for item in kind)
    if kind == "array":
        return f"array of {_schema_type(schema.get('items'))}"
    if isinstance(kind, str):
        return kind
    for key in ("anyOf", "oneOf"):
        variants = schema.get(key)
        if isinstance(variants, list):
            return " | ".join(_schema_type(variant) for variant in variants)
    return "any"


def describe_tools(tools: Sequence[Mapping[str, Any]]) -> str:
    """The ``/tools`` answer: each tool with its description and parameters."""
    if not tools:
        return "No tools are offered this turn."
    lines = [f"{len(tools)} tool{'s are' if len(tools) != 1 else ' is'} offered this turn:", ""]
    for definition in tools:
        description = (str(definition.get("description") or "").strip().splitlines() or [""])[0]
        lines.append(f"- `{definition.get('name')}`" + (f": {description}" if description else ""))
        parameters = definition.get("parameters")
        properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
        required = parameters.get("required", []) if isinstance(parameters, Mapping) else []
        if not isinstance(properties, Mapping) or not properties:
            lines.append("  - no parameters")
            continue
        for name, schema in properties.items():
            detail = f"{_schema_type(schema)}, required" if name in required else _schema_type(schema)
            about = schema.get("description") if isinstance(schema, Mapping) else None
            lines.append(f"  - `{name}` ({detail})" + (f": {about}" if about else ""))
    return "\n".join(lines)


def explain(tools: Sequence[Mapping[str, Any]]) -> str:
    """The answer to anything that is not a command."""
    example = f"{tools[0].get('name')} {_EXAMPLE_ARGUMENTS}" if tools else f"NAME {_EXAMPLE_ARGUMENTS}"
    return (
        "I am skillc's built-in offline model: no model endpoint is configured, so I do not "
        "understand messages. I can call tools for you:\n\n"
        "- `/tools` lists the tools offered this turn, with their parameters;\n"
        f"- `/call NAME {{json}}` calls one, e.g. `/call {example}`.\n\n"
        "To talk to a real model, pass `--model NAME` (and `--base-url URL` for an "
        "OpenAI-compatible server such as Ollama, vLLM, LM Studio or llama.cpp), or set "
        "`SKILL_MODEL` and `OPENAI_BASE_URL`, or `model` and `base_url` in `[tool.skill.chat]`; "
        "the API key is read from `OPENAI_API_KEY`."
    )


def _results(messages: Sequence[Message]) -> str:
    """The answer once tool results are back: each result, in the order of the calls."""
    names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or ():
            names[call["id"]] = call["function"]["name"]
    trailing: list[Message] = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        trailing.append(message)
    parts = [
        f"`{names.get(message.get('tool_call_id', ''), 'the tool')}` answered:\n\n{_fenced(str(message.get('content', '')))}"
        for message in reversed(trailing)
    ]
    return "\n\n".join(parts)


class OfflineModel:
    """Answers ``/call`` and ``/tools``; explains itself otherwise."""

    label = "the built-in offline model"

    def __repr__(self) -> str:
        return "<OfflineModel>"

    async def respond(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]],
        *,
        tool_choice: ToolChoice | None = None,
        on_text: TextSink | None = None,
    ) -> Reply:
        last = messages[-1] if messages else {}
        if last.get("role") == "tool":
            return _reply(_results(messages), on_text)
        content = last.get("content") if last.get("role") == "user" else None
        text = content.strip() if isinstance(content, str) else ""
        command, _, rest = text.partition(" ")
        if command == "/tools":
            return _reply(describe_tools(tools), on_text)
        if command == "/call":
            name, _, arguments = rest.strip().partition(" ")
            if not name:
                return _reply("Say which tool to call: `/call NAME {json}`. `/tools` lists them.", on_text)
            # Numbered through the conversation, so that a continued thread never repeats an id.
            number = 1 + sum(len(message.get("tool_calls") or ()) for message in messages)
            return Reply(tool_calls=(ToolCall(f"offline_{number}", name, arguments.strip() or "{}"),))
        return _reply(explain(tools), on_text)

    async def aclose(self) -> None:
        return None
