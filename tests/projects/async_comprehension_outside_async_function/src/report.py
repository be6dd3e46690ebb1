"""Monthly report helpers, not used by any tool yet."""


def collect(rows: object) -> list[object]:
    return [row async for row in rows]
