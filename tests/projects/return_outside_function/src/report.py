"""Monthly report helpers, not used by any tool yet."""

rows: list[int] = []
total = sum(rows)
if total:
    return total
