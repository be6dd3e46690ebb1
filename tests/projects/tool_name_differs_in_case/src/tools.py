from pydantic import BaseModel
from skillc import Tool, tool


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    name = "Lookup"
    description = "Look up an order."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id


@tool(name="lookup")
def lookup_invoice(invoice_id: str) -> str:
    """Look up an invoice."""
    return invoice_id
