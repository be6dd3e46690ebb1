import tools


def shout(text: str) -> str:
    return text.upper() + tools.SUFFIX
