"""Open the model the settings describe: an OpenAI-compatible endpoint, or the offline model.

The one place that knows every implementation of ``models.Model``; the agent loop and
the models themselves know only the protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final
from urllib.parse import urlsplit

from ..contracts.errors import UsageError
from .models import DEFAULT_BASE_URL, Model, ModelError, ModelSettings
from .offline import OfflineModel

__all__ = ["open_model"]

_CONFIGURE: Final = (
    "pass --model NAME (and --base-url URL for a server other than OpenAI's), or set SKILL_MODEL "
    "and OPENAI_BASE_URL, or model and base_url in [tool.skill.chat]; the API key comes from OPENAI_API_KEY"
)


def open_model(settings: ModelSettings, environ: Mapping[str, str]) -> Model:
    """The model ``settings`` describe: the offline one when no endpoint is configured.

    The API key comes from ``OPENAI_API_KEY`` in ``environ``; a configuration that
    cannot work is a ``UsageError`` or a ``ModelError`` before any request is sent.
    """
    if settings.offline:
        return OfflineModel()
    if settings.model is None:
        raise UsageError(f"a model endpoint is configured ({settings.base_url}) but no model name", hint=_CONFIGURE)
    # Deferred for start-up: the openai client takes a third of a second to import.
    from .openai_chat import NO_KEY, OpenAIChatModel

    if settings.base_url is not None:
        _check_base_url(settings.base_url)
    api_key = _api_key(environ)
    if api_key is None:
        if settings.base_url is None:
            raise ModelError(
                f"OPENAI_API_KEY is not set, and {DEFAULT_BASE_URL} needs an API key",
                hint="set OPENAI_API_KEY, or pass --base-url for a server of your own",
            )
        api_key = NO_KEY
    try:
        return OpenAIChatModel(settings, api_key)
    except Exception as error:  # the client's own check of the URL, whatever its exception
        raise _bad_url(settings.base_url or DEFAULT_BASE_URL, str(error).replace(api_key, "***")) from None


def _api_key(environ: Mapping[str, str]) -> str | None:
    """``OPENAI_API_KEY`` without surrounding whitespace; a key that cannot go into a header is refused unshown."""
    key = environ.get("OPENAI_API_KEY", "").strip()
    if not key:
        return None
    if any(not 0x21 <= ord(character) <= 0x7E for character in key):
        raise UsageError(
            "OPENAI_API_KEY has whitespace, control or non-ASCII characters inside it, "
            "so it cannot be sent (it is not shown here)",
            hint='set OPENAI_API_KEY to the key alone, e.g. export OPENAI_API_KEY="$(cat key.txt)"',
        )
    return key


def _bad_url(url: str, why: str) -> UsageError:
    return UsageError(
        f"the model endpoint's base URL {url!r} is not a valid http(s) URL ({why})",
        hint="pass --base-url (or set OPENAI_BASE_URL, or base_url in [tool.skill.chat]) "
        "like http://localhost:11434/v1",
    )


def _check_base_url(url: str) -> None:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- raises ValueError for a port that is not a number
    except ValueError as error:
        raise _bad_url(url, str(error)) from None
    if parts.scheme not in {"http", "https"}:
        raise _bad_url(url, "it must start with http:// or https://")
    if not parts.hostname:
        raise _bad_url(url, "it has no host")
    if any(character.isspace() or not character.isprintable() for character in url):
        raise _bad_url(url, "it has whitespace or control characters")
