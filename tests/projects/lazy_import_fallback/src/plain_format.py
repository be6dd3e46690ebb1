def decorate(text: str) -> str:
    return f"<{text}>"
