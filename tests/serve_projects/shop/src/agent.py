from skillc import Agent, Skill, ToolContext
from tools.orders import LookupOrder, add, cancel_order, chatty, explode, slow
from tools.reports import sales_report


def reports_enabled() -> bool:
    return ToolContext.current().env.get("SHOW_REPORTS") == "on"


orders = Skill(
    name="orders",
    description="Orders and arithmetic.",
    context="Order ids look like A1001.",
    tools=[add, LookupOrder(), explode, slow, cancel_order, chatty],
)
reports = Skill(
    name="reports",
    description="Internal reports.",
    context="Reports are for staff only.",
    tools=[sales_report],
    condition=reports_enabled,
)
agent = Agent(name="shop", persona="You help customers with their orders.", skills=[orders, reports])
