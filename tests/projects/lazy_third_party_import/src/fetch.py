from skillc import tool


@tool
def fetch(url: str) -> str:
    """Fetch a page."""
    import jinja2
    import requests

    return jinja2.Template(requests.get(url).text).render()
