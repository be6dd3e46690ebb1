import orjson


def hello(name: str) -> str:
    return orjson.dumps(f"hello {name}").decode()
