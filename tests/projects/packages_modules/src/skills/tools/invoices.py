from skillc import Tool

from skills.models import InvoiceInput


def total(input: InvoiceInput, ctx: object) -> float:
    return 42.0


invoice_total = Tool(
    name="invoice_total",
    description="Total of an invoice.",
    input_schema=InvoiceInput,
    execute=total,
)
