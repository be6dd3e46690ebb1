from pydantic import BaseModel
from skillc import Tool, ToolContext


class ReportInput(BaseModel):
    month: str = "2025-01"


def run_report(input: ReportInput, ctx: ToolContext) -> dict[str, object]:
    return {"month": input.month, "orders": 42}


sales_report = Tool(
    name="sales_report",
    description="Sales of one month.",
    input_schema=ReportInput,
    execute=run_report,
)
