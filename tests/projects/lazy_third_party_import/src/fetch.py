from skillc import tool


@tool
def fetch(url: str) -> str:
    """Fetch a page."""
    import httpx
    import requests

    return httpx.get(url).text or requests.get(url).text
