"""Settings made at import that fail nothing: every field has a default; and settings with
required fields made when a tool first asks for them, where a missing variable is that call's error."""

import functools

from pydantic import Field
from pydantic_settings import BaseSettings


class Timeouts(BaseSettings):
    model_config = {"env_prefix": "HOME_"}

    request_seconds: float = 10.0
    retries: int = Field(default_factory=lambda: 2)


timeouts = Timeouts()


class Bridge(BaseSettings):
    model_config = {"env_prefix": "HUE_BRIDGE_"}

    ip: str
    port: int = 80


@functools.cache
def bridge() -> Bridge:
    """The bridge's settings, read when a tool first asks for them."""
    return Bridge()
