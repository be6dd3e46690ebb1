import weatherlib  # declared, but not installed: importing this module fails

from skillc import tool


@tool
def weather(city: str) -> str:
    """Tell the weather in a city."""
    return weatherlib.forecast(city)
