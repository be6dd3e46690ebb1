"""Monthly report helpers, not used by any tool yet."""


def first(rows: list[int]) -> int:
    if rows:
        break
    return 0
