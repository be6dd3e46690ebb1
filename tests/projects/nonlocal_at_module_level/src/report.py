"""Monthly report helpers, not used by any tool yet."""

nonlocal count
count = 0
