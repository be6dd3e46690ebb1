"""Tools of the smart home whose settings fail nothing at import."""

from home.config import bridge, timeouts
from skillc import tool


@tool
def bridge_address() -> str:
    """The address of the Hue bridge."""
    found = bridge()
    return f"{found.ip}:{found.port}"


@tool
def request_timeout() -> float:
    """How long a request to the bridge may take, in seconds."""
    return timeouts.request_seconds
