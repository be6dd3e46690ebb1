from skillc import Skill, tool


@tool
def lookup(order_id: str) -> str:
    """Look up an order."""
    return order_id


@tool
def track_parcel(parcel_id: str) -> str:
    """Track a parcel."""
    return parcel_id


orders = Skill(name="orders", description="Orders.", tools=[lookup])
