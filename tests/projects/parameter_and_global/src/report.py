"""Monthly report helpers, not used by any tool yet."""

limit = 10


def cap(limit: int) -> int:
    global limit
    return limit
