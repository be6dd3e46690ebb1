"""Any OpenAI-compatible Chat Completions endpoint, through the official ``openai`` client.

OpenAI, Ollama, vLLM, LM Studio, llama.cpp's server: ``OpenAIChatModel`` sends the
conversation and the offered tools' definitions (in the Chat Completions shape,
``chat_tool``), streamed or whole, and puts the reply together.  The API key is never
printed: it is removed from every message of an endpoint error.  The answer is read as
bytes and parsed here, so that every request is bounded (``deadline`` for all of it,
``max_answer_bytes`` for its size) and an answer that is not a Chat Completions answer
(an HTML page, a broken stream) is a ``ModelError`` that says so, never a crash.

Importing ``openai`` takes a third of a second, so only ``providers.open_model`` imports
this module, and only when an endpoint is configured.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import openai

from .models import DEFAULT_BASE_URL, Message, ModelError, ModelSettings, Reply, TextSink, ToolCall, ToolChoice
from .ownjson import read_json

__all__ = ["NO_KEY", "OpenAIChatModel", "chat_tool"]

#: Sent as the key to an endpoint of one's own when ``OPENAI_API_KEY`` is not set; local
#: servers (Ollama, LM Studio, llama.cpp) ignore it, and the client refuses to run without one.
NO_KEY: Final = "no-key"
#: An endpoint's error message is cut after this many characters.
_MAX_SERVER_MESSAGE: Final = 500
#: The start of an answer that cannot be read is shown up to this many bytes.
_SHOWN_START: Final = 60


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


class _Unreadable(Exception):
    """The endpoint's answer is not a Chat Completions answer; the message says how."""


class _Reported(_Unreadable):
    """The answer is an error document (with HTTP 200, or an event of a stream); the message is its."""


def _json(data: bytes, what: str) -> Any:
    try:
        return read_json(data)
    except (ValueError, RecursionError):
        start = data[:_SHOWN_START].decode("utf-8", "replace").strip()
        raise _Unreadable(f"{what} (it starts {start!r})" if start else f"{what} (it is empty)") from None


def _text(value: object, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise _Unreadable(f"{where} is not a string")


def _object(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _Unreadable(f"{where} is not an object")
    return value


def _list(value: object, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Unreadable(f"{where} is not a list")
    return value


def _endpoint_error(document: Mapping[str, Any]) -> None:
    """An answer that is an error document (some servers send one with HTTP 200, or in a stream)."""
    error = document.get("error")
    if error is not None:
        said = error.get("message") if isinstance(error, Mapping) else error
        raise _Reported(str(said).strip()[:_MAX_SERVER_MESSAGE] or "no message")


def _whole(document: object) -> Reply:
    """The reply in a whole (not streamed) completion document."""
    document = _object(document, "the answer")
    _endpoint_error(document)
    choices = _list(document.get("choices"), "choices")
    if not choices:
        raise _Unreadable("it has no choices")
    message = _object(_object(choices[0], "choices[0]").get("message"), "choices[0].message")
    text = _text(message.get("content"), "the message's content") or ""
    calls = _Calls()
    for index, item in enumerate(_list(message.get("tool_calls"), "tool_calls")):
        where = f"tool_calls[{index}]"
        item = _object(item, where)
        if item.get("function") is None and item.get("type", "function") != "function":
            continue  # a custom (non-function) tool call
        function = _object(item.get("function"), f"{where}.function")
        calls.add(
            index,
            _text(item.get("id"), f"{where}.id"),
            _text(function.get("name"), f"{where}.function.name"),
            _text(function.get("arguments"), f"{where}.function.arguments"),
        )
    return Reply(text, calls.calls())


class _Stream:
    """Chat Completions chunks, read from server-sent events line by line."""

    def __init__(self, on_text: TextSink | None) -> None:
        self.on_text = on_text
        self.text: list[str] = []
        self.calls = _Calls()
        self.events = 0
        self.done = False
        self._data: list[bytes] = []

    def line(self, line: bytes) -> None:
        """One line of the stream, without its line end."""
        line = line.rstrip(b"\r")
        if line.startswith(b"data:"):
            self._data.append(line[6:] if line.startswith(b"data: ") else line[5:])
        elif not line and self._data:
            data = b"\n".join(self._data)
            self._data = []
            if data.strip() == b"[DONE]":
                self.done = True
                return
            self.events += 1
            _chunk(_json(data, "an event of its stream is not JSON"), self.text, self.calls, self.on_text)


async def _streamed(pieces: AsyncIterator[bytes], on_text: TextSink | None) -> Reply:
    """The reply in a stream of Chat Completions chunks (server-sent events)."""
    stream = _Stream(on_text)
    pending: list[bytes] = []
    async for piece in pieces:
        if b"\n" not in piece:
            pending.append(piece)
            continue
        *lines, rest = b"".join([*pending, piece]).split(b"\n")
        pending = [rest]
        for line in lines:
            stream.line(line)
            if stream.done:
                break
        if stream.done:
            break
    else:
        stream.line(b"".join(pending))
        stream.line(b"")
    if not stream.events:
        raise _Unreadable("it is not a stream of Chat Completions chunks (no event in it)")
    return Reply("".join(stream.text), stream.calls.calls())


def _chunk(chunk: object, text: list[str], calls: _Calls, on_text: TextSink | None) -> None:
    chunk = _object(chunk, "a chunk of its stream")
    _endpoint_error(chunk)
    for choice in _list(chunk.get("choices"), "a chunk's choices"):
        choice = _object(choice, "a chunk's choice")
        if choice.get("index"):
            continue  # only the first choice is asked for
        if choice.get("delta") is None:
            continue
        delta = _object(choice.get("delta"), "a chunk's delta")
        content = _text(delta.get("content"), "a chunk's content")
        if content:
            text.append(content)
            if on_text is not None:
                on_text(content)
        for position, part in enumerate(_list(delta.get("tool_calls"), "a chunk's tool_calls")):
            part = _object(part, "a chunk's tool call")
            index = part.get("index")
            if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
                raise _Unreadable("a chunk's tool call index is not a number")
            function = _object(part.get("function") or {}, "a chunk's tool call function")
            calls.add(
                position if index is None else index,
                _text(part.get("id"), "a chunk's tool call id"),
                _text(function.get("name"), "a chunk's tool call name"),
                _text(function.get("arguments"), "a chunk's tool call arguments"),
            )


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
        if self.settings.stream:
            request["stream"] = True
        deadline = self.settings.deadline
        try:
            async with asyncio.timeout(deadline):
                return await self._ask(request, on_text)
        except TimeoutError:
            message = f"the model endpoint at {self.base_url} did not finish its answer within {deadline:g} s"
            raise ModelError(message, hint="is the server overloaded? raise deadline in [tool.skill.chat]") from None
        except openai.OpenAIError as error:
            raise self._error(error) from None
        except _Reported as error:
            said = self._redact(str(error))
            raise ModelError(f"the model endpoint at {self.base_url} answered with an error: {said}") from None
        except _Unreadable as error:
            said = self._redact(str(error))
            raise ModelError(
                f"the model endpoint at {self.base_url} sent an answer that cannot be read: {said}"
            ) from None

    async def _ask(self, request: dict[str, Any], on_text: TextSink | None) -> Reply:
        """Send ``request`` and read the answer as bytes, bounded, parsing it here rather than in the client."""
        answer = self._client.chat.completions.with_streaming_response.create(**request)
        async with answer as response:
            pieces = self._body(response)
            if request.get("stream"):
                return await _streamed(pieces, on_text)
            body = b"".join([piece async for piece in pieces])
        reply = _whole(_json(body, "it is not JSON"))
        if reply.text and on_text is not None:
            on_text(reply.text)
        return reply

    async def _body(self, response: Any) -> AsyncIterator[bytes]:
        """The answer's bytes as they arrive, up to ``max_answer_bytes``."""
        limit = self.settings.max_answer_bytes
        size = 0
        pieces = response.iter_bytes().__aiter__()
        while True:
            try:
                piece: bytes = await pieces.__anext__()
            except StopAsyncIteration:
                return
            except Exception as error:  # the transport's own errors: a dropped connection, a read timeout
                raise _Unreadable(f"it broke off ({type(error).__name__}: {error})") from None
            size += len(piece)
            if size > limit:
                raise _Unreadable(f"it is larger than max_answer_bytes ({limit} bytes) in [tool.skill.chat]")
            yield piece

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
