"""What the agent loop and its models share: messages and tool definitions in, one reply out.

Messages are Chat Completions messages, as plain JSON-ready dicts (``{"role": "user",
"content": ...}``, an assistant's ``tool_calls``, ``{"role": "tool", "tool_call_id",
"content"}``): the shape every OpenAI-compatible server speaks, and the one threads are
saved in.  Tool definitions are the compiled ``tool.json`` documents; a model sends them
in the shape its provider wants.

Two models implement the ``Model`` protocol: ``openai_chat.OpenAIChatModel``, any Chat
Completions endpoint, and ``offline.OfflineModel``, used when no endpoint is configured;
``providers.open_model`` picks one from the ``ModelSettings`` read here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeAlias

from ..contracts.errors import ConfigError, UserError

__all__ = [
    "DEFAULT_BASE_URL",
    "Message",
    "Model",
    "ModelError",
    "MODEL_KEYS",
    "ModelSettings",
    "Reply",
    "TextSink",
    "ToolCall",
    "ToolChoice",
    "model_settings",
]

#: One Chat Completions message.
Message: TypeAlias = dict[str, Any]
#: Receives the assistant's text as it arrives, piece by piece.
TextSink: TypeAlias = Callable[[str], None]
#: ``"required"``, or ``{"type": "function", "function": {"name": ...}}``, as Chat Completions takes it.
ToolChoice: TypeAlias = str | Mapping[str, Any]

#: The keys of ``[tool.skill.chat]`` that ``model_settings`` reads.
MODEL_KEYS: Final = frozenset({"model", "base_url", "stream", "timeout", "max_retries", "deadline", "max_answer_bytes"})
#: Where the ``openai`` client sends requests when no base URL is configured.
DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"


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
    #: Seconds one request may wait to connect, or between two pieces of its answer.
    timeout: float = 120.0
    #: Seconds one model request may take in all, retries and the whole streamed answer included.
    deadline: float = 600.0
    #: Bytes one answer may have; a longer one (an endless stream) is refused.
    max_answer_bytes: int = 10_000_000
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


def _size_setting(table: Mapping[str, object], key: str, default: int) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"[tool.skill.chat] {key} must be a whole number of 1 or more")
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
        deadline=_seconds_setting(table, "deadline", ModelSettings.deadline),
        max_answer_bytes=_size_setting(table, "max_answer_bytes", ModelSettings.max_answer_bytes),
    )
