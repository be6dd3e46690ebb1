from skillc import Tool, tool


@tool
def spare(order_id: str) -> str:
    """A tool nobody registered."""
    return order_id


def run_ping(input: object, ctx: object) -> str:
    return "pong"


ping = Tool(name="ping", description="Answer pong.", execute=run_ping)
