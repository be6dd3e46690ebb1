def louder(text: str) -> str:
    return text.upper()
