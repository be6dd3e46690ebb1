from skillc import Skill, tool


@tool
def Refund(order_id: str) -> str:
    return order_id


billing = Skill(name="billing", description="Invoices.", tools=[Refund])
