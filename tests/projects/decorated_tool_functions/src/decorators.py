"""Project decorators as real code writes them: a timer, a retrying factory, a registry."""

import functools
import time

CALLS: list[str] = []
REGISTRY: dict[str, object] = {}


def timed(fn):
    """Note each call; the wrapper presents fn's signature, name and docstring."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            CALLS.append(f"{fn.__name__} {time.perf_counter() - started:.0f}s")

    return wrapper


def retry(times):
    """Call again on ValueError, ``times`` calls in all."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for attempt in range(times):
                try:
                    return fn(*args, **kwargs)
                except ValueError:
                    if attempt == times - 1:
                        raise
            raise AssertionError("unreachable")

        return wrapper

    return decorate


def register(obj):
    """Keep the tool in a registry and give it back unchanged."""
    REGISTRY[getattr(obj, "name", repr(obj))] = obj
    return obj
