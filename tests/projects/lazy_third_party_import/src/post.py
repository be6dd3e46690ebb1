from skillc import tool


@tool
def post(url: str, body: str) -> str:
    """Post a body."""
    import requests

    return requests.post(url, data=body).text
