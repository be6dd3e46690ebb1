"""Open the model the settings describe: an OpenAI-compatible endpoint, or the offline model.

The one place that knows every implementation of ``models.Model``; the agent loop and
the models themselves know only the protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

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

    api_key = environ.get("OPENAI_API_KEY") or None
    if api_key is None:
        if settings.base_url is None:
            raise ModelError(
                f"OPENAI_API_KEY is not set, and {DEFAULT_BASE_URL} needs an API key",
                hint="set OPENAI_API_KEY, or pass --base-url for a server of your own",
            )
        api_key = NO_KEY
    return OpenAIChatModel(settings, api_key)
