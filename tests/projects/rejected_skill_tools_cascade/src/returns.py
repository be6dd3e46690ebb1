from skillc import Skill, tool


@tool
def start_return(order_id: str) -> str:
    """Start a return."""
    return order_id


returns = Skill(name="orders", description="Returns.", tools=[start_return])
