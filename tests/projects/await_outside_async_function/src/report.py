"""Monthly report helpers, not used by any tool yet."""


def fetch(client: object) -> object:
    return await client.get()
