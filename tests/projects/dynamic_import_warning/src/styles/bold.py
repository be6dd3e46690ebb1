def render(text: str) -> str:
    return f"*{text}*"
