import orjson  # declared, but not installed where the tests run: the fallback is used


def decorate(text: str) -> str:
    return orjson.dumps(text).decode()
