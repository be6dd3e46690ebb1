"""Monthly report helpers, not used by any tool yet."""

__debug__ = False
