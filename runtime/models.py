"""The models the agent loop talks to: messages and tool definitions in, one assistant reply out.

Messages are Chat Completions messages, as plain JSON-ready dicts (``{"role": "user",
"content": ...}``, an assistant's ``tool_calls``, ``{"role": "tool", "tool_call_id",
"content"}``): the shape every OpenAI-compatible server speaks, and the one threads are
saved in.  Tool definitions are the compiled ``tool.json`` documents; a model sends them
in the shape its provider wants.

Two models implement ``Model``: ``OpenAIChatModel``, any Chat Completions endpoint
(OpenAI, Ollama, vLLM, LM Studio, llama.cpp's server) through the official ``openai``
client, which is imported only when such a model is opened; and ``OfflineModel``
(``skillc.runtime.offline``), used when no endpoint is configured.  The API key is read
from ``OPENAI_API_KEY`` and never printed: it is removed from every message of an
endpoint error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeAlias

from .errors import ConfigError, UsageError, UserError

if TYPE_CHECKING:
    from openai import AsyncOpenAI, OpenAIError

__all__ = [
    "DEFAULT_BASE_URL",
    "Message",
    "Model",
    "ModelError",
    "ModelSettings",
    "OpenAIChatModel",
    "Reply",
    "TextSink",
    "ToolCall",
    "ToolChoice",
    "chat_tool",
    "model_settings",
    "open_model",
]

#: One Chat Completions message.
Message: TypeAlias = dict[str, Any]
#: Receives the assistant's text as it arrives, piece by piece.
TextSink: TypeAlias = Callable[[str], None]
#: ``"required"``, or ``{"type": "function", "function": {"name": ...}}``, as Chat Completions takes it.
ToolChoice: TypeAlias = str | Mapping[str, Any]

#: Where the ``openai`` client sends requests when no base URL is configured.
DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
#: Sent as the key to an endpoint of one's own when ``OPENAI_API_KEY`` is not set; local
#: servers (Ollama, LM Studio, llama.cpp) ignore it, and the client refuses to run without one.
_NO_KEY: Final = "no-key"
#: An endpoint's error message is cut after this many characters.
_MAX_SERVER_MESSAGE: Final = 500
_CONFIGURE = (
    "pass --model NAME (and --base-url URL for a server other than OpenAI's), or set SKILL_MODEL "
    "and OPENAI_BASE_URL, or model and base_url in [tool.skill.chat]; the API key comes from OPENAI_API_KEY"
)


class ModelError(UserError):
    """The model endpoint failed: unreachable, refused the key, no such model, a bad answer."""


@dataclass(frozen=True)
class ToolCall:
    """One call the model asks for; ``arguments`` is the JSON text it sent, unparsed."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Reply:
    """What the model said in one step: text, tool calls, or both."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()

    def to_message(self) -> Message:
        """The reply as the assistant message that goes into the conversation."""
        message: Message = {"role": "assistant", "content": self.text if self.text or not self.tool_calls else None}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
                for call in self.tool_calls
            ]
        return message


class Model(Protocol):
    """A chat model: the conversation and the tools offered in, one reply out."""

    @property
    def label(self) -> str:
        """What to call the model when telling the user which one answers."""
        ...

    async def respond(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]],
        *,
        tool_choice: ToolChoice | None = None,
        on_text: TextSink | None = None,
    ) -> Reply:
        """Answer ``messages`` (system prompt first), calling ``on_text`` as text arrives.

        ``tools`` are ``tool.json`` definitions; ``tool_choice`` None lets the model
        choose.  An endpoint failure raises ``ModelError``.
        """
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


@dataclass(frozen=True)
class ModelSettings:
    """Which model answers, and how requests to its endpoint are made."""

    #: The model's name; with ``base_url`` also ``None``, the offline model answers.
    model: str | None = None
    #: An OpenAI-compatible endpoint, like ``http://localhost:11434/v1``; ``None`` is OpenAI's.
    base_url: str | None = None
    #: Ask for the answer as a stream of pieces (shown as they arrive).
    stream: bool = True
    #: Seconds one request may take.
    timeout: float = 120.0
    #: Retries of a request that failed to connect, timed out or got a 429 or 5xx.
    max_retries: int = 2

    @property
    def offline(self) -> bool:
        """No endpoint is configured: the built-in offline model answers."""
        return self.model is None and self.base_url is None


def _text_setting(table: Mapping[str, object], key: str) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"[tool.skill.chat] {key} must be a non-empty string")
    return value.strip()


def _seconds_setting(table: Mapping[str, object], key: str, default: float) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigError(f"[tool.skill.chat] {key} must be a positive number of seconds")
    return float(value)


def _count_setting(table: Mapping[str, object], key: str, default: int) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"[tool.skill.chat] {key} must be a whole number of 0 or more")
    return value


def model_settings(
    table: Mapping[str, object],
    *,
    model: str | None = None,
    base_url: str | None = None,
    environ: Mapping[str, str],
) -> ModelSettings:
    """The settings from the flags, else the environment, else ``[tool.skill.chat]``.

    ``SKILL_MODEL`` names the model and ``OPENAI_BASE_URL`` the endpoint (empty values
    count as unset).  ``OPENAI_BASE_URL`` alone does not choose an endpoint: other
    programs read it too, so it only says where a model named elsewhere is served.
    A malformed table entry is a ``ConfigError``.
    """
    stream = table.get("stream", True)
    if not isinstance(stream, bool):
        raise ConfigError("[tool.skill.chat] stream must be true or false")
    name = model or environ.get("SKILL_MODEL") or _text_setting(table, "model")
    configured = base_url or _text_setting(table, "base_url")
    if name is not None or configured is not None:
        configured = base_url or environ.get("OPENAI_BASE_URL") or configured
    return ModelSettings(
        model=name,
        base_url=configured,
        stream=stream,
        timeout=_seconds_setting(table, "timeout", ModelSettings.timeout),
        max_retries=_count_setting(table, "max_retries", ModelSettings.max_retries),
    )


def open_model(settings: ModelSettings, environ: Mapping[str, str]) -> Model:
    """The model ``settings`` describe: the offline one when no endpoint is configured."""
    if settings.offline:
        from .offline import OfflineModel

        return OfflineModel()
    if settings.model is None:
        raise UsageError(f"a model endpoint is configured ({settings.base_url}) but no model name", hint=_CONFIGURE)
    api_key = environ.get("OPENAI_API_KEY") or None
    if api_key is None:
        if settings.base_url is None:
            raise ModelError(
                f"OPENAI_API_KEY is not set, and {DEFAULT_BASE_URL} needs an API key",
                hint="set OPENAI_API_KEY, or pass --base-url for a server of your own",
            )
        api_key = _NO_KEY
    return OpenAIChatModel(settings, api_key)


def chat_tool(definition: Mapping[str, Any]) -> dict[str, Any]:
    """A ``tool.json`` definition (flat, Responses style) in the Chat Completions shape."""
    function = {key: definition[key] for key in ("name", "description", "parameters", "strict") if key in definition}
    return {"type": "function", "function": function}


class _Calls:
    """Tool calls arriving in pieces (streamed), put together by their index."""

    def __init__(self) -> None:
        self._parts: dict[int, tuple[list[str], list[str], list[str]]] = {}

    def add(self, index: int, call_id: str | None, name: str | None, arguments: str | None) -> None:
        ids, names, pieces = self._parts.setdefault(index, ([], [], []))
        if call_id and not ids:
            ids.append(call_id)
        if name and not names:  # sent once, in the first piece
            names.append(name)
        if arguments:
            pieces.append(arguments)

    def calls(self) -> tuple[ToolCall, ...]:
        return tuple(
            ToolCall("".join(ids), "".join(names), "".join(pieces))
            for _, (ids, names, pieces) in sorted(self._parts.items())
        )


class OpenAIChatModel:
    """Any OpenAI-compatible Chat Completions endpoint, through the official client."""

    def __init__(self, settings: ModelSettings, api_key: str) -> None:
        if settings.model is None:
            raise ValueError("an OpenAIChatModel needs a model name")
        from openai import AsyncOpenAI

        self.settings = settings
        self.model: str = settings.model
        self.base_url = settings.base_url or DEFAULT_BASE_URL
        self._api_key = api_key
        self._client: AsyncOpenAI = AsyncOpenAI(
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
        from openai import OpenAIError

        request: dict[str, Any] = {"model": self.model, "messages": list(messages)}
        if tools:
            request["tools"] = [chat_tool(definition) for definition in tools]
            if tool_choice is not None:
                request["tool_choice"] = tool_choice
        try:
            if self.settings.stream:
                return await self._streamed(request, on_text)
            return await self._whole(request, on_text)
        except OpenAIError as error:
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

    def _error(self, error: OpenAIError) -> ModelError:
        """The endpoint's failure in words, without the API key and without a traceback."""
        import openai

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
        return ModelError(f"the model endpoint at {where} sent an answer that cannot be read: {self._redact(str(error))}")

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
        return text.replace(self._api_key, "***") if self._api_key != _NO_KEY else text

    async def aclose(self) -> None:
        await self._client.close()
