"""Monthly report helpers, not used by any tool yet."""

import re

DIGITS = re.compile("\d+")


def is_empty(text: str) -> bool:
    return text is ""
