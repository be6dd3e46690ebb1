from skillc import Skill, tool


@tool(name="lookup")
def lookup_invoice(invoice_id: str) -> str:
    """Look up an invoice."""
    return invoice_id


@tool
def refund(invoice_id: str) -> str:
    """Refund an invoice."""
    return invoice_id


billing = Skill(name="billing", description="Invoices.", tools=[lookup_invoice, refund])
