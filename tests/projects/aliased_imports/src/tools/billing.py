import skillc
from skillc import tool as skill_tool

from tools import orders as order_tools


class Refund(skillc.Tool):
    name = "refund"
    description = "Refund an order."
    input_schema = order_tools.LookupInput

    def execute(self, input: order_tools.LookupInput, ctx: object) -> str:
        return input.order_id


@skill_tool(name="invoice")
def get_invoice(invoice_id: str) -> str:
    """Fetch an invoice."""
    return invoice_id
