import importlib

from skillc import tool

try:
    from fast_format import decorate
except ImportError:
    from plain_format import decorate


@tool
def greet(name: str) -> str:
    """Greet someone."""
    try:
        from fast_greeting import hello
    except ImportError:  # the fallback is bundled too
        from plain_greeting import hello
    return decorate(hello(name))


@tool
def shout(text: str) -> str:
    """Shout a text."""
    module = importlib.import_module("plugins.loud")
    return module.louder(text)
