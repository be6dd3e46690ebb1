"""State shared by the tools of one loaded dist."""

ATTEMPTS: dict[str, int] = {}
