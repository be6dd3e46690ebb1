"""Monthly report helpers, not used by any tool yet."""


def summarise(rows: list[int]) -> int:
    total = 0
    for row in rows
        total += row
    return total
