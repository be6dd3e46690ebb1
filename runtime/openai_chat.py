"""Any OpenAI-compatible Chat Completions endpoint, through the official ``openai`` client.

OpenAI, Ollama, vLLM, LM Studio, llama.cpp's server: ``OpenAIChatModel`` sends the
conversation and the offered tools' definitions (in the Chat Completions shape,
``chat_tool``), streamed or whole, and puts the reply together.  The API key is never
printed: it is removed from every message of an endpoint error.

Importing ``openai`` takes a third of a second, so only ``providers.open_model`` imports
this module, and only when an endpoint is configured.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import openai

from .models import DEFAULT_BASE_URL, Message, ModelError, ModelSettings, Reply, TextSink, ToolCall, ToolChoice

__all__ = ["NO_KEY", "OpenAIChatModel", "chat_tool"]

#: Sent as the key to an endpoint of one's own when ``OPENAI_API_KEY`` is not set; local
#: servers (Ollama, LM Studio, llama.cpp) ignore it, and the client refuses to run without one.
NO_KEY: Final = "no-key"
#: An endpoint's error message is cut after this many characters.
_MAX_SERVER_MESSAGE: Final = 500


def chat_tool(definition: Mapping[str, Any]) -> dict[str, Any]:
    """A ``tool.json`` definition (flat, Responses style) in the Chat Completions shape."""
    function = {key: definition[key] for key in ("name", "description", "parameters", "strict") if key in definition}
    return {"type": "function", "function": function}


@dataclass
class _CallPieces:
    """What has arrived of one tool call so far."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class _Calls:
    """Tool calls arriving in pieces (streamed), put together by their index."""

    def __init__(self) -> None:
        self._parts: dict[int, _CallPieces] = {}

    def add(self, index: int, call_id: str | None, name: str | None, arguments: str | None) -> None:
        part = self._parts.setdefault(index, _CallPieces())
        if call_id and not part.id:
            part.id = call_id
        if name and not part.name:  # sent once, in the first piece
            part.name = name
        if arguments:
            part.arguments.append(arguments)

    def calls(self) -> tuple[ToolCall, ...]:
        """The calls put together, in the order of their index."""
        return tuple(ToolCall(part.id, part.name, "".join(part.arguments)) for _, part in sorted(self._parts.items()))


class OpenAIChatModel:
    """Any OpenAI-compatible Chat Completions endpoint, through the official client."""

    def __init__(self, settings: ModelSettings, api_key: str) -> None:
        if settings.model is None:
            raise ValueError("an OpenAIChatModel needs a model name")
        self.settings = settings
        self.model: str = settings.model
        self.base_url = settings.base_url or DEFAULT_BASE_URL
        self._api_key = api_key
        self._client = openai.AsyncOpenAI(
            api_key=api_key,
            base_url=self.base_url,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
        )

    def __repr__(self) -> str:
        return f"<OpenAIChatModel {self.model!r} at {self.base_url}>"

    @property
    def label(self) -> str:
        return f"{self.model} at {self.base_url}"

    async def respond(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]],
        *,
        tool_choice: ToolChoice | None = None,
        on_text: TextSink | None = None,
    ) -> Reply:
        request: dict[str, Any] = {"model": self.model, "messages": list(messages)}
        if tools:
            request["tools"] = [chat_tool(definition) for definition in tools]
            if tool_choice is not None:
                request["tool_choice"] = tool_choice
        try:
            if self.settings.stream:
                return await self._streamed(request, on_text)
            return await self._whole(request, on_text)
        except openai.OpenAIError as error:
            raise self._error(error) from None

    async def _whole(self, request: dict[str, Any], on_text: TextSink | None) -> Reply:
        completion: Any = await self._client.chat.completions.create(**request)
        choices = getattr(completion, "choices", None)
        if not choices:
            raise ModelError(f"the model endpoint at {self.base_url} answered without a message")
        message = choices[0].message
        text = message.content or ""
        calls = _Calls()
        for index, call in enumerate(message.tool_calls or ()):
            function = getattr(call, "function", None)  # custom (non-function) tool calls have none
            if function is not None:
                calls.add(index, call.id, function.name, function.arguments)
        if text and on_text is not None:
            on_text(text)
        return Reply(text, calls.calls())

    async def _streamed(self, request: dict[str, Any], on_text: TextSink | None) -> Reply:
        stream: Any = await self._client.chat.completions.create(**request, stream=True)
        text: list[str] = []
        calls = _Calls()
        async with stream:
            async for chunk in stream:
                for choice in chunk.choices or ():
                    if choice.index:
                        continue  # only the first choice is asked for
                    delta = choice.delta
                    if delta is None:
                        continue
                    if delta.content:
                        text.append(delta.content)
                        if on_text is not None:
                            on_text(delta.content)
                    for position, part in enumerate(delta.tool_calls or ()):
                        index = getattr(part, "index", None)
                        function = part.function
                        calls.add(
                            position if index is None else index,
                            part.id,
                            function.name if function is not None else None,
                            function.arguments if function is not None else None,
                        )
        return Reply("".join(text), calls.calls())

    def _error(self, error: openai.OpenAIError) -> ModelError:
        """The endpoint's failure in words, without the API key and without a traceback."""
        where = self.base_url
        if isinstance(error, openai.APITimeoutError):
            return ModelError(
                f"the model endpoint at {where} did not answer within {self.settings.timeout:g} s",
                hint="is the server overloaded? raise timeout in [tool.skill.chat]",
            )
        if isinstance(error, openai.APIConnectionError):
            cause = error.__cause__ or error.__context__
            detail = f" ({self._redact(str(cause))})" if cause is not None and str(cause) else ""
            return ModelError(
                f"cannot reach the model endpoint at {where}{detail}",
                hint="is the server running, and is --base-url (or OPENAI_BASE_URL) right?",
            )
        if isinstance(error, openai.APIStatusError):
            status = error.status_code
            said = self._server_message(error)
            if isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
                return ModelError(
                    f"the model endpoint at {where} refused the API key (HTTP {status})",
                    hint="set OPENAI_API_KEY to a key this endpoint accepts",
                )
            if isinstance(error, openai.NotFoundError):
                return ModelError(
                    f"the model endpoint at {where} has no model {self.model!r} (HTTP 404: {said})",
                    hint="check --model (or SKILL_MODEL), and that the base URL ends where the API starts, e.g. /v1",
                )
            if isinstance(error, openai.RateLimitError):
                return ModelError(f"the model endpoint at {where} is rate-limiting requests (HTTP 429: {said})")
            return ModelError(f"the model endpoint at {where} answered HTTP {status}: {said}")
        return ModelError(
            f"the model endpoint at {where} sent an answer that cannot be read: {self._redact(str(error))}"
        )

    def _server_message(self, error: Any) -> str:
        body = error.body
        inner = body.get("error", body) if isinstance(body, Mapping) else body
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            said: str = inner["message"]
        elif isinstance(inner, str):
            said = inner
        else:
            said = str(error.message)
        said = self._redact(said.strip()) or "no message"
        return said if len(said) <= _MAX_SERVER_MESSAGE else said[:_MAX_SERVER_MESSAGE] + " ..."

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key != NO_KEY else text

    async def aclose(self) -> None:
        await self._client.close()
