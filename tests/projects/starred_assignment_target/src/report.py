"""Monthly report helpers, not used by any tool yet."""

*rows, = [1, 2]
*names = ['a', 'b']
