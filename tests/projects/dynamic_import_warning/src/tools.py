from importlib import import_module

from skillc import tool


@tool
def render(style: str, text: str) -> str:
    """Render a text in a style."""
    renderer = import_module(f"styles.{style}")
    return renderer.render(text)
