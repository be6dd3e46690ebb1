"""A tool of the smart home that reads the example's settings, made at import."""

from home.settings import settings
from skillc import tool


@tool
def bridge_user() -> str:
    """The user name the bridge knows us by."""
    return settings.hue_bridge_username
